import { statSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realClock } from '../../src/core/run/context.js';
import { type E2E, setup } from './helpers.js';

// Issue 2 end to end: gsh, run in-process (run(argv, ctx)), against a real sandbox on a loopback
// port. Polls and retry backoff run on a fast clock (helpers.ts setup clock 'fast').

let t: E2E;
beforeAll(async () => {
  t = await setup({ servers: 5, clock: 'fast' });
});
afterAll(async () => {
  await t.close();
});

const serverByName = (name: string) => [...t.sandbox.state.servers.values()].find((s) => s.name === name);
const firstServer = () => [...t.sandbox.state.servers.values()].sort((a, b) => a.name.localeCompare(b.name))[0]!;

describe('read commands', () => {
  it('health needs no credential', async () => {
    const r = await t.gsh(['health', '--json'], { env: { GSH_API_KEY: undefined } });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(String(r.stdout))).toMatchObject({ status: 'ok' });
  });

  it('me shows the account and key metadata (02-endpoints-part-a.md "System": GET /me)', async () => {
    const r = await t.gsh(['me', '--json']);
    expect(r.exitCode).toBe(0);
    const me = JSON.parse(String(r.stdout));
    expect(me.account).toMatchObject({ object: 'account' });
    expect(me.key.scopes).toEqual(['*']);
  });

  it('applications list filters by --kind and --free-tier', async () => {
    const r = await t.gsh(['applications', 'list', '--kind', 'game', '--free-tier', '--json']);
    expect(r.exitCode).toBe(0);
    const apps = JSON.parse(String(r.stdout)) as { kind: string; free_tier: boolean }[];
    expect(apps.length).toBeGreaterThan(0);
    expect(apps.every((a) => a.kind === 'game' && a.free_tier === true)).toBe(true);
    const last = t.sandbox.log.at(-1)!;
    expect(last.query).toEqual({ kind: 'game', free_tier: 'true' });
  });

  it('servers list pipes as tab-separated rows with no header and no colour', async () => {
    const r = await t.gsh(['servers', 'list'], { env: { FORCE_COLOR: undefined } });
    expect(r.exitCode).toBe(0);
    const lines = String(r.stdout).trim().split('\n');
    expect(lines).toHaveLength(5);
    for (const line of lines) expect(line.split('\t').length).toBeGreaterThanOrEqual(3);
    expect(String(r.stdout)).not.toMatch(/\x1b\[/);
    expect(lines[0]!.split('\t')[1]).toBe(firstServer().name);
  });

  it('servers list --search and --include-status reach the query', async () => {
    const name = firstServer().name;
    const r = await t.gsh(['servers', 'list', '--search', name.slice(0, 3).toUpperCase(), '--include-status', '--json']);
    expect(r.exitCode).toBe(0);
    const items = JSON.parse(String(r.stdout)) as { name: string; status?: { state: string } }[];
    expect(items.some((s) => s.name === name)).toBe(true);
    expect(items[0]?.status?.state).toBeDefined();
    expect(t.sandbox.log.at(-1)?.query).toMatchObject({ include: 'status' });
  });

  it('--limit echoes the clamped value the server applied', async () => {
    const r = await t.gsh(['servers', 'list', '--limit', '500', '--json']);
    expect(r.exitCode).toBe(0);
    expect(String(r.stderr)).toContain('the server applied limit=100 (asked for 500)');
  });

  it('-s takes a name or an id; get, status and status-issues work', async () => {
    const s = firstServer();
    for (const ref of [s.name, s.id]) {
      const r = await t.gsh(['servers', 'get', '-s', ref, '--json']);
      expect(r.exitCode).toBe(0);
      expect(JSON.parse(String(r.stdout)).id).toBe(s.id);
    }
    expect((await t.gsh(['servers', 'status', '-s', s.name, '-o', 'yaml'])).stdout).toMatch(/^object: server_status/m);
    expect((await t.gsh(['servers', 'status-issues', '-s', s.id, '--json'])).exitCode).toBe(0);
  });

  it('GSH_SERVER is the default server', async () => {
    const s = firstServer();
    const r = await t.gsh(['servers', 'get', '--json'], { env: { GSH_SERVER: s.id } });
    expect(JSON.parse(String(r.stdout)).id).toBe(s.id);
  });
});

