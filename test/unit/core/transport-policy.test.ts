import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { staticCredential } from '../../../src/core/auth/credentials.js';
import { NetworkError } from '../../../src/core/errors.js';
import { ApiClient, type RequestSpec } from '../../../src/core/wire/http.js';
import { bypassesProxy, checkProxiedPlainHttp, IDLE_KEEPALIVE_MS, proxyFor } from '../../../src/core/wire/transport-policy.js';
import { deadProxy, type ProxyOptions, startProxy, type TestProxy } from '../../helpers/test-proxy.js';

// One transport policy for both request paths (issue 45; core/wire/transport-policy.ts): the same
// table of cases runs on node:http (a plain request) and on undici (a request whose answer goes
// to a sink, as a download does). Proxies are chosen as curl chooses them, a kept-alive
// connection found closed before any byte of its answer is sent again at once (no pause, no
// retry spent), and every failure is said in gsh's words, never Node's or undici's.

const servers: Server[] = [];
const proxies: TestProxy[] = [];
const clients: ApiClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(proxies.splice(0).map((p) => p.close()));
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => { s.closeAllConnections(); s.close(r); })));
});

interface Origin {
  base: string;
  /** Requests answered, and connections closed under a request instead. */
  answered: number;
  closed: number;
}

/** The service: answers `{data: …}`; `closeOnReuse` closes a kept-alive connection as it is reused; `reset` closes every one under its request. */
async function origin(opts: { closeOnReuse?: boolean; reset?: boolean; cut?: boolean } = {}): Promise<Origin> {
  const o: Origin = { base: '', answered: 0, closed: 0 };
  const served = new WeakMap<Socket, number>();
  const srv = createServer((req: IncomingMessage, res: ServerResponse) => {
    const n = served.get(req.socket) ?? 0;
    served.set(req.socket, n + 1);
    if (opts.reset || (opts.closeOnReuse && n > 0)) {
      o.closed++;
      req.socket.destroy();
      return;
    }
    req.resume();
    req.on('end', () => {
      o.answered++;
      const body = JSON.stringify({ data: { method: req.method, n: o.answered } });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      if (opts.cut) {
        res.write(body.slice(0, 5));
        setImmediate(() => req.socket.destroy());
      } else {
        res.end(body);
      }
    });
  });
  servers.push(srv);
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  o.base = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/api/v2`;
  return o;
}

async function proxy(opts: ProxyOptions = {}): Promise<TestProxy> {
  const p = await startProxy(opts);
  proxies.push(p);
  return p;
}

type Path = 'node:http' | 'undici';

function client(base: string, env: NodeJS.ProcessEnv, extra: { sleeps?: number[]; trace?: string[]; dispatcher?: Agent } = {}): ApiClient {
  const c = new ApiClient({
    baseUrl: base, credential: staticCredential('k', 'test'), env, retries: 0,
    ...(extra.dispatcher ? { dispatcher: extra.dispatcher } : {}),
    sleep: async (ms) => void extra.sleeps?.push(ms),
    ...(extra.trace ? { trace: (l: string) => void extra.trace!.push(l) } : {}),
  });
  clients.push(c);
  return c;
}

/** One request on the given path: node:http for a plain one, undici for one whose answer goes to a sink. */
async function send(c: ApiClient, path: Path, spec: RequestSpec): Promise<unknown> {
  if (path === 'node:http') return (await c.request(spec)).body;
  let text = '';
  await c.request({ ...spec, sink: async (body) => { for await (const chunk of body) text += String(chunk); } });
  return JSON.parse(text);
}

/**
 * Direct, a download no longer meets a kept-alive connection: it goes on one of its own
 * (core/wire/direct-body.ts). undici still carries uploads and proxied downloads on its pool, so the
 * stale-connection cases hand it the pool the policy builds (undici-transport.ts), to keep undici
 * on the path.
 */
const undiciPool = (path: Path) => (path === 'undici' ? { dispatcher: new Agent({ keepAliveTimeout: IDLE_KEEPALIVE_MS, connections: 16 }) } : {});

const GET: RequestSpec = { method: 'GET', path: '/servers' };
const POST: RequestSpec = { method: 'POST', path: '/servers/3f2a9c1e/power', body: { action: 'start' } };
/** Node's and undici's words, which only --debug may show. */
const FOREIGN = /socket hang up|UND_ERR|Proxy response \(|ECONNRESET|ECONNREFUSED|other side closed|aborted/;

async function failure(p: Promise<unknown>): Promise<NetworkError> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(NetworkError);
  return err as NetworkError;
}

describe.each<Path>(['node:http', 'undici'])('the transport policy on %s', (path) => {
  it('a kept-alive connection closed as it is reused: sent again at once, no pause, no retry spent', async () => {
    const o = await origin({ closeOnReuse: true });
    const sleeps: number[] = [];
    const c = client(o.base, {}, { sleeps, ...undiciPool(path) });
    await send(c, path, GET);
    // Each request after the first reuses a connection, which the service closes: resent on a new one.
    expect(await send(c, path, GET)).toMatchObject({ data: { method: 'GET' } });
    expect(await send(c, path, POST)).toMatchObject({ data: { method: 'POST' } });
    expect(o.answered).toBe(3);
    expect(o.closed).toBeGreaterThanOrEqual(1);
    expect(sleeps).toEqual([]);
  });

  it('through a proxy that closes idle connections as they are reused: the same', async () => {
    const o = await origin();
    const p = await proxy({ closeOnReuse: true });
    const sleeps: number[] = [];
    const c = client(o.base, { HTTP_PROXY: p.url });
    for (let i = 0; i < 3; i++) await send(c, path, i === 1 ? GET : POST);
    expect(o.answered).toBe(3);
    expect(p.seen.filter((l) => l === 'closed on reuse').length).toBeGreaterThan(0);
    expect(sleeps).toEqual([]);
  });

  it('an http:// target through HTTP_PROXY is an absolute-URI request: a proxy that refuses CONNECT passes it', async () => {
    const o = await origin();
    const p = await proxy({ refuseConnect: true });
    const trace: string[] = [];
    expect(await send(client(o.base, { HTTP_PROXY: p.url }, { trace }), path, GET)).toMatchObject({ data: { method: 'GET' } });
    expect(p.seen).toEqual([`GET ${o.base}/servers`]);
    // --debug names the proxy the request goes through and where it came from.
    expect(trace).toContain(`> through the proxy ${p.url} (from HTTP_PROXY)`);
  });

  it('a host NO_PROXY lists goes direct', async () => {
    const o = await origin();
    const p = await proxy();
    await send(client(o.base, { http_proxy: p.url, no_proxy: 'example.com, 127.0.0.1' }), path, GET);
    expect(p.seen).toEqual([]);
    expect(o.answered).toBe(1);
  });

  it('a dead proxy is named with where it came from, never taken for the base URL', async () => {
    const o = await origin();
    const dead = await deadProxy();
    const err = await failure(send(client(o.base, { http_proxy: dead }), path, GET));
    expect(err.message).toBe(`could not reach the proxy ${dead} (from http_proxy): ${dead.slice('http://'.length)} refused the connection (nothing listens there)`);
    expect(err.hint).not.toMatch(/base URL/);
    expect(err.exitCode).toBe(9);
  });

  it('a reset after sending on a new connection: said in gsh\'s words, not "could not reach", not resent', async () => {
    const o = await origin({ reset: true });
    const err = await failure(send(client(o.base, {}), path, POST));
    expect(err.message).toBe(`could not ${path === 'undici' ? 'download from' : 'read the answer of'} ${o.base}: the connection closed after the request was sent, before any answer; the request may have been applied`);
    expect(err.message).not.toMatch(FOREIGN);
    expect(o.closed).toBe(1);
    // The --json error's code: the system's name for it, never undici's.
    expect(err.causeCode).toBe('ECONNRESET');
  });

  it('a 2xx whose body is cut: the service answered, so not "could not reach"; Node\'s words only under --debug', async () => {
    const o = await origin({ cut: true });
    const trace: string[] = [];
    const err = await failure(send(client(o.base, {}, { trace }), path, GET));
    expect(err.message).not.toMatch(FOREIGN);
    expect(err.message).not.toMatch(/could not reach/);
    expect(err.message).toMatch(/answered \(HTTP 200\)|closed|ended/);
    expect(trace.some((l) => l.startsWith('! ') && FOREIGN.test(l))).toBe(true);
  });
});

describe.each<Path>(['node:http', 'undici'])('a proxy that asks for a user and password (HTTP 407) on %s', (path) => {
  const auth = { user: 'ops', password: 's3cr/t@pw' };
  const withAuth = (p: TestProxy, user: string, password: string) => p.url.replace('http://', `http://${encodeURIComponent(user)}:${encodeURIComponent(password)}@`);

  it('no user in HTTP_PROXY: a proxy failure naming the proxy and its variable, with how to give them; exit 9, not retried, not applied', async () => {
    const o = await origin();
    const p = await proxy({ auth });
    const sleeps: number[] = [];
    const c = new ApiClient({ baseUrl: o.base, credential: staticCredential('k', 'test'), env: { HTTP_PROXY: p.url }, retries: 3, sleep: async (ms) => void sleeps.push(ms) });
    clients.push(c);
    const err = await failure(send(c, path, POST));
    const host = p.url.slice('http://'.length);
    expect(err.message).toBe(`the proxy ${p.url} (from HTTP_PROXY) refused to forward the request to ${host.replace(/:\d+$/, '')}:${new URL(o.base).port}: it requires a user and password (HTTP 407)`);
    expect(err.hint).toBe(`Put them in HTTP_PROXY: HTTP_PROXY=http://USER:PASSWORD@${host} (gsh sends them as Proxy-Authorization and never prints them).`);
    expect(err.exitCode).toBe(9);
    expect(err.causeCode).toBe('proxy_refused');
    // The proxy did not forward it: the service never saw it.
    expect(err.outcome).toBe('not_applied');
    expect(o.answered).toBe(0);
    expect(sleeps).toEqual([]);
    expect(p.seen.filter((l) => l === '407')).toHaveLength(1);
  });

  it('a wrong password: said without printing it, in the error or under --debug', async () => {
    const o = await origin();
    const p = await proxy({ auth });
    const trace: string[] = [];
    const err = await failure(send(client(o.base, { http_proxy: withAuth(p, 'ops', 'wr0ng-pw') }, { trace }), path, GET));
    expect(err.message).toMatch(new RegExp(`^the proxy ${p.url} \\(from http_proxy\\) refused to forward the request to .*: it did not accept the user and password in http_proxy \\(HTTP 407\\)$`));
    expect(err.hint).toMatch(/percent-encoded \(@ as %40\)/);
    const said = [err.message, err.hint ?? '', ...trace].join('\n');
    expect(said).not.toMatch(/wr0ng-pw|ops:|ops@/);
    expect(trace).toContain(`> through the proxy ${p.url} (from http_proxy)`);
    // node:http hands the proxy's answer to gsh, which traces it; undici's ProxyAgent keeps it.
    if (path === 'node:http') expect(trace).toContain('< proxy-authenticate: Basic realm="test"');
  });

  it('the right user and password (percent-encoded in the URL) pass', async () => {
    const o = await origin();
    const p = await proxy({ auth });
    expect(await send(client(o.base, { HTTP_PROXY: withAuth(p, auth.user, auth.password) }), path, GET)).toMatchObject({ data: { method: 'GET' } });
    expect(o.answered).toBe(1);
  });

});

