import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent } from 'undici';
import { ApiClient } from '../../../src/core/wire/http.js';
import { staticCredential } from '../../../src/core/auth/credentials.js';
import { nodeTransport } from '../../../src/core/wire/transport.js';

// Which transport carries a request (core/wire/transport.ts): node:http for plain requests (direct or
// to an http:// proxy), undici for streamed bodies and answers, CONNECT tunnels and a handed-in
// dispatcher; the request core above them is
// the same. The two tell themselves apart on the wire: node:http sends its own `Host` header
// capitalised, undici in lower case (the raw header names the server receives).

const servers: Server[] = [];
const clients: ApiClient[] = [];

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => json(res)) {
  const hosts: string[] = [];
  const srv = createServer((req, res) => {
    hosts.push(req.rawHeaders.find((h) => h.toLowerCase() === 'host')!);
    handler(req, res);
  });
  servers.push(srv);
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return { base: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/api/v2`, hosts };
}

function json(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{"data":[]}');
}

function client(base: string, extra: Partial<ConstructorParameters<typeof ApiClient>[0]> = {}): ApiClient {
  const c = new ApiClient({ baseUrl: base, credential: staticCredential('k', 'test'), retries: 0, env: {}, ...extra });
  clients.push(c);
  return c;
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => { s.closeAllConnections(); s.close(r); })));
});

describe('the transport of a request', () => {
  it('a plain request goes through node:http; a streamed upload and a streamed download through undici', async () => {
    const { base, hosts } = await serve((req, res) => {
      req.resume();
      req.on('end', () => json(res));
    });
    const c = client(base);
    await c.request({ method: 'GET', path: '/servers' });
    await c.request({ method: 'POST', path: '/upload', idempotencyKey: 'k1', streamBody: { length: 3, open: async function* () { yield Buffer.from('abc'); } } });
    await c.request({ method: 'GET', path: '/download', sink: async (body) => { for await (const _ of body) void _; } });
    expect(hosts).toEqual(['Host', 'host', 'host']);
  });

  it('a handed-in dispatcher carries every request, plain ones too', async () => {
    const { base, hosts } = await serve();
    const dispatcher = new Agent();
    try {
      await client(base, { dispatcher }).request({ method: 'GET', path: '/servers' });
      expect(hosts).toEqual(['host']);
    } finally {
      await dispatcher.close();
    }
  });

  it('a host NO_PROXY lists goes direct, through node:http (core/wire/transport-policy.ts proxyFor)', async () => {
    const { base, hosts } = await serve();
    await client(base, { env: { HTTP_PROXY: 'http://127.0.0.1:9', NO_PROXY: '127.0.0.1' } }).request({ method: 'GET', path: '/servers' });
    expect(hosts).toEqual(['Host']);
  });
});

describe('node:http transport', () => {
  it("an abort before the answer rejects with the signal's own reason", async () => {
    const { base } = await serve(() => {}); // never answers
    const t = nodeTransport();
    const ac = new AbortController();
    const sent = t.send({ url: new URL(`${base}/x`), method: 'GET', headers: {}, body: undefined, timeoutMs: 1000, signal: ac.signal });
    const reason = Object.assign(new Error('interrupted'), { code: 'GSH_TEST_ABORT' });
    setImmediate(() => ac.abort(reason));
    await expect(sent).rejects.toBe(reason);
    await t.close();
  });

  it("an abort while the body is read ends the read with the signal's own reason", async () => {
    const { base } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"data":['); // and no more
    });
    const t = nodeTransport();
    const ac = new AbortController();
    const answer = await t.send({ url: new URL(`${base}/x`), method: 'GET', headers: {}, body: undefined, timeoutMs: 1000, signal: ac.signal });
    expect(answer.statusCode).toBe(200);
    const reason = new Error('request timeout');
    const read = (async () => { for await (const _ of answer.body) ac.abort(reason); })();
    await expect(read).rejects.toBe(reason);
    await t.close();
  });

  it('refuses a streamed body (that is undici\'s)', async () => {
    const t = nodeTransport();
    await expect(t.send({ url: new URL('http://127.0.0.1:9/x'), method: 'POST', headers: {}, body: (async function* () {})(), timeoutMs: 1000 })).rejects.toThrow(/undici/);
  });
});