describe('mutations', () => {
  it('servers create --wait follows the creation job to ready', async () => {
    const r = await t.gsh(['servers', 'create', '-f', 'name=e2e-created', '-f', 'application=minecraft', '--wait', '--json']);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(String(r.stdout))).toMatchObject({ state: 'ready' });
    expect(serverByName('e2e-created')).toBeDefined();
  });

  it('servers create without --wait prints the job; create-job --wait follows it', async () => {
    const r = await t.gsh(['servers', 'create', '-f', 'name=e2e-later', '-F', 'application=minecraft', '--json']);
    expect(r.exitCode).toBe(0);
    const job = JSON.parse(String(r.stdout));
    expect(job.job_id).toBeTruthy();
    const w = await t.gsh(['servers', 'create-job', job.job_id, '--wait', '--json']);
    expect(w.exitCode).toBe(0);
    expect(JSON.parse(String(w.stdout)).state).toBe('ready');
  });

  it('a failed creation job exits 1', async () => {
    const r = await t.gsh(['servers', 'create', '-f', 'name=e2e-fail', '-f', 'application=minecraft', '-F', 'fail=true', '--wait']);
    expect(r.exitCode).toBe(1);
    expect(String(r.stderr)).toMatch(/failed/);
  });

  it('a creation without a name shows the field errors (422, exit 1)', async () => {
    const r = await t.gsh(['servers', 'create', '-f', 'application=minecraft']);
    expect(r.exitCode).toBe(1);
    expect(String(r.stderr)).toMatch(/validation_failed, HTTP 422, request_id req_/);
    expect(String(r.stderr)).toMatch(/^\s+name: /m);
  });

  it('power start|stop --wait reaches running and offline, sending signal', async () => {
    const s = firstServer();
    expect((await t.gsh(['power', 'kill', '-s', s.name, '--wait'])).exitCode).toBe(0);
    const start = await t.gsh(['power', 'start', '-s', s.name, '--wait', '--json']);
    expect(start.exitCode).toBe(0);
    expect(JSON.parse(String(start.stdout)).state).toBe('running');
    const restart = await t.gsh(['power', 'restart', '-s', s.name, '--wait', '--json']);
    expect(JSON.parse(String(restart.stdout)).state).toBe('running');
    const stop = await t.gsh(['power', 'stop', '-s', s.name, '--wait', '--json']);
    expect(JSON.parse(String(stop.stdout)).state).toBe('offline');
    const bodies = t.sandbox.log.filter((e) => e.route === '/servers/{server_id}/power').map((e) => e.body);
    expect(bodies.slice(-3)).toEqual([{ signal: 'start' }, { signal: 'restart' }, { signal: 'stop' }]);
  });

  it('servers reinstall --wipe needs --yes when not interactive; --yes --wait sends wipe and settles', async () => {
    const s = firstServer();
    const refused = await t.gsh(['servers', 'reinstall', '-s', s.id, '--wipe']);
    expect(refused.exitCode).toBe(2);
    expect(String(refused.stderr)).toContain('--yes');
    const before = t.sandbox.state.reinstalls.length;
    const r = await t.gsh(['servers', 'reinstall', '-s', s.id, '--wipe', '--yes', '--wait']);
    expect(r.exitCode).toBe(0);
    expect(t.sandbox.state.reinstalls.slice(before)).toEqual([expect.objectContaining({ serverId: s.id, wipe: true })]);
  });

  it('servers delete needs --yes when not interactive, then deletes', async () => {
    const s = serverByName('e2e-created')!;
    expect((await t.gsh(['servers', 'delete', '-s', s.id])).exitCode).toBe(2);
    expect(t.sandbox.state.servers.has(s.id)).toBe(true);
    expect((await t.gsh(['servers', 'delete', '-s', s.id, '--yes'])).exitCode).toBe(0);
    expect(t.sandbox.state.servers.has(s.id)).toBe(false);
  });
});