it('a download with no proxy goes on a connection of its own: a service closing reused connections never meets it', async () => {
  const o = await origin({ closeOnReuse: true });
  const sleeps: number[] = [];
  const c = client(o.base, {}, { sleeps });
  for (let i = 0; i < 3; i++) expect(await send(c, 'undici', GET)).toMatchObject({ data: { method: 'GET' } });
  expect(o.answered).toBe(3);
  expect(o.closed).toBe(0);
  expect(sleeps).toEqual([]);
});

it.each<Path>(['node:http', 'undici'])('%s: a resend goes on a new connection, never on another idle one of the pool that was closed the same way', async (path) => {
  const o = await origin({ closeOnReuse: true });
  const sleeps: number[] = [];
  const c = client(o.base, {}, { sleeps, ...undiciPool(path) });
  // Four at once leave four idle connections in the pool, each of which the service closes when reused.
  // (node:http took the next idle one for each resend before it had a connection of its own; undici's pool did not.)
  await Promise.all([0, 1, 2, 3].map(() => send(c, path, GET)));
  expect(await send(c, path, POST)).toMatchObject({ data: { method: 'POST' } });
  // One stale connection, then the resend on a new one: not three idle ones in a row.
  expect(o.closed).toBe(1);
  expect(o.answered).toBe(5);
  expect(sleeps).toEqual([]);
});

