import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox, type ServerRecord } from '../../src/sandbox/index.js';
import { runStepped, stepsToSignal, VirtualTime } from '../helpers/interrupt-steps.js';
import { runGsh, testContext, virtualClock } from '../helpers/context.js';
import { runEnv, STRICT } from './helpers.js';

// Configuration as code over a fleet (README "Configuration as code"): a fleet file's defaults and
// globs merged per server, within the key's rate limit (01-general-contract.md "Limits"), and
// Ctrl-C / SIGTERM at every step of an apply (ARCHITECTURE.md "Tests", "Every step").

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'gsh-config-fleet-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('a fleet file: defaults and three globs over 33 servers, at 60 requests a minute', () => {
  let sb: Sandbox;
  const clock = virtualClock();
  let file: string;
  const groups = ['lobby', 'survival', 'creative'];
  beforeAll(async () => {
    sb = await startSandbox({ strict: STRICT, servers: 36, rateLimit: 60, timeScale: 0.01, now: clock.now });
    [...sb.state.servers.values()].forEach((s, i) => {
      s.application = 'minecraft';
      s.plan = 'paid';
      s.name = i < 33 ? `${groups[i % 3]}-${String(i).padStart(2, '0')}` : `other-${i}`;
    });
    file = join(root, 'fleet.yaml');
    writeFileSync(file, [
      'version: 1',
      'defaults:',
      '  properties:',
      '    motd: Welcome',
      'servers:',
      '  "lobby-*":',
      '    properties:',
      '      max-players: 60',
      '  "survival-*":',
      '    properties:',
      '      difficulty: hard',
      '  "creative-*":',
      '    properties:',
      '      gamemode: creative',
      '  lobby-00:',
      '    properties:',
      '      motd: The first lobby',
      '',
    ].join('\n'));
  });
  afterAll(() => sb.close());

  const gsh = (argv: string[]) => runGsh(argv, testContext({ env: runEnv({ GSH_BASE_URL: sb.baseUrl, GSH_API_KEY: sb.keys.all, GSH_CONFIG_DIR: root, NO_COLOR: '1' }), clock }));
  const propertyReads = (from: number) => sb.log.slice(from).filter((e) => e.method === 'GET' && e.route === '/servers/{server_id}/properties');
  const perServer = (entries: Array<{ path: string }>) => {
    const n = new Map<string, number>();
    for (const e of entries) n.set(e.path, (n.get(e.path) ?? 0) + 1);
    return n;
  };

  it('diff 14, apply 0, diff 0: no 429, one properties write per matched server, at most one properties read per server per run', async () => {
    const ids = (prefix: string) => [...sb.state.servers.values()].filter((s) => s.name.startsWith(prefix)).map((s) => s.id);
    const matched = groups.flatMap((g) => ids(`${g}-`));
    expect(matched).toHaveLength(33);
    for (const argv of [['config', 'diff', file], ['config', 'apply', file, '--yes', '--parallel', '8'], ['config', 'diff', file]]) {
      const mark = sb.log.length;
      const r = await gsh(argv);
      expect(r.exitCode, `${argv.join(' ')}\n${r.stderr}`).toBe(argv[1] === 'apply' ? 0 : mark === 0 ? 14 : 0);
      const reads = perServer(propertyReads(mark));
      expect(reads.size).toBe(33);
      expect(Math.max(...reads.values())).toBe(1);
      // The listing of the servers (one page) is the only other read.
      expect(sb.log.slice(mark).filter((e) => e.method === 'GET' && e.route !== '/servers/{server_id}/properties').map((e) => e.path)).toEqual(['/servers']);
      if (argv[1] === 'apply') {
        expect(r.stderr).toMatch(/This run reads and writes \(33 writes\): about 67 requests, about 67 s at this key's limit of 60 a minute/);
      }
    }
    const writes = sb.log.filter((e) => e.method !== 'GET');
    expect(writes.every((w) => w.route === '/servers/{server_id}/properties' && w.status === 200)).toBe(true);
    expect([...perServer(writes).keys()].sort()).toEqual(matched.map((id) => `/servers/${id}/properties`).sort());
    expect(sb.log.filter((e) => e.status === 429)).toEqual([]);
    const lobby0 = writes.find((w) => w.path === `/servers/${ids('lobby-00')[0]}/properties`)!;
    expect(lobby0.body).toEqual({ motd: 'The first lobby', 'max-players': 60 });
    const survival = writes.find((w) => w.path === `/servers/${ids('survival-')[0]}/properties`)!;
    expect(survival.body).toEqual({ motd: 'Welcome', difficulty: 'hard' });
    // -s narrows the servers the file manages; a server it does not manage is never added.
    const mark = sb.log.length;
    const narrowed = await gsh(['config', 'diff', file, '-s', 'lobby-*,other-33']);
    expect(narrowed.exitCode, narrowed.stderr).toBe(0);
    expect([...perServer(propertyReads(mark)).keys()].sort()).toEqual(ids('lobby-').map((id) => `/servers/${id}/properties`).sort());
  });
});

