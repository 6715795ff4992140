import { EventEmitter } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { runGsh, testContext, virtualClock } from '../helpers/context.js';
import { type E2E, idList, runEnv, setup } from './helpers.js';

// Many servers at once (ARCHITECTURE.md "Many servers at once") against the sandbox, with its fault
// injection (gateway 5xx, lost responses, 429) and per-key rate limits (01-general-contract.md
// "Limits": X-RateLimit-Limit/Remaining/Reset, 429 when exceeded).

let t: E2E;
let names: string[];
beforeAll(async () => {
  t = await setup({ servers: 12, clock: 'fast' });
  names = [...t.sandbox.state.servers.values()].map((s) => s.name).sort();
});
afterAll(() => t.close());

const powerPosts = (from: number) => t.sandbox.log.slice(from).filter((e) => e.method === 'POST' && e.path.endsWith('/power'));
const listings = (from: number) => t.sandbox.log.slice(from).filter((e) => e.method === 'GET' && e.path === '/servers');
const idOf = (name: string) => [...t.sandbox.state.servers.values()].find((s) => s.name === name)!.id;
/**
 * Puts servers in a state for a test, cancelling transitions an earlier test left pending (a start's
 * `starting → running` timer would otherwise flip one to running mid-test when the machine is slow).
 */
const setState = (targets: string[], state: 'offline' | 'running') => {
  for (const n of targets) {
    const s = t.sandbox.state.servers.get(idOf(n))!;
    for (const cancel of s.timers) cancel();
    s.timers.clear();
    s.state = state;
  }
};