// undici's ProxyAgent keeps the answer's headers to itself: only node:http (every plain request) reads the challenge.
it('a proxy that offers only Negotiate: the hint says gsh sends Basic only (node:http)', async () => {
  const o = await origin();
  const p = await proxy({ auth: { user: 'ops', password: 'pw', challenge: 'Negotiate, NTLM' } });
  const err = await failure(send(client(o.base, { HTTP_PROXY: p.url }), 'node:http', GET));
  expect(err.hint).toMatch(/^The proxy asks for Negotiate or NTLM authentication; gsh sends Basic only/);
});

describe('the credential and plain http through a proxy', () => {
  it('an http:// target through an http:// proxy elsewhere is refused before anything is sent, unless GSH_INSECURE_HTTP=1', async () => {
    // 192.0.2.0/24 is TEST-NET-1: nothing answers there, and nothing is sent.
    const c = client('http://127.0.0.1:9/api/v2', { http_proxy: 'http://192.0.2.1:3128' });
    await expect(c.request(GET)).rejects.toThrow(/refusing to send the credential over plain http through the proxy http:\/\/192\.0\.2\.1:3128 \(from http_proxy\)/);
    expect(() => checkProxiedPlainHttp(new URL('http://127.0.0.1:9'), proxyFor(new URL('http://127.0.0.1:9'), { http_proxy: 'http://192.0.2.1:3128', GSH_INSECURE_HTTP: '1' }), { GSH_INSECURE_HTTP: '1' })).not.toThrow();
    expect(() => checkProxiedPlainHttp(new URL('https://api.example.com'), proxyFor(new URL('https://api.example.com'), { https_proxy: 'http://192.0.2.1:3128' }), {})).not.toThrow();
  });
});

