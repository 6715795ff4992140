import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deadProxy, startProxy, type TestProxy } from '../helpers/test-proxy.js';
import { type E2E, setup } from './helpers.js';

// One door to the wire (issue 45; README "Retries and idempotency" and "Authentication and
// configuration"): whole commands through a loopback proxy that behaves as real ones do. A
// mutation keeps its Idempotency-Key across every attempt (01-general-contract.md
// "Idempotency"), so a request whose kept-alive connection was closed under it is sent again at
// once; a 2xx whose answer is cut or malformed was applied, and its ending says how to replay it.

let t: E2E;
const dirs: string[] = [];
const proxies: TestProxy[] = [];
beforeAll(async () => {
  t = await setup({ servers: 3, clock: 'fast' });
});
afterAll(async () => {
  await Promise.all(proxies.map((p) => p.close()));
  await t.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function freshDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'gsh-wire-'));
  dirs.push(d);
  return d;
}

async function proxy(opts: Parameters<typeof startProxy>[0]): Promise<TestProxy> {
  const p = await startProxy(opts);
  proxies.push(p);
  return p;
}

const server = () => [...t.sandbox.state.servers.values()][0]!;
/** Node's and undici's words, which only --debug may show. */
const FOREIGN = /socket hang up|UND_ERR|Proxy response \(|ECONNRESET|other side closed/;
const REPLAY = /^\s+(gsh .* --idempotency-key (\S+))$/m;

describe('through a proxy that closes idle connections as they are reused', () => {
  it('30 mutations with --retries 0 all exit 0, each applied exactly once', async () => {
    const p = await proxy({ closeOnReuse: true });
    const s = server();
    const mark = t.sandbox.effects.length;
    for (let i = 0; i < 30; i++) {
      // A config dir of its own: the lookup goes first, and the mutation reuses its connection.
      const r = await t.gsh(['settings', 'update', '-s', s.name, '--description', `wire ${i}`, '--retries', '0'], { env: { HTTP_PROXY: p.url, GSH_CONFIG_DIR: freshDir() } });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(FOREIGN);
    }
    const effects = t.sandbox.effects.slice(mark);
    expect(effects).toHaveLength(30);
    expect(new Set(effects.map((e) => e.idempotencyKey)).size).toBe(30);
    expect(p.seen.filter((l) => l === 'closed on reuse').length).toBeGreaterThanOrEqual(30);
  });
});

describe('proxies as curl uses them', () => {
  it('HTTP_PROXY at a proxy that refuses CONNECT, an http:// base URL: servers list exits 0 (an absolute-URI request)', async () => {
    const p = await proxy({ refuseConnect: true });
    const r = await t.gsh(['servers', 'list'], { env: { HTTP_PROXY: p.url } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(p.seen.some((l) => l.startsWith('CONNECT'))).toBe(false);
    expect(p.seen.some((l) => l.startsWith(`GET ${t.sandbox.baseUrl}/servers`))).toBe(true);
  });

  it('a dead proxy: exit 9, naming the proxy and where it came from, not the base URL', async () => {
    const dead = await deadProxy();
    const r = await t.gsh(['servers', 'list', '--retries', '1'], { env: { HTTP_PROXY: dead } });
    expect(r.exitCode).toBe(9);
    expect(r.stderr).toContain(`could not reach the proxy ${dead} (from HTTP_PROXY)`);
    expect(r.stderr).not.toMatch(/Check the base URL/);
    expect(r.stderr).not.toMatch(FOREIGN);
  });

  it('HTTP_PROXY answers 407 (wants a user and password): exit 9 naming the proxy and its variable, not `HTTP 407`; nothing forwarded, the password never printed', async () => {
    const p = await proxy({ auth: { user: 'ops', password: 'right-pw' } });
    const s = server();
    const mark = t.sandbox.log.length;
    const none = await t.gsh(['servers', 'list', '--json'], { env: { HTTP_PROXY: p.url } });
    expect(none.exitCode).toBe(9);
    expect(none.stderr).toContain(`the proxy ${p.url} (from HTTP_PROXY) refused to forward the request to ${new URL(t.sandbox.baseUrl).host}: it requires a user and password (HTTP 407)`);
    expect(none.stderr).toContain(`HTTP_PROXY=http://USER:PASSWORD@${p.url.slice('http://'.length)}`);
    expect(JSON.parse(none.stdout || '{}')).toEqual({});
    expect(JSON.parse(none.stderr.slice(none.stderr.indexOf('{')))).toMatchObject({ error: { code: 'proxy_refused' } });
    const wrong = await t.gsh(['settings', 'update', '-s', s.id, '--description', 'behind 407', '--debug'], { env: { HTTP_PROXY: p.url.replace('http://', 'http://ops:wr0ng-pw@'), GSH_CONFIG_DIR: freshDir() } });
    expect(wrong.exitCode).toBe(9);
    expect(wrong.stderr).toContain(`it did not accept the user and password in HTTP_PROXY (HTTP 407)`);
    expect(wrong.stderr).not.toMatch(/wr0ng-pw|ops:|HTTP 407:/);
    // Refused by the proxy: the service saw nothing, and gsh did not ask again.
    expect(t.sandbox.log.length).toBe(mark);
    expect(p.seen.filter((l) => l === '407')).toHaveLength(2);
    const right = await t.gsh(['servers', 'list'], { env: { HTTP_PROXY: p.url.replace('http://', 'http://ops:right-pw@') } });
    expect(right.exitCode, right.stderr).toBe(0);
  });

  it('--debug names the proxy each request goes through', async () => {
    const p = await proxy({});
    const r = await t.gsh(['servers', 'list', '--debug'], { env: { HTTP_PROXY: p.url } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`> through the proxy ${p.url} (from HTTP_PROXY)`);
  });
});

describe('a mutation answered 2xx whose answer does not arrive whole', () => {
  it.each([['cut', 9], ['malformed', 1]] as const)('%s: applied, its key, and the replay line, which acts no more', async (how, exit) => {
    const cutting = await proxy({ mutationAnswer: how });
    const s = server();
    const dir = freshDir();
    const mark = t.sandbox.effects.length;
    const r = await t.gsh(['settings', 'update', '-s', s.id, '--description', `cut ${how}`], { env: { HTTP_PROXY: cutting.url, GSH_CONFIG_DIR: dir } });
    expect(r.exitCode, r.stderr).toBe(exit);
    const replay = REPLAY.exec(r.stderr);
    expect(replay, r.stderr).not.toBeNull();
    expect(r.stderr).toContain(`The change was applied (Idempotency-Key ${replay![2]})`);
    expect(replay![1]).toBe(`gsh settings update -s ${s.id} --description 'cut ${how}' --idempotency-key ${replay![2]}`);
    // The service answered: "could not reach" would send the user to the base URL.
    expect(r.stderr).not.toMatch(/could not reach|Check the base URL/);
    expect(r.stderr).not.toMatch(FOREIGN);
    expect(t.sandbox.effects.slice(mark)).toHaveLength(1);

    const again = await t.gsh(['settings', 'update', '-s', s.id, '--description', `cut ${how}`, '--idempotency-key', replay![2]!], { env: { GSH_CONFIG_DIR: dir } });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(t.sandbox.effects.slice(mark)).toHaveLength(1);
  });
});