describe('Ctrl-C and SIGTERM at every step of config apply on two servers', () => {
  const time = new VirtualTime();
  let sandbox: Sandbox;
  let servers: ServerRecord[];
  let dir: string;
  beforeAll(async () => {
    sandbox = await startSandbox({ strict: STRICT, manualTime: true, now: () => time.now, servers: 2 });
    time.attach(sandbox);
    servers = [...sandbox.state.servers.values()];
    servers.forEach((s, i) => {
      s.application = 'minecraft';
      s.plan = 'paid';
      s.name = `steps-${i}`;
    });
    dir = join(root, 'steps');
    mkdirSync(dir, { recursive: true });
    for (const s of servers) {
      writeFileSync(join(dir, `${s.name}.yaml`), `version: 1\nserver: ${s.name}\nproperties:\n  motd: Declared\nhooks:\n  - url: https://hooks.example.com/${s.name}\n    events: [server.crashed]\n`);
    }
  });
  afterAll(() => sandbox.close());

  const envOf = () => ({ GSH_BASE_URL: sandbox.baseUrl, GSH_API_KEY: sandbox.keys.all, NO_COLOR: '1' });
  /** Both servers drifted: motd changed, their webhook gone; a fresh rate-limit window. */
  const reset = async () => {
    time.moveTo(time.now + 61_000);
    for (const s of servers) {
      const r = await runStepped(['properties', 'update', '-s', s.id, '-f', 'motd=Drifted'], envOf(), time);
      expect(r.exitCode, r.stderr).toBe(0);
      const list = await runStepped(['hooks', 'list', '-s', s.id, '--json'], envOf(), time);
      for (const h of JSON.parse(list.stdout) as Array<{ id: string }>) expect((await runStepped(['hooks', 'delete', '-s', s.id, h.id, '--yes'], envOf(), time)).exitCode).toBe(0);
    }
  };
  const argv = () => ['config', 'apply', dir, '--yes', '-o', 'json'];

  it('-o json: every change named with its status and key; exit 130/143; a re-run finishes with no double effect', async () => {
    await reset();
    const counted = await runStepped(argv(), envOf(), time);
    expect(counted.exitCode, counted.stderr).toBe(0);
    expect(counted.steps.filter((x) => x.kind === 'send').length).toBeGreaterThanOrEqual(9);
    // Every step in a full run, a seeded sample of them in `npm test` (test/helpers/interrupt-steps.ts).
    for (const k of stepsToSignal(counted.steps, argv().join(' '))) {
      await reset();
      const mark = sandbox.effects.length;
      const signal = k % 3 === 0 ? 'SIGTERM' : 'SIGINT';
      const r = await runStepped(argv(), envOf(), time, { at: k, signal });
      const why = `step ${k} (${r.delivered ? `${r.delivered.kind} ${r.delivered.what}` : 'not reached'})\n${r.stderr}`;
      expect(r.stderr, why).not.toMatch(/internal error/);
      if (r.delivered) {
        expect(r.exitCode, why).toBe(signal === 'SIGINT' ? 130 : 143);
        // Stopped before the listing came: nothing is listed. Stopped while reading the servers:
        // every server is listed, its pending changes not_started or itself not read, nothing made.
        const listing = r.stdout === '' ? [] : (JSON.parse(r.stdout) as Array<{ status: string; idempotency_key: string | null; item: string | null; server_name: string }>);
        if (/while reading/.test(r.stderr)) {
          expect(new Set(listing.map((c) => c.server_name)), why).toEqual(new Set(servers.map((s) => s.name)));
          expect(listing.every((c) => c.status === 'not_started' && c.idempotency_key === null), why).toBe(true);
          expect(sandbox.effects.length, why).toBe(mark);
        } else if (r.stdout !== '') {
          const changes = listing;
          expect(changes.length, why).toBe(4);
          for (const c of changes) {
            expect(['applied', 'unknown', 'not_started'], why).toContain(c.status);
            if (c.status !== 'not_started') expect(c.idempotency_key, why).toMatch(/^[0-9a-f-]{36}$/);
            if (c.status === 'unknown') expect(r.stderr, why).toContain(c.idempotency_key!);
          }
          // Every change the service made in this run is named, with its key, as applied or unknown.
          for (const e of sandbox.effects.slice(mark)) {
            expect(changes.find((c) => c.idempotency_key === e.idempotencyKey)?.status, `${why}\n${e.method} ${e.path}`).toMatch(/^(applied|unknown)$/);
          }
        } else expect(sandbox.effects.length, why).toBe(mark);
      }
      const again = await runStepped(argv(), envOf(), time);
      expect(again.exitCode, `${why}\nre-run: ${again.stderr}`).toBe(0);
      // Each change acted once over both runs: one properties merge and one webhook per server.
      const acted = sandbox.effects.slice(mark).map((e) => `${e.method} ${e.path}`).sort();
      expect(acted, why).toEqual(servers.flatMap((s) => [`POST /servers/${s.id}/hooks`, `PUT /servers/${s.id}/properties`]).sort());
    }
  });
});