describe('an https:// target goes through CONNECT (undici)', () => {
  it('a proxy that refuses the tunnel is named, with its answer; not retried, not sent', async () => {
    const p = await proxy({ refuseConnect: true });
    const sleeps: number[] = [];
    const c = new ApiClient({ baseUrl: 'https://127.0.0.1:9/api/v2', credential: staticCredential('k', 'test'), env: { HTTPS_PROXY: p.url }, retries: 3, sleep: async (ms) => void sleeps.push(ms) });
    clients.push(c);
    const err = await failure(c.request(POST));
    expect(err.message).toBe(`the proxy ${p.url} (from HTTPS_PROXY) refused to open a tunnel to 127.0.0.1:9 (HTTP 403 to CONNECT)`);
    expect(err.message).not.toMatch(FOREIGN);
    expect(err.outcome).toBe('not_applied');
    expect(err.causeCode).toBe('proxy_refused');
    expect(p.seen).toEqual(['CONNECT 127.0.0.1:9']);
    expect(sleeps).toEqual([]);
  });

  it.each([
    ['no user in HTTPS_PROXY', (u: string) => u, 'it requires a user and password', /^Put them in HTTPS_PROXY: HTTPS_PROXY=http:\/\/USER:PASSWORD@127\.0\.0\.1:\d+ /],
    ['a wrong password', (u: string) => u.replace('http://', 'http://ops:wr0ng-pw@'), 'it did not accept the user and password in HTTPS_PROXY', /^Check the user and password in HTTPS_PROXY/],
  ] as const)('a proxy that answers CONNECT with 407, %s: named, not retried, the password never printed', async (_what, url, why, hint) => {
    const p = await proxy({ auth: { user: 'ops', password: 'right' } });
    const sleeps: number[] = [];
    const trace: string[] = [];
    const c = new ApiClient({ baseUrl: 'https://127.0.0.1:9/api/v2', credential: staticCredential('k', 'test'), env: { HTTPS_PROXY: url(p.url) }, retries: 3, sleep: async (ms) => void sleeps.push(ms), trace: (l) => void trace.push(l) });
    clients.push(c);
    const err = await failure(c.request(POST));
    expect(err.message).toBe(`the proxy ${p.url} (from HTTPS_PROXY) refused to open a tunnel to 127.0.0.1:9: ${why} (HTTP 407 to CONNECT)`);
    expect(err.hint).toMatch(hint);
    expect(err.exitCode).toBe(9);
    expect(err.outcome).toBe('not_applied');
    expect(err.causeCode).toBe('proxy_refused');
    expect(sleeps).toEqual([]);
    expect([err.message, err.hint ?? '', ...trace].join('\n')).not.toMatch(/wr0ng-pw|ops:/);
  });
});

