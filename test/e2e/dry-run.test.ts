import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, request, type Server as HttpServer } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realClock } from '../../src/core/run/context.js';
import type { RequestLogEntry } from '../../src/sandbox/index.js';
import { expectRequests } from '../helpers/request-expectations.js';
import { type E2E, setup } from './helpers.js';
import { type Fixtures, type RefEntry, type Step, flagValue, long, makeFixtures, planOf, reference, registryOps } from './walk-plan.js';

// Issue 11, "plan before request" (ARCHITECTURE.md "Plan, then execute"; README "Dry runs"):
// planning checks everything typed and sends nothing but the reads that resolve server names;
// --dry-run prints the plan and stops there; a usage error never follows a request ("nothing is
// sent until everything typed is checked"). Also the per-attempt --request-timeout and the
// refused-connection schedule (README "Retries and idempotency": exit 9 within 5 s), and --profile
// over GSH_API_KEY (ARCHITECTURE.md "Auth store": an explicit --profile > GSH_TOKEN/GSH_API_KEY).

let t: E2E;
let dir: string;
let fx: Fixtures;
let ref: RefEntry[];
let steps: Step[];
let front: Front;

/**
 * A recording HTTP front for the sandbox: every request the run sends to its base URL's origin is
 * noted, including the admin and node paths the sandbox's own log leaves out, then passed on.
 */
interface Front {
  baseUrl: string;
  seen: string[];
  close(): Promise<void>;
}