describe('exit codes (ARCHITECTURE.md "Exit codes")', () => {
  it('2 for usage errors, before any request', async () => {
    const before = t.sandbox.log.length;
    for (const args of [['servers', 'lst'], ['servers', 'get'], ['servers', 'list', '--limit', 'x'], ['power', 'start', '-s', 'a', '--idempotency-key', 'x'.repeat(201)]]) {
      const r = await t.gsh(args);
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(String(r.stderr)).not.toMatch(/\n\s+at /);
    }
    expect(t.sandbox.log.length).toBe(before);
    const typo = await t.gsh(['servers', 'lst']);
    expect(String(typo.stderr)).toBe("error: unknown command 'lst'\n(Did you mean one of list, ls?)");
  });

  it('help: plain gsh, --help and gsh help FAMILY print to stdout and exit 0; a family without a verb is a usage error', async () => {
    for (const args of [[], ['--help'], ['help'], ['help', 'servers'], ['servers', 'list', '--help']]) {
      const r = await t.gsh(args);
      expect(r.exitCode, args.join(' ')).toBe(0);
      expect(String(r.stdout), args.join(' ')).toMatch(/^Usage: gsh/);
      expect(String(r.stderr)).toBe('');
    }
    const bare = await t.gsh(['servers']);
    expect(bare.exitCode).toBe(2);
    expect(String(bare.stderr)).toMatch(/^Usage: gsh servers/);
  });

  it('2 when no base URL is configured, saying how to set one', async () => {
    const r = await t.gsh(['servers', 'list'], { env: { GSH_BASE_URL: undefined } });
    expect(r.exitCode).toBe(2);
    expect(String(r.stderr)).toContain('GSH_BASE_URL');
  });

  it('3 for a missing or invalid credential', async () => {
    const missing = await t.gsh(['servers', 'list'], { env: { GSH_API_KEY: undefined } });
    expect(missing.exitCode).toBe(3);
    expect(String(missing.stderr)).toContain('gsh auth login');
    const invalid = await t.gsh(['servers', 'list'], { env: { GSH_API_KEY: 'gsh_live_nope' } });
    expect(invalid.exitCode).toBe(3);
    expect(String(invalid.stderr)).toMatch(/unauthorized, HTTP 401/);
  });

  it('4 for a missing scope (read-only key cannot power)', async () => {
    const r = await t.gsh(['power', 'start', '-s', firstServer().id], { env: { GSH_API_KEY: t.sandbox.keys.readOnly } });
    expect(r.exitCode).toBe(4);
    expect(String(r.stderr)).toMatch(/forbidden, HTTP 403/);
  });

  it('5 for not found', async () => {
    expect((await t.gsh(['servers', 'get', '-s', 'ffffffff'])).exitCode).toBe(5);
  });

  it('6 for a conflict: one Idempotency-Key reused with a different body', async () => {
    const s = firstServer();
    const a = await t.gsh(['power', 'start', '-s', s.id, '--idempotency-key', 'e2e-conflict']);
    expect(a.exitCode).toBe(0);
    const b = await t.gsh(['power', 'stop', '-s', s.id, '--idempotency-key', 'e2e-conflict']);
    expect(b.exitCode).toBe(6);
    expect(String(b.stderr)).toContain('idempotency_conflict');
  });

  it('8 when still rate limited after retries', async () => {
    const key = t.sandbox.createKey(['*'], { rateLimit: 1 });
    expect((await t.gsh(['health'], { env: { GSH_API_KEY: key } })).exitCode).toBe(0);
    await t.gsh(['me'], { env: { GSH_API_KEY: key } });
    const r = await t.gsh(['me', '--retries', '0'], { env: { GSH_API_KEY: key } });
    expect(r.exitCode).toBe(8);
    expect(String(r.stderr)).toContain('rate_limit_exceeded');
  });

  it('9 when the service keeps failing, and when nothing listens', async () => {
    // --retries 1 makes exactly two attempts: inject two failures and leave none behind.
    t.sandbox.inject({ kind: 503, path: '/me', count: 2 });
    const r = await t.gsh(['me', '--retries', '1']);
    expect(r.exitCode).toBe(9);
    const closed = await t.gsh(['me', '--retries', '0'], { env: { GSH_BASE_URL: 'http://127.0.0.1:9/api/v2' } });
    expect(closed.exitCode).toBe(9);
    expect(String(closed.stderr)).toContain('could not reach');
  });

  it('errors are a JSON object on stderr under --json', async () => {
    const r = await t.gsh(['servers', 'get', '-s', 'ffffffff', '--json']);
    expect(r.exitCode).toBe(5);
    const err = JSON.parse(String(r.stderr)).error;
    expect(err).toMatchObject({ code: 'not_found', status: 404, exit_code: 5 });
    expect(err.request_id).toMatch(/^req_/);
    expect(String(r.stdout)).toBe('');
  });
});

