import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from 'node:net';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Dispatcher } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isLoopbackHost } from '../../src/core/wire/transport-policy.js';
import { runGsh } from '../helpers/context.js';
import { type E2E, runEnv, setup } from './helpers.js';
import { skipTitle } from '../helpers/tools.js';

// Issue #28: a key never crosses the network in clear and never goes to a service it was not
// saved for. http:// only to loopback hosts (GSH_INSECURE_HTTP=1 allows it, with a warning);
// a profile's credential only to the base URL it was logged in to; GSH_API_KEY/GSH_TOKEN only
// to GSH_BASE_URL; `auth login` saves a key only after GET /me answered 2xx in the API envelope;
// a malformed answer or an unsendable header is a clear error.

let t: E2E;
let dir: string;
beforeAll(async () => {
  t = await setup({ servers: 1 });
});
afterAll(async () => {
  await t.close();
});
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});
const fresh = () => (dir = mkdtempSync(join(tmpdir(), 'gsh-binding-')));

/** An HTTP listener that records every request it gets (and answers with `answer`). */
async function listener(host: string, answer: (req: IncomingMessage, res: ServerResponse) => void = (_q, s) => s.end('{"data":[]}')) {
  const seen: { url: string; headers: IncomingHttpHeaders }[] = [];
  let connections = 0;
  const server: Server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    answer(req, res);
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  const hostPart = host.includes(':') ? `[${host}]` : host;
  return {
    baseUrl: `http://${hostPart}:${port}/api/v2`,
    seen,
    connections: () => connections,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** An address of this machine that is not loopback (eth0's), if it has one. */
const outward = Object.values(networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

describe('TLS or loopback', () => {
  it('loopback is localhost, 127.0.0.0/8 and ::1; nothing else', () => {
    for (const h of ['localhost', 'LOCALHOST', '127.0.0.1', '127.1.2.3', '[::1]', '::1']) expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ['example.com', '10.0.0.1', '192.0.2.2', '127.0.0.1.nip.io', 'localhost.example.com', '[::2]', '0.0.0.0']) expect(isLoopbackHost(h), h).toBe(false);
  });

  it.skipIf(!outward)(skipTitle('a plain-http listener on a non-loopback address of this machine sees no request', !outward, 'this machine has no IPv4 address but loopback'), async () => {
    const remote = await listener(outward!);
    try {
      for (const args of [['servers', 'list'], ['servers', 'list', '--dry-run'], ['me']]) {
        const r = await t.gsh(['--base-url', remote.baseUrl, ...args], { env: { GSH_BASE_URL: undefined } });
        expect(r.exitCode, r.stderr).toBe(2);
        expect(r.stderr).toContain(`refusing plain http to ${new URL(remote.baseUrl).host}`);
      }
      const login = await t.gsh(['auth', 'login', '--base-url', remote.baseUrl, '--profile', 'x'], { env: { GSH_API_KEY: undefined, GSH_CONFIG_DIR: fresh() }, input: 'gsh_live_k\n' });
      expect(login.exitCode, login.stderr).toBe(2);
      expect(remote.connections()).toBe(0);

    } finally {
      await remote.close();
    }
  });

  it('a non-loopback host name over http never reaches the dispatcher; https does', async () => {
    let dispatched = 0;
    const spy = { dispatch: () => { dispatched++; throw new Error('no request may be sent'); }, close: async () => {}, destroy: async () => {} } as unknown as Dispatcher;
    const env = runEnv({ GSH_API_KEY: 'gsh_live_k', GSH_CONFIG_DIR: fresh(), NO_COLOR: '1' });
    const r = await runGsh(['--base-url', 'http://api.example.com/api/v2', 'servers', 'list'], { env, dispatcher: spy });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toContain('refusing plain http to api.example.com');
    expect(r.stderr).toContain('https://api.example.com/api/v2');
    const viaEnv = await runGsh(['servers', 'list'], { env: { ...env, GSH_BASE_URL: 'http://10.1.2.3:8080/api/v2' }, dispatcher: spy });
    expect(viaEnv.exitCode).toBe(2);
    expect(dispatched).toBe(0);
    const planned = await runGsh(['--base-url', 'https://api.example.com/api/v2', 'servers', 'list', '--dry-run'], { env, dispatcher: spy });
    expect(planned.exitCode, planned.stderr).toBe(0);
    // The opt-in lets the request through to the dispatcher (which refuses it: nothing leaves this
    // machine), and says so.
    const insecure = await runGsh(['--base-url', 'http://api.example.com/api/v2', 'servers', 'list', '--retries', '0'], { env: { ...env, GSH_INSECURE_HTTP: '1' }, dispatcher: spy });
    expect(insecure.stderr).toMatch(/warning: GSH_INSECURE_HTTP=1: sending the credential to http:\/\/.* over plain http/);
    expect(dispatched).toBeGreaterThan(0);
  });

  it('the sandbox on 127.0.0.1 and localhost needs no opt-in and gets no warning', async () => {
    const r = await t.gsh(['servers', 'list']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).not.toMatch(/plain http/);
    const local = await t.gsh(['--base-url', t.sandbox.baseUrl.replace('127.0.0.1', 'localhost'), 'servers', 'list'], { env: { GSH_BASE_URL: undefined } });
    expect(local.exitCode, local.stderr).toBe(0);
  });
});

describe('credentials bound to a service', () => {
  let other: Awaited<ReturnType<typeof listener>>;
  beforeAll(async () => {
    other = await listener('127.0.0.1', (req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(req.url?.endsWith('/health') ? '{"data":{"status":"ok"}}' : '{"data":[]}');
    });
  });
  afterAll(async () => {
    await other.close();
  });
  const noEnvKey = { GSH_API_KEY: undefined, GSH_BASE_URL: undefined };

  async function loggedIn(): Promise<Record<string, string | undefined>> {
    const env = { ...noEnvKey, GSH_CONFIG_DIR: fresh() };
    const login = await t.gsh(['auth', 'login', '--profile', 'home', '--base-url', t.sandbox.baseUrl], { env, input: `${t.sandbox.keys.all}\n` });
    expect(login.exitCode, login.stderr).toBe(0);
    return env;
  }

  it("a profile's key goes only to the base URL it was logged in to: --base-url or GSH_BASE_URL elsewhere is an error naming both", async () => {
    const env = await loggedIn();
    const before = other.seen.length;
    const flag = await t.gsh(['--base-url', other.baseUrl, 'servers', 'list'], { env });
    expect(flag.exitCode).toBe(2);
    expect(flag.stderr).toContain(`profile "home" is logged in to ${t.sandbox.baseUrl}, not ${other.baseUrl} (--base-url)`);
    const viaEnv = await t.gsh(['servers', 'list'], { env: { ...env, GSH_BASE_URL: other.baseUrl } });
    expect(viaEnv.exitCode).toBe(2);
    expect(viaEnv.stderr).toContain(`not ${other.baseUrl} (GSH_BASE_URL)`);
    const planned = await t.gsh(['--base-url', other.baseUrl, 'servers', 'list', '--dry-run'], { env });
    expect(planned.exitCode).toBe(2);
    expect(other.seen.length).toBe(before);
    // The same service spelled with a trailing slash is the same service.
    const same = await t.gsh(['servers', 'list'], { env: { ...env, GSH_BASE_URL: `${t.sandbox.baseUrl}/` } });
    expect(same.exitCode, same.stderr).toBe(0);
  });

  it('a command that sends no credential (health) may go elsewhere, without the key', async () => {
    const env = await loggedIn();
    const r = await t.gsh(['--base-url', other.baseUrl, 'health', '--json'], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(other.seen.at(-1)?.headers.authorization).toBeUndefined();
  });

  it('GSH_API_KEY goes where GSH_BASE_URL says: another --base-url is an error naming both', async () => {
    const before = other.seen.length;
    const r = await t.gsh(['--base-url', other.baseUrl, 'servers', 'list']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`GSH_API_KEY is for ${t.sandbox.baseUrl} (GSH_BASE_URL), not ${other.baseUrl} (--base-url)`);
    expect(other.seen.length).toBe(before);
    expect((await t.gsh(['servers', 'list'])).exitCode).toBe(0);
  });

  it("an agent profile's token likewise; a stored credential without a base URL goes nowhere", async () => {
    const env = { ...noEnvKey, GSH_CONFIG_DIR: fresh(), GSH_PROFILE: 'bot' };
    const agent = { method: 'anonymous', access_token: 'gsh_at_x', expires_at: '2999-01-01T00:00:00Z', identity_assertion: 'x' };
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { bot: { base_url: t.sandbox.baseUrl, agent }, bare: { api_key: 'gsh_live_k' } } }), { mode: 0o600 });
    const before = other.seen.length;
    const r = await t.gsh(['--base-url', other.baseUrl, 'servers', 'list'], { env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`profile "bot" is logged in to ${t.sandbox.baseUrl}, not ${other.baseUrl}`);
    const bare = await t.gsh(['servers', 'list'], { env: { ...env, GSH_PROFILE: 'bare', GSH_BASE_URL: other.baseUrl } });
    expect(bare.exitCode).toBe(2);
    expect(bare.stderr).toContain('profile "bare" holds a credential but no base URL it belongs to');
    expect(other.seen.length).toBe(before);
  });
});

describe('auth login proves the key before saving it', () => {
  const answers: [string, (res: ServerResponse) => void, RegExp][] = [
    ['a redirect', (res) => { res.writeHead(302, { location: 'https://sso.example.com/login' }); res.end(); }, /HTTP 302, a redirect to https:\/\/sso\.example\.com\/login/],
    ['an HTML page', (res) => { res.writeHead(200, { 'content-type': 'text/html' }); res.end('<html><title>Sign in</title></html>'); }, /an HTML page: "Sign in"/],
    ['JSON without the envelope', (res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"account":{"username":"x"}}'); }, /JSON without the API envelope/],
    ['an empty 204', (res) => { res.writeHead(204); res.end(); }, /HTTP 204 with no body/],
    ['null as data', (res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"data":null}'); }, /null as "data", not the account/],
  ];
  it.each(answers)('%s: exit 1, says what came, saves nothing', async (_name, answer, said) => {
    const peer = await listener('127.0.0.1', (_req, res) => answer(res));
    try {
      const config = join(fresh(), 'config.json');
      const r = await t.gsh(['auth', 'login', '--base-url', peer.baseUrl, '--profile', 'p'], { env: { GSH_API_KEY: undefined, GSH_BASE_URL: undefined, GSH_CONFIG_DIR: dir }, input: 'gsh_live_k\n' });
      expect(r.exitCode, r.stderr).toBe(1);
      expect(r.stderr).toMatch(said);
      expect(r.stderr).not.toMatch(/Logged in/);
      expect(existsSync(config)).toBe(false);
      expect(peer.seen.map((s) => s.url)).toEqual(['/api/v2/me']);
    } finally {
      await peer.close();
    }
  });
});

describe('transport oddities are clear errors, never "internal error"', () => {
  let raw: TcpServer;
  let rawBase: string;
  beforeAll(async () => {
    // Not an HTTP server: a peer that answers with a header value holding a control character.
    raw = createTcpServer((s) => s.once('data', () => s.end('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Evil: a\x01\x1b]52;c;AA\x07b\r\nContent-Length: 11\r\n\r\n{"data":[]}')));
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    rawBase = `http://127.0.0.1:${(raw.address() as AddressInfo).port}/api/v2`;
  });
  afterAll(async () => {
    await new Promise((resolve) => raw.close(resolve));
  });

  it('an answer with a malformed header', async () => {
    const r = await t.gsh(['servers', 'list', '--retries', '0'], { env: { GSH_BASE_URL: rawBase } });
    expect(r.exitCode).toBe(9);
    expect(r.stderr).toContain(`bad answer from ${rawBase}: the answer is not valid HTTP/1.1 (Invalid header value char)`);
    // Something answered: "could not reach" is for when nothing did (issue 45).
    expect(r.stderr).not.toContain("could not reach");
    expect(r.stderr).not.toMatch(/internal error/);
  });

  it('a key with a control character (a CRLF file) is refused before anything is sent, naming the header, not the key', async () => {
    const before = t.sandbox.log.length;
    const r = await t.gsh(['servers', 'list'], { env: { GSH_API_KEY: `${t.sandbox.keys.all}\r` } });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('cannot send the authorization header: its value holds a control character');
    expect(r.stderr).toContain('environment (GSH_API_KEY)');
    expect(r.stderr).not.toContain(t.sandbox.keys.all);
    expect(r.stderr).not.toMatch(/internal error/);
    expect(t.sandbox.log.length).toBe(before);
  });
});