describe('targets', () => {
  it('-s repeated, comma lists, name globs (case-sensitive) and - from stdin resolve with one listing', async () => {
    const [a, b, c] = names as [string, string, string];
    const mark = t.sandbox.log.length;
    const r = await t.gsh(['servers', 'get', '-s', `${a},${b}`, '-s', c, '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).map((x: { server_name: string }) => x.server_name)).toEqual([a, b, c]);
    expect(listings(mark)).toHaveLength(1);

    // A glob that matches several servers whatever the seed: at most 9 of the sandbox's 24 demo
    // names lack a hyphen, so at least 3 of any 12 have one.
    const expected = names.filter((n) => n.includes('-'));
    expect(expected.length).toBeGreaterThan(1);
    const byGlob = await t.gsh(['servers', 'get', '-s', '*-*', '-o', 'json']);
    expect(byGlob.exitCode, byGlob.stderr).toBe(0);
    expect(JSON.parse(byGlob.stdout).map((x: { server_name: string }) => x.server_name).sort()).toEqual(expected);
    const upper = await t.gsh(['servers', 'get', '-s', `${a.slice(0, 2).toUpperCase()}*`, '--json']);
    expect(upper.exitCode).toBe(2); // no name starts with upper case: the glob matches nothing
    expect(upper.stderr).toMatch(/matches no server name/);

    const fromStdin = await t.gsh(['servers', 'status', '-s', '-', '-o', 'json'], { input: `${a}\n${idOf(b)}\n` });
    expect(fromStdin.exitCode, fromStdin.stderr).toBe(0);
    expect(JSON.parse(fromStdin.stdout).map((x: { server_id: string }) => x.server_id)).toEqual([idOf(a), idOf(b)]);
  });

  it('a name that matches nothing is not found (exit 5) before anything is changed (issue 37)', async () => {
    const mark = t.sandbox.log.length;
    const r = await t.gsh(['power', 'restart', '-s', `${names[0]},no-such-server`, '--yes']);
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toMatch(/no server has the name or id "no-such-server"/);
    expect(powerPosts(mark)).toEqual([]);
  });

  it('a glob that matches one server keeps the single-server output exactly', async () => {
    const name = names[0]!;
    const one = await t.gsh(['servers', 'get', '-s', name, '--json']);
    const glob = await t.gsh(['servers', 'get', '-s', `${name.slice(0, -1)}?`, '--json']);
    expect(glob.exitCode, glob.stderr).toBe(0);
    expect(glob.stdout).toBe(one.stdout);
    expect(JSON.parse(one.stdout).name).toBe(name);
  });
});

describe('results and safety', () => {
  it('--all-servers: one result per target as jsonl, exit 0 when all succeed', async () => {
    const r = await t.gsh(['servers', 'status', '--all-servers', '-o', 'jsonl']);
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout.split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(names.length);
    for (const l of lines) expect(Object.keys(l)).toEqual(['server_id', 'server_name', 'ok', 'exit_code', 'data']);
  });

  it('a destructive command on several servers needs --yes without a terminal (exit 2, nothing sent); --dry-run shows every target', async () => {
    const mark = t.sandbox.log.length;
    const r = await t.gsh(['servers', 'reinstall', '-s', names.slice(0, 3).join(',')]);
    expect(r.exitCode).toBe(2);
    expect(t.sandbox.log.slice(mark).filter((e) => e.method !== 'GET')).toEqual([]);
    const dry = await t.gsh(['servers', 'reinstall', '-s', names.slice(0, 3).join(','), '--dry-run', '-o', 'json']);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout).requests.map((q: { url: string }) => q.url.replace(/.*\/servers\/([^/]+)\/.*/, '$1'))).toEqual(names.slice(0, 3).map(idOf));
  });

  it('N targets, exactly N effects, under gateway errors, lost responses and 429s; --idempotency-key is refused', async () => {
    const targets = names.slice(0, 8);
    setState(targets, 'offline');
    t.sandbox.setFaults({ gateway5xx: 0.3, lostResponse: 0.25, rateLimit429: 0.1 });
    const before = t.sandbox.state.powerActions.length;
    try {
      const r = await t.gsh(['power', 'start', '-s', targets.join(','), '--parallel', '8', '-o', 'json']);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).every((x: { ok: boolean }) => x.ok)).toBe(true);
    } finally {
      t.sandbox.setFaults({ gateway5xx: 0, lostResponse: 0, rateLimit429: 0 });
    }
    const effects = t.sandbox.state.powerActions.slice(before);
    expect(effects.map((e) => e.serverId).sort()).toEqual(targets.map(idOf).sort());
    expect((await t.gsh(['power', 'stop', '-s', targets.join(','), '--idempotency-key', 'k1'])).exitCode).toBe(2);
  });

  it('a suspended server among them: exit 11, the others done, its error in its result', async () => {
    const targets = names.slice(0, 4);
    setState(targets, 'offline');
    const suspended = t.sandbox.state.servers.get(idOf(targets[1]!))!;
    suspended.suspended = true;
    try {
      const r = await t.gsh(['power', 'start', '-s', targets.join(','), '-o', 'json']);
      expect(r.exitCode).toBe(11);
      const results = JSON.parse(r.stdout) as { server_name: string; ok: boolean; exit_code: number; error?: string }[];
      expect(results.filter((x) => !x.ok)).toEqual([expect.objectContaining({ server_name: targets[1], exit_code: 4 })]);
      expect(results.filter((x) => x.ok)).toHaveLength(3);
      expect(r.stderr).toMatch(new RegExp(`1 of 4 failed: ${targets[1]}`));
    } finally {
      suspended.suspended = false;
    }
  });

  it('--fail-fast starts no new target after a failure', async () => {
    const targets = names.slice(0, 5);
    setState(targets, 'offline');
    const suspended = t.sandbox.state.servers.get(idOf(targets[0]!))!;
    suspended.suspended = true;
    try {
      const mark = t.sandbox.log.length;
      const r = await t.gsh(['power', 'start', '-s', targets.join(','), '--parallel', '1', '--fail-fast', '-o', 'json']);
      expect(r.exitCode).toBe(11);
      // Issue 53: the ones not started are listed as such, with the line that runs them.
      const results = JSON.parse(r.stdout) as { server_id: string; ok: boolean; not_started?: true }[];
      expect(results.map((x) => x.server_id)).toEqual(targets.map(idOf));
      expect(results.filter((x) => x.not_started).map((x) => x.server_id)).toEqual(targets.slice(1).map(idOf));
      expect(r.stderr).toMatch(/1 failed, more than --fail-fast \(--max-fail 0\) allows: not started on/);
      expect(r.stderr).toContain(`  gsh power start --parallel 1 --fail-fast -o json -s ${idList(targets.slice(1).map(idOf))}\n`);
      expect(powerPosts(mark)).toHaveLength(1);
    } finally {
      suspended.suspended = false;
    }
  });

  it('Ctrl-C lists every target (done, interrupted, not started) and exits 130', async () => {
    const ctx = testContext({ env: runEnv(t.env()) });
    t.sandbox.setFaults({ latencyMs: 300 });
    try {
      // Interrupted once two statuses are answered, while the next two wait out their latency.
      let answered = 0;
      const off = t.sandbox.onRequest((e) => {
        if (e.path.endsWith('/status') && ++answered === 2) setTimeout(() => (ctx.signals as EventEmitter).emit('SIGINT'), 100);
      });
      const r = await runGsh(['servers', 'status', '--all-servers', '--parallel', '2', '-o', 'json'], ctx).finally(off);
      expect(r.exitCode).toBe(130);
      const all = JSON.parse(r.stdout) as { server_name: string; ok: boolean; interrupted?: true; not_started?: true; exit_code: number }[];
      expect(all.map((x) => x.server_name).sort()).toEqual(names);
      const done = all.filter((x) => x.ok);
      expect(done.length).toBeGreaterThan(0);
      expect(all.filter((x) => x.interrupted).length).toBeGreaterThan(0);
      expect(all.filter((x) => x.not_started).length).toBeGreaterThan(0);
      for (const x of all.filter((y) => !y.ok)) expect(x.exit_code).toBe(130);
      expect(r.stderr).toMatch(new RegExp(`Interrupted: ${done.length} of 12 finished`));
      expect(r.stderr).toMatch(/Not started: /);
    } finally {
      t.sandbox.setFaults({ latencyMs: 0 });
    }
  });
});