describe('retries are exactly once (01-general-contract.md "Errors" retry rules, "Limits" idempotency)', () => {
  it('a power action whose response is lost is applied once and reported', async () => {
    const s = firstServer();
    await t.gsh(['power', 'kill', '-s', s.id, '--wait']);
    const before = t.sandbox.state.powerActions.length;
    t.sandbox.inject({ kind: 'lost', method: 'POST', path: '/servers/{server_id}/power' });
    const r = await t.gsh(['power', 'start', '-s', s.id, '--json']);
    expect(r.exitCode).toBe(0);
    expect(t.sandbox.state.powerActions.length - before).toBe(1);
    const tries = t.sandbox.log.filter((e) => e.route === '/servers/{server_id}/power').slice(-2);
    expect(tries.map((e) => e.fault ?? (e.replayed ? 'replayed' : 'fresh'))).toEqual(['lost', 'replayed']);
    expect(tries[0]!.idempotencyKey).toBe(tries[1]!.idempotencyKey);
  });

  it('a creation behind a 502 and then a lost response creates one server', async () => {
    t.sandbox.inject({ kind: 502, method: 'POST', path: '/servers' });
    t.sandbox.inject({ kind: 'lost', method: 'POST', path: '/servers' });
    const jobs = t.sandbox.state.createJobs.size;
    const r = await t.gsh(['servers', 'create', '-f', 'name=e2e-once', '-f', 'application=minecraft', '--wait']);
    expect(r.exitCode).toBe(0);
    expect(t.sandbox.state.createJobs.size - jobs).toBe(1);
    expect([...t.sandbox.state.servers.values()].filter((s) => s.name === 'e2e-once')).toHaveLength(1);
  });

  it('a 429 is waited out (Retry-After) and the request then succeeds', async () => {
    t.sandbox.inject({ kind: 429, path: '/me', retryAfter: 1 });
    const started = Date.now();
    // The real clock: the wait itself is what is checked.
    const r = await t.gsh(['me', '--json'], { clock: realClock });
    expect(r.exitCode).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  });

  it('--debug traces each attempt with the bearer redacted', async () => {
    t.sandbox.inject({ kind: 503, path: '/me' });
    const r = await t.gsh(['me', '--debug']);
    expect(r.exitCode).toBe(0);
    expect(String(r.stderr)).toMatch(/> GET http:\/\/127\.0\.0\.1:\d+\/api\/v2\/me/);
    expect(String(r.stderr)).toMatch(/retry 1\/4/);
    expect(String(r.stderr)).not.toContain(t.sandbox.keys.all);
  });
});

describe('gsh api', () => {
  it('GET with query, POST inferred from fields, errors with body on stdout', async () => {
    const s = firstServer();
    const get = await t.gsh(['api', `/servers?search=${s.name}`]);
    expect(get.exitCode).toBe(0);
    expect(JSON.parse(String(get.stdout)).data[0].id).toBe(s.id);
    const post = await t.gsh(['api', `/servers/${s.id}/power`, '-f', 'signal=kill', '--include']);
    expect(post.exitCode).toBe(0);
    expect(String(post.stdout)).toMatch(/^HTTP 202\n/);
    expect(t.sandbox.log.at(-1)).toMatchObject({ method: 'POST', body: { signal: 'kill' } });
    const missing = await t.gsh(['api', '/nope']);
    expect(missing.exitCode).toBe(5);
    expect(JSON.parse(String(missing.stdout)).error.code).toBe('not_found');
  });

  it('nested and typed fields, --input, -H, and -X', async () => {
    const r = await t.gsh(['api', '-X', 'PATCH', '/servers/abc/settings', '-F', 'auto_stop=true', '-f', 'motd[line1]=hi', '-F', 'tags[]=1', '-H', 'X-Extra: yes'], {
      input: '',
    });
    expect(r.exitCode).toBeLessThan(6);
    const e = t.sandbox.log.at(-1)!;
    expect(e.method).toBe('PATCH');
    expect(e.body).toEqual({ auto_stop: true, motd: { line1: 'hi' }, tags: [1] });
    const piped = await t.gsh(['api', '/servers', '-X', 'GET', '--paginate']);
    expect(Array.isArray(JSON.parse(String(piped.stdout)))).toBe(true);
  });
});