async function recordingFront(origin: string): Promise<Front> {
  const target = new URL(origin);
  const seen: string[] = [];
  const server: HttpServer = createHttpServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const up = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/api/v2`,
    seen,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/**
 * The server lookup `-s` does while planning (ARCHITECTURE.md "Command grammar") and, when no
 * name matches, the reference's check as an id right after it (`GET /servers/{ref}`): the reads
 * allowed.
 */
const isLookup = (e: RequestLogEntry) => e.method === 'GET' && e.path === '/servers' && e.query.search !== undefined;
const isLookupLine = (line: string) => /^GET \/api\/v2\/servers\?(.*&)?search=/.test(line);
const isIdCheck = (e: RequestLogEntry) => e.method === 'GET' && /^\/servers\/[^/]+$/.test(e.path);
const isIdCheckLine = (line: string) => /^GET \/api\/v2\/servers\/[^/?]+$/.test(line);
/** What a dry run sent besides the lookups. */
function beyondLookups<T>(sent: T[], lookup: (x: T) => boolean, check: (x: T) => boolean): T[] {
  // The id's check comes first for a reference shaped like an id, else right after the search.
  return sent.filter((x, i) => !lookup(x) && !(check(x) && (i === 0 || lookup(sent[i - 1] as T))));
}

/** Everything in the config dir, to see that a dry run leaves the auth store as it was. */
function snapshot(d: string): string {
  return readdirSync(d).sort().map((f) => `${f}\n${readFileSync(join(d, f), 'utf8')}`).join('\n---\n');
}

/** Values for required arguments of leaves the walk does not plan (no API operation of their own). */
function argvOf(e: RefEntry): string[] {
  const words = e.command.split(' ');
  const options: string[] = [];
  for (const o of e.options.filter((x) => x.required)) options.push(`--${long(o.flags)}`, long(o.flags) === 'email' ? 'demo@example.com' : flagValue(o, fx));
  const args: string[] = [];
  let passThrough: string[] = [];
  for (const a of e.arguments) {
    // `completion` needs its shell unless --dir is given (a usage error otherwise, rightly).
    if (!a.required && a.name !== 'shell') continue;
    if (a.name === 'cmd') passThrough = ['--', process.execPath, '-e', 'process.exit(3)'];
    else args.push({ path: '/servers', profile: 'walk', server_id: fx.server, shell: 'bash' }[a.name] ?? 'x1');
  }
  // `hooks verify` needs a signature and a secret, each from one of two flags, so neither is required.
  if (e.command === 'hooks verify') options.push('--signature', `sha256=${'0'.repeat(64)}`, '--secret-file', join(dir, 'hook.secret'));
  return [...words, ...args, ...options, ...passThrough];
}

beforeAll(async () => {
  t = await setup({ servers: 5, clock: 'fast' });
  dir = mkdtempSync(join(tmpdir(), 'gsh-dry-run-'));
  writeFileSync(join(dir, 'hook.secret'), 'whsec_dry_run\n');
  const ops = await registryOps();
  fx = await makeFixtures(t.sandbox, ops, dir);
  ref = await reference(t.env());
  ({ steps } = planOf(ref, ops, fx));
  front = await recordingFront(t.sandbox.origin);
  // A saved profile, so the auth leaves (switch, token, logout) have one to name.
  const login = await t.gsh(['auth', 'login', '--profile', 'walk', '--base-url', front.baseUrl], { input: `${t.sandbox.keys.all}\n`, env: { GSH_API_KEY: undefined } });
  expect(login.exitCode, login.stderr).toBe(0);
}, 60_000);

afterAll(async () => {
  await front?.close();
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('--dry-run sends nothing (every leaf of gsh reference --json)', () => {
  it('exits 0, sends nothing but server-name lookups, leaves the auth store as it was, and names the planned request', async () => {
    const failures: string[] = [];
    const byCommand = new Map(steps.map((s) => [s.command, s]));
    const store = snapshot(t.configDir);
    let planned = 0;
    for (const e of ref) {
      const step = byCommand.get(e.command);
      // Global flags first: `sandbox exec` passes everything after CMD through.
      const argv = ['--dry-run', '--yes', ...(step ? step.argv.filter((a) => a !== '--json' && a !== '--yes') : argvOf(e))];
      const logBefore = t.sandbox.log.length;
      const frontBefore = front.seen.length;
      const r = await t.gsh(argv, { env: { GSH_BASE_URL: front.baseUrl }, input: `${t.sandbox.keys.all}\n`, timeout: 10_000 });
      const where = `gsh ${argv.join(' ')}`;
      // gsh config finds the servers its files manage with one listing, its lookup; config apply
      // --dry-run also reads them to print the exact writes it would make (README "Configuration
      // as code"), as terraform plan does: reads only.
      const declared = e.command.startsWith('config ');
      // config adopt reads them too, to print the file writes it would make.
      const allowed = (method: string, path: string) => declared && method === 'GET' && (e.command === 'config apply' || e.command === 'config adopt' || /^(\/api\/v2)?\/servers(\?|$)/.test(path));
      const sent = beyondLookups(t.sandbox.log.slice(logBefore), isLookup, isIdCheck).filter((x) => !allowed(x.method, x.path)).map((x) => `${x.method} ${x.path}`);
      const reached = beyondLookups(front.seen.slice(frontBefore), isLookupLine, isIdCheckLine).filter((l) => !allowed(l.split(' ')[0] ?? '', l.split(' ')[1] ?? ''));
      if (r.timedOut) failures.push(`${where}: still running after 10 s`);
      // config apply --dry-run exits as diff does: 14, its fixture's change pending (README "Configuration as code").
      const exit = e.command === 'config apply' ? 14 : 0;
      if (r.exitCode !== exit) failures.push(`${where}: exit ${r.exitCode}: ${r.stderr.slice(0, 200)}`);
      if (sent.length || reached.length) failures.push(`${where}: sent ${[...new Set([...sent, ...reached])].join(', ')}`);
      // config adopt plans file writes and no request: its plan says so (its reads were sent).
      if (step && e.command === 'config adopt' && !/^No requests would be sent\.$/m.test(r.stdout)) failures.push(`${where}: stdout does not say no request would be sent: ${r.stdout.slice(0, 200)}`);
      else if (step && e.command !== 'config adopt') {
        planned += 1;
        const line = `${step.method} ${front.baseUrl}${step.path}`;
        if (!r.stdout.split('\n').some((l) => l === line || l.startsWith(`${line}?`))) failures.push(`${where}: stdout does not name ${line}: ${r.stdout.slice(0, 200)}`);
      }
    }
    expect(planned).toBeGreaterThan(300);
    expect(failures).toEqual([]);
    expect(snapshot(t.configDir)).toBe(store);
  }, 60_000);

  it('-o json prints {requests: [{method, url, headers, body}], then}, the bearer redacted, an Idempotency-Key on the mutation', async () => {
    const s = [...t.sandbox.state.servers.values()].find((x) => x.id === fx.server)!;
    // The name is looked up; nothing else is sent.
    const lookup = expectRequests(t.sandbox, [{ method: 'GET', path: '/servers', times: 1 }], { only: 'all' });
    const r = await t.gsh(['power', 'restart', '-s', s.name, '--wait', '--dry-run', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const plan = JSON.parse(r.stdout) as { requests: Array<{ method: string; url: string; headers: Record<string, string>; body?: unknown }>; then: Array<{ kind: string }> };
    expect(Object.keys(plan).sort()).toEqual(['requests', 'servers', 'then']);
    expect((plan as unknown as { servers: unknown }).servers).toEqual([{ ref: s.name, is: 'name', servers: [{ id: s.id, name: s.name }] }]);
    expect(plan.requests).toEqual([{
      method: 'POST',
      url: `${t.sandbox.baseUrl}/servers/${s.id}/power`,
      headers: expect.objectContaining({ authorization: 'Bearer [redacted]', 'idempotency-key': expect.stringMatching(/^[0-9a-f-]{36}$/) }),
      body: { signal: 'restart' },
    }]);
    expect(plan.then.map((x) => x.kind)).toContain('wait');
    expect(r.stdout).not.toContain(t.sandbox.keys.all);
    lookup.verify();

    // Nor by the dry runs by id below: their lookups only (the id's check: an id-shaped reference
    // is checked first, and found, so no search).
    expectRequests(t.sandbox, [{ method: 'GET', path: `/servers/${s.id}` }], { only: 'all' });
    const keyed = JSON.parse((await t.gsh(['servers', 'delete', '-s', s.id, '--idempotency-key', 'dry-key-1', '--dry-run', '-o', 'json'])).stdout);
    expect(keyed.requests[0]).toMatchObject({ method: 'DELETE', headers: { 'idempotency-key': 'dry-key-1' } });
    const read = JSON.parse((await t.gsh(['servers', 'get', '-s', s.id, '--dry-run', '-o', 'json'])).stdout);
    expect(read.requests[0].method).toBe('GET');
    expect(read.requests[0].headers).not.toHaveProperty('idempotency-key');
    expect(t.sandbox.state.servers.has(s.id)).toBe(true);
  });
});

describe('a usage error never follows a request (issue 11: "nothing is sent until everything typed is checked")', () => {
  it('every mutation leaf that takes --wait: --wait --timeout abc exits 2 and the sandbox log stays empty', async () => {
    const takesWait = new Set(ref.filter((e) => e.options.some((o) => long(o.flags) === 'wait')).map((e) => e.command));
    const mutations = steps.filter((s) => s.method !== 'GET' && takesWait.has(s.command));
    expect(mutations.length).toBeGreaterThan(10);
    const failures: string[] = [];
    for (const s of mutations) {
      const argv = [...s.argv, '--wait', '--timeout', 'abc'];
      const before = t.sandbox.log.length;
      const r = await t.gsh(argv, { input: `${t.sandbox.keys.all}\n` });
      const where = `gsh ${argv.join(' ')}`;
      if (r.exitCode !== 2) failures.push(`${where}: exit ${r.exitCode}`);
      if (!r.stderr.includes('--timeout')) failures.push(`${where}: stderr does not name --timeout: ${r.stderr.slice(0, 200)}`);
      const sent = t.sandbox.log.slice(before).map((x) => `${x.method} ${x.path}`);
      if (sent.length) failures.push(`${where}: sent ${sent.join(', ')}`);
    }
    expect(failures).toEqual([]);
  });
});

// Concurrent: the two time bounds are measured on the real clock against servers of their own.
describe.concurrent('--request-timeout (README "Retries and idempotency"; issue 11)', () => {
  /** A TCP server that accepts connections and never answers. */
  let silent: TcpServer;
  const sockets = new Set<Socket>();
  beforeAll(async () => {
    silent = createTcpServer((s) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  it('a server that accepts and never answers: --request-timeout 2s --retries 1 exits 9 within 8 s', async () => {
    const { port } = silent.address() as AddressInfo;
    const started = performance.now();
    const r = await t.gsh(['me', '--request-timeout', '2s', '--retries', '1'], { env: { GSH_BASE_URL: `http://127.0.0.1:${port}/api/v2` }, clock: realClock });
    const elapsed = performance.now() - started;
    expect(r.exitCode, r.stderr).toBe(9);
    // Two attempts of 2 s each, and a backoff between them.
    expect(elapsed).toBeGreaterThanOrEqual(4000);
    expect(elapsed).toBeLessThan(8000);
  }, 20_000);

  it('a refused port exits 9 within 5 s (default retries)', async () => {
    const closed = createTcpServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    // The pauses are asked of the injected clock (jitter is random here: ±25 % of 0.2, 0.4, 0.8, 1.6 s).
    const sleeps: number[] = [];
    const r = await t.gsh(['me'], { env: { GSH_BASE_URL: `http://127.0.0.1:${port}/api/v2` }, clock: { now: () => Date.now(), sleep: async (ms) => void sleeps.push(ms) } });
    expect(r.exitCode, r.stderr).toBe(9);
    expect(r.stderr).toContain('could not reach');
    expect(sleeps).toHaveLength(4);
    [200, 400, 800, 1600].forEach((base, i) => {
      expect(sleeps[i], `retry ${i + 1}`).toBeGreaterThanOrEqual(base * 0.75);
      expect(sleeps[i], `retry ${i + 1}`).toBeLessThanOrEqual(base * 1.25);
    });
    expect(sleeps.reduce((a, b) => a + b, 0)).toBeLessThan(5000);
  });

  it('a bad --request-timeout (or GSH_REQUEST_TIMEOUT) exits 2 with nothing sent', async () => {
    const nothing = expectRequests(t.sandbox, [], { only: 'all' });
    const flag = await t.gsh(['servers', 'list', '--request-timeout', 'abc']);
    expect(flag.exitCode).toBe(2);
    expect(flag.stderr).toContain('--request-timeout');
    const env = await t.gsh(['power', 'start', '-s', fx.server], { env: { GSH_REQUEST_TIMEOUT: 'abc' } });
    expect(env.exitCode).toBe(2);
    expect(env.stderr).toContain('GSH_REQUEST_TIMEOUT');
    expect((await t.gsh(['servers', 'list', '--request-timeout', '0s'])).exitCode).toBe(2);
    nothing.verify();
  });
});