describe('gsh wait', () => {
  it('a 202 names the gsh wait line; that line follows the work without sending it again', async () => {
    const name = names[5]!;
    setState([name], 'offline');
    const started = await t.gsh(['power', 'start', name]);
    expect(started.exitCode, started.stderr).toBe(0);
    const line = /Follow it: (gsh wait .*)/.exec(started.stderr)?.[1];
    expect(line).toBe(`gsh wait -s ${idOf(name)} --for running`);
    const mark = t.sandbox.log.length;
    const waited = await t.gsh([...line!.split(' ').slice(1), '-o', 'json']);
    expect(waited.exitCode, waited.stderr).toBe(0);
    expect(JSON.parse(waited.stdout).state).toBe('running');
    expect(powerPosts(mark)).toEqual([]);
  });

  it('several servers: one result each; a state never reached times out with exit 10 in its result and 11 overall', async () => {
    const r = await t.gsh(['wait', '-s', names.slice(0, 2).join(','), '--for', 'no_such_state', '--timeout', '2s', '-o', 'json']);
    expect(r.exitCode).toBe(11);
    expect(JSON.parse(r.stdout).map((x: { exit_code: number }) => x.exit_code)).toEqual([10, 10]);
  });
});

describe('console send across servers', () => {
  it('sends to each and gives one result per server', async () => {
    const targets = names.slice(0, 3);
    setState(targets, 'running');
    const r = await t.gsh(['console', 'send', '-s', targets.join(','), 'say restarting in 5', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).map((x: { server_name: string; ok: boolean }) => [x.server_name, x.ok])).toEqual(targets.map((n) => [n, true]));
  });
});

describe('the shared rate-limit budget', () => {
  let sb: Sandbox;
  // One virtual clock for the sandbox's rate-limit windows and for gsh.
  const clock = virtualClock();
  beforeAll(async () => {
    sb = await startSandbox({ servers: 54, rateLimit: 30, timeScale: 0.01, now: clock.now });
  });
  afterAll(() => sb.close());

  it('54 targets on a key limited to 30 requests a minute all succeed, and no 429 is answered', async () => {
    for (const s of sb.state.servers.values()) s.state = 'offline';
    const ctx = testContext({ env: runEnv({ GSH_BASE_URL: sb.baseUrl, GSH_API_KEY: sb.keys.all, GSH_CONFIG_DIR: t.configDir }), clock });
    const r = await runGsh(['power', 'start', '--all-servers', '--parallel', '8', '-o', 'json'], ctx);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(54);
    expect(sb.log.filter((e) => e.status === 429)).toEqual([]);
    expect(sb.state.powerActions).toHaveLength(54);
  });
});