describe('auth store (ARCHITECTURE.md "Auth store")', () => {
  it('login reads the key from stdin, verifies it, and saves a 0600 profile; status, profiles, switch, logout', async () => {
    const env = { GSH_API_KEY: undefined, GSH_BASE_URL: undefined };
    const bad = await t.gsh(['auth', 'login', '--base-url', t.sandbox.baseUrl], { input: 'gsh_live_wrong\n', env });
    expect(bad.exitCode).toBe(3);
    expect(existsSync(join(t.configDir, 'config.json'))).toBe(false);

    const ok = await t.gsh(['auth', 'login', '--base-url', t.sandbox.baseUrl, '--profile', 'work'], { input: `${t.sandbox.keys.readOnly}\n`, env });
    expect(ok.exitCode).toBe(0);
    const file = join(t.configDir, 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.work.base_url).toBe(t.sandbox.baseUrl);

    const status = await t.gsh(['auth', 'status', '--json'], { env });
    expect(status.exitCode).toBe(0);
    const st = JSON.parse(String(status.stdout));
    expect(st).toMatchObject({ profile: 'work', method: 'api key', source: 'profile "work" (API key)' });
    expect(st.key.scopes).toContain('servers:read');
    expect(String(status.stdout)).not.toContain(t.sandbox.keys.readOnly);

    expect((await t.gsh(['servers', 'list'], { env })).exitCode).toBe(0);
    const envWins = await t.gsh(['auth', 'status', '--json'], { env: { GSH_BASE_URL: undefined } });
    expect(JSON.parse(String(envWins.stdout)).source).toBe('environment (GSH_API_KEY)');

    await t.gsh(['auth', 'login', '--profile', 'other', '--base-url', t.sandbox.baseUrl], { input: t.sandbox.keys.all, env });
    const profiles = await t.gsh(['auth', 'profiles', '--json'], { env });
    expect(JSON.parse(String(profiles.stdout)).map((p: { name: string }) => p.name).sort()).toEqual(['other', 'work']);
    expect(String(profiles.stdout)).not.toContain('gsh_live_');
    expect((await t.gsh(['auth', 'switch', 'other'], { env })).exitCode).toBe(0);
    expect(JSON.parse(String((await t.gsh(['auth', 'status', '--json'], { env })).stdout)).profile).toBe('other');
    expect((await t.gsh(['auth', 'switch', 'nope'], { env })).exitCode).toBe(2);
    expect((await t.gsh(['--profile', 'work', 'auth', 'token'], { env })).stdout).toBe(t.sandbox.keys.readOnly);

    expect((await t.gsh(['auth', 'logout'], { env })).exitCode).toBe(0);
    expect((await t.gsh(['servers', 'list'], { env })).exitCode).toBe(3);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});

describe('--all over 250 servers', () => {
  let big: E2E;
  beforeAll(async () => {
    big = await setup({ servers: 250, clock: 'fast' });
  });
  afterAll(async () => {
    await big.close();
  });

  it('fetches every page in order as one array; jsonl streams one per line', async () => {
    const expected = [...big.sandbox.state.servers.values()].map((s) => s.name).sort();
    const r = await big.gsh(['servers', 'list', '--all', '--json']);
    expect(r.exitCode).toBe(0);
    expect((JSON.parse(String(r.stdout)) as { name: string }[]).map((s) => s.name)).toEqual(expected);
    const pages = big.sandbox.log.filter((e) => e.path === '/servers');
    expect(pages.map((e) => e.query.offset).sort()).toEqual(['0', '100', '200']);

    const l = await big.gsh(['servers', 'list', '--all', '-o', 'jsonl']);
    expect(String(l.stdout).trim().split('\n').map((x) => JSON.parse(x).name)).toEqual(expected);
  });

  it('stays correct under random 5xx and lost responses', async () => {
    big.sandbox.setFaults({ gateway5xx: 0.2, lostResponse: 0.1 });
    try {
      const r = await big.gsh(['servers', 'list', '--all', '--json', '--retries', '8']);
      expect(r.exitCode).toBe(0);
      expect(JSON.parse(String(r.stdout))).toHaveLength(250);
    } finally {
      big.sandbox.setFaults({ gateway5xx: 0, lostResponse: 0 });
    }
  });
});

describe('waiting limits', () => {
  let slow: E2E;
  beforeAll(async () => {
    slow = await setup({ servers: 1, timeScale: 1 });
  });
  afterAll(async () => {
    await slow.close();
  });

  it('10 when --wait runs out of --timeout', async () => {
    const s = [...slow.sandbox.state.servers.values()][0]!;
    expect((await slow.gsh(['power', 'kill', '-s', s.id, '--wait'])).exitCode).toBe(0);
    const r = await slow.gsh(['power', 'start', '-s', s.id, '--wait', '--timeout', '300ms']);
    expect(r.exitCode).toBe(10);
    expect(String(r.stderr)).toMatch(/timed out waiting/);
  });
});