describe('--profile beats GSH_API_KEY (ARCHITECTURE.md "Auth store": an explicit --profile > GSH_TOKEN/GSH_API_KEY)', () => {
  it('a profile saved with a valid key wins over a bad GSH_API_KEY, and auth status says so', async () => {
    const login = await t.gsh(['auth', 'login', '--profile', 'ci', '--base-url', t.sandbox.baseUrl], { input: `${t.sandbox.keys.all}\n`, env: { GSH_API_KEY: undefined } });
    expect(login.exitCode, login.stderr).toBe(0);
    const bad = { GSH_API_KEY: 'gsh_live_not_a_key' };
    // The environment's key is really refused without the flag.
    expect((await t.gsh(['me'], { env: bad })).exitCode).toBe(3);
    const me = await t.gsh(['--profile', 'ci', 'me', '--json'], { env: bad });
    expect(me.exitCode, me.stderr).toBe(0);
    expect(JSON.parse(me.stdout).key.scopes).toEqual(['*']);
    const status = await t.gsh(['--profile', 'ci', 'auth', 'status', '-o', 'json'], { env: bad });
    expect(status.exitCode, status.stderr).toBe(0);
    const st = JSON.parse(status.stdout) as { profile: string; source: string; chosen_by: string };
    expect(st.profile).toBe('ci');
    expect(st.source).toContain('profile "ci"');
    expect(st.chosen_by).toMatch(/--profile.*beats GSH_API_KEY/);
    expect(status.stdout).not.toContain(t.sandbox.keys.all);
  });
});