describe('which proxy (curl\'s rules, README "Authentication and configuration")', () => {
  const http = new URL('http://127.0.0.1:8080/api/v2');
  const https = new URL('https://api.example.com/api/v2');
  it.each<[string, URL, NodeJS.ProcessEnv, string | undefined]>([
    ['http_proxy for http://', http, { http_proxy: 'http://p:1' }, 'http://p:1 http_proxy'],
    ['HTTP_PROXY for http:// too (curl reads only the lowercase one)', http, { HTTP_PROXY: 'http://p:2' }, 'http://p:2 HTTP_PROXY'],
    ['lowercase before uppercase', http, { HTTP_PROXY: 'http://up:1', http_proxy: 'http://low:1' }, 'http://low:1 http_proxy'],
    ['https_proxy for https://', https, { https_proxy: 'http://p:3', HTTPS_PROXY: 'http://q:3' }, 'http://p:3 https_proxy'],
    ['HTTPS_PROXY for https://', https, { HTTPS_PROXY: 'http://q:3' }, 'http://q:3 HTTPS_PROXY'],
    ['http_proxy is not for https://', https, { http_proxy: 'http://p:1' }, undefined],
    ['https_proxy is not for http://', http, { https_proxy: 'http://p:1' }, undefined],
    ['all_proxy for either', https, { ALL_PROXY: 'http://a:4' }, 'http://a:4 ALL_PROXY'],
    ['no scheme is http://', http, { http_proxy: 'p:5' }, 'http://p:5 http_proxy'],
    ['an empty value is no proxy', http, { http_proxy: '' }, undefined],
    ['no_proxy before NO_PROXY', http, { http_proxy: 'http://p:1', no_proxy: 'example.com', NO_PROXY: '*' }, 'http://p:1 http_proxy'],
    ['NO_PROXY=*', https, { https_proxy: 'http://p:1', NO_PROXY: '*' }, undefined],
  ])('%s', (_what, target, env, expected) => {
    const p = proxyFor(target, env);
    expect(p ? `${p.url.protocol}//${p.url.host} ${p.from}` : undefined).toBe(expected);
  });

  it.each<[string, string, boolean]>([
    ['https://api.example.com', 'example.com', true],
    ['https://example.com', 'example.com', true],
    ['https://api.example.com', '.example.com', true],
    ['https://notexample.com', 'example.com', false],
    ['https://example.com.evil', 'example.com', false],
    ['https://api.example.com', 'other.org, example.com', true],
    ['https://api.example.com', 'other.org example.com', true],
    ['http://127.0.0.1:8080', '127.0.0.1:8080', true],
    ['http://127.0.0.1:8080', '127.0.0.1:9090', false],
    ['https://api.example.com', 'api.example.com:443', true],
    ['http://10.1.2.3', '10.0.0.0/8', true],
    ['http://11.1.2.3', '10.0.0.0/8', false],
    ['http://[::1]:3000', '::1', true],
    ['http://[::1]:3000', '[::1]:3000', true],
    ['https://API.Example.COM', 'api.example.com', true],
    // Issue 51: a suffix matches host names only, never an address (curl: "a name").
    ['http://127.0.0.1:8080', '.0.0.1', false],
    ['http://127.0.0.1:8080', '0.0.1', false],
    ['http://10.1.2.3', '.3', false],
    ['http://[::1]:3000', ':1', false],
  ])('%s with no_proxy=%s: %s', (target, list, bypass) => {
    expect(bypassesProxy(new URL(target), list)).toBe(bypass);
  });

  it('a proxy that is not a URL, or not http(s), is a usage error naming the variable', () => {
    expect(() => proxyFor(new URL('http://x'), { http_proxy: 'http://[bad' })).toThrow(/http_proxy is not a URL/);
    expect(() => proxyFor(new URL('http://x'), { http_proxy: 'socks5://p:1' })).toThrow(/http_proxy names a socks5 proxy/);
  });
});