// Issue 47: the estimate (README "Configuration as code": "A run that will take more than a minute
// at the key's rate limit says so first, with its number of requests"). The key's limit is the
// contract's X-RateLimit-Limit (01-general-contract.md "Limits"), per minute. The same 8 servers
// and file, read with a key of 10 requests a minute (17 reads: the listing and two kinds on 8
// servers, more than a minute) and with one of 600 (well under a minute).
describe('the estimate: printed first for a slow key, not at all for a fast one', () => {
  let sb: Sandbox;
  const clock = virtualClock();
  let dir: string;
  beforeAll(async () => {
    sb = await startSandbox({ strict: STRICT, servers: 8, rateLimit: 600, timeScale: 0.01, now: clock.now });
    [...sb.state.servers.values()].forEach((s, i) => {
      s.application = 'minecraft';
      s.plan = 'paid';
      s.name = `est-${i}`;
    });
    dir = join(root, 'estimate');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'fleet.yaml'), 'version: 1\nservers:\n  "est-*":\n    properties:\n      motd: Estimated\n    settings:\n      description: Estimated\n');
  });
  afterAll(() => sb.close());

  const gsh = (argv: string[], key: string) => runGsh(argv, testContext({ env: runEnv({ GSH_BASE_URL: sb.baseUrl, GSH_API_KEY: key, GSH_CONFIG_DIR: root, NO_COLOR: '1' }), clock }));
  const estimates = (stderr: string) => stderr.split('\n').filter((l) => / requests, about .* at this key's limit of /.test(l));

  it('diff and apply with 10 a minute: the estimate is the first line; with 600 a minute: no estimate', async () => {
    const fast = sb.keys.all;
    const slow = sb.createKey(['*'], { rateLimit: 10 });
    const fastDiff = await gsh(['config', 'diff', dir], fast);
    expect(fastDiff.exitCode, fastDiff.stderr).toBe(14);
    expect(estimates(fastDiff.stderr)).toEqual([]);
    const slowDiff = await gsh(['config', 'diff', dir], slow);
    expect(slowDiff.exitCode, slowDiff.stderr).toBe(14);
    expect(estimates(slowDiff.stderr)).toEqual(["This run reads: about 17 requests, about 102 s at this key's limit of 10 a minute."]);
    expect(slowDiff.stderr.split('\n')[0]).toBe(estimates(slowDiff.stderr)[0]);
    // apply on the slow key: its reads alone outrun the minute, so that one line says it (the
    // writes do not get a second one).
    const slowApply = await gsh(['config', 'apply', dir, '--yes'], slow);
    expect(slowApply.exitCode, slowApply.stderr).toBe(0);
    expect(estimates(slowApply.stderr)).toEqual(["This run reads: about 17 requests, about 102 s at this key's limit of 10 a minute."]);
    expect(slowApply.stderr.split('\n')[0]).toBe(estimates(slowApply.stderr)[0]);
    // Drift again, so the fast apply reads and writes as much as the slow one did: still no estimate.
    writeFileSync(join(dir, 'fleet.yaml'), 'version: 1\nservers:\n  "est-*":\n    properties:\n      motd: Estimated again\n    settings:\n      description: Estimated again\n');
    const mark = sb.log.length;
    const fastApply = await gsh(['config', 'apply', dir, '--yes'], fast);
    expect(fastApply.exitCode, fastApply.stderr).toBe(0);
    expect(sb.log.slice(mark).filter((e) => e.method !== 'GET')).toHaveLength(16);
    expect(estimates(fastApply.stderr)).toEqual([]);
  });
});
