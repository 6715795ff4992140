import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../../src/core/wire/http.js';
import { staticCredential } from '../../../src/core/auth/credentials.js';

// Issue 2: HTTPS_PROXY/NO_PROXY are honoured. A loopback proxy that tunnels CONNECT (what undici
// uses) and forwards absolute-form requests, counting what passes through it.
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

async function listen(srv: Server): Promise<number> {
  const sockets = new Set<Socket>();
  srv.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  closers.push(() => new Promise((r) => { for (const s of sockets) s.destroy(); srv.close(() => r()); }));
  return (srv.address() as AddressInfo).port;
}

async function origin(): Promise<number> {
  return listen(createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"data":{"ok":true}}');
  }));
}

async function proxy(): Promise<{ port: number; seen: string[] }> {
  const seen: string[] = [];
  const srv = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const up = httpRequest(req.url ?? '', { method: req.method, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    req.pipe(up);
  });
  srv.on('connect', (req, client: Socket, head) => {
    seen.push(`CONNECT ${req.url}`);
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  return { port: await listen(srv), seen };
}

async function get(base: string, env: NodeJS.ProcessEnv): Promise<unknown> {
  const c = new ApiClient({ baseUrl: base, credential: staticCredential('k', 't'), env, retries: 0 });
  try {
    return (await c.request({ method: 'GET', path: '/me' })).body;
  } finally {
    await c.close();
  }
}

describe('proxy environment (issue 2: HTTPS_PROXY/NO_PROXY)', () => {
  it('sends through HTTP_PROXY when set', async () => {
    const target = await origin();
    const p = await proxy();
    const body = await get(`http://127.0.0.1:${target}/api/v2`, { HTTP_PROXY: `http://127.0.0.1:${p.port}`, NO_PROXY: '' });
    expect(body).toEqual({ data: { ok: true } });
    expect(p.seen.length).toBeGreaterThan(0);
    expect(p.seen.join(' ')).toContain(`127.0.0.1:${target}`);
  });

  it('goes direct for hosts in NO_PROXY', async () => {
    const target = await origin();
    const p = await proxy();
    await get(`http://127.0.0.1:${target}/api/v2`, { HTTP_PROXY: `http://127.0.0.1:${p.port}`, NO_PROXY: '127.0.0.1' });
    expect(p.seen).toEqual([]);
  });
});
