import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient, checkIdempotencyKey, rateLimitTaken } from '../../../src/core/wire/http.js';
import { ApiError, NetworkError, UsageError } from '../../../src/core/errors.js';
import { staticCredential } from '../../../src/core/auth/credentials.js';

type Handler = (req: IncomingMessage, res: ServerResponse, n: number) => void;
const servers: Server[] = [];
const clients: ApiClient[] = [];

async function serve(handler: Handler): Promise<{ base: string; seen: { method: string; url: string; key?: string; auth?: string }[] }> {
  const seen: { method: string; url: string; key?: string; auth?: string }[] = [];
  const srv = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', key: req.headers['idempotency-key'] as string | undefined, auth: req.headers.authorization });
    req.resume();
    req.on('end', () => handler(req, res, seen.length));
  });
  servers.push(srv);
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return { base: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/api/v2`, seen };
}

function client(base: string, extra: Partial<ConstructorParameters<typeof ApiClient>[0]> = {}): ApiClient & { sleeps: number[] } {
  const sleeps: number[] = [];
  const c = new ApiClient({ baseUrl: base, credential: staticCredential('key_secret_value', 'test'), sleep: async (ms) => void sleeps.push(ms), random: () => 0.5, ...extra });
  clients.push(c);
  return Object.assign(c, { sleeps });
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'req_1', ...headers });
  res.end(JSON.stringify(body));
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => { s.closeAllConnections(); s.close(r); })));
});

describe('ApiClient (01-general-contract.md "Errors" retry rules, "Limits" idempotency key)', () => {
  it('reuses one Idempotency-Key across 5xx retries and a dropped connection', async () => {
    const { base, seen } = await serve((_req, res, n) => {
      if (n === 1) return json(res, 503, { error: { code: 'service_unavailable', message: 'busy' }, request_id: 'r' });
      if (n === 2) return res.socket?.destroy();
      json(res, 202, { data: { power_state: 'applied' } });
    });
    const c = client(base);
    const res = await c.request({ method: 'POST', path: '/servers/a/power', body: { signal: 'start' } });
    expect(res.status).toBe(202);
    expect(seen).toHaveLength(3);
    expect(new Set(seen.map((s) => s.key)).size).toBe(1);
    expect(seen[0]?.key).toMatch(/^[0-9a-f-]{36}$/);
    // The drop came on the 503's kept-alive connection before any answer: resent at once on a new
    // one, with no pause and no retry spent (core/wire/transport-policy.ts).
    expect(c.sleeps).toEqual([1000]);
  });

  it('resend never (an MCP tools/call): no Idempotency-Key, sent once whatever happens, a stale connection\'s drop included', async () => {
    const { base, seen } = await serve((_req, res, n) => {
      if (n === 1) return json(res, 200, { ok: true });
      res.socket?.destroy();
    });
    const c = client(base);
    await c.request({ method: 'POST', path: '/mcp', body: { jsonrpc: '2.0', id: 1, method: 'tools/list' }, resend: 'safe' });
    await expect(c.request({ method: 'POST', path: '/mcp', body: { jsonrpc: '2.0', id: 2, method: 'tools/call' }, resend: 'never' })).rejects.toBeInstanceOf(NetworkError);
    expect(seen.map((s) => s.key)).toEqual([undefined, undefined]);
    expect(seen).toHaveLength(2);
  });

  it('resend safe (a read that is a POST): no Idempotency-Key, retried as a GET is', async () => {
    const { base, seen } = await serve((_req, res, n) => {
      if (n === 1) return json(res, 503, { error: { code: 'service_unavailable', message: 'busy' } });
      json(res, 200, { ok: true });
    });
    const c = client(base);
    expect((await c.request({ method: 'POST', path: '/mcp', body: {}, resend: 'safe' })).status).toBe(200);
    expect(seen.map((s) => s.key)).toEqual([undefined, undefined]);
  });

  it('a JSON-RPC error body (numeric code) becomes an error named by its status, its message kept', async () => {
    const { base } = await serve((_req, res) => json(res, 404, { jsonrpc: '2.0', id: 1, error: { code: -32001, message: 'Session not found' } }));
    const err = await client(base).request({ method: 'POST', path: '/mcp', body: {}, resend: 'never' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect([(err as ApiError).code, (err as ApiError).message, (err as ApiError).exitCode]).toEqual(['http_404', 'Session not found', 5]);
  });

  it('waits Retry-After on 429', async () => {
    const { base, seen } = await serve((_req, res, n) =>
      n === 1 ? json(res, 429, { error: { code: 'rate_limit_exceeded', message: 'slow' } }, { 'retry-after': '3' }) : json(res, 200, { data: [] }));
    const c = client(base);
    await c.request({ method: 'GET', path: '/servers' });
    expect(seen).toHaveLength(2);
    expect(c.sleeps).toEqual([3000]);
  });

  it('does not retry other 4xx and raises the envelope as ApiError', async () => {
    const { base, seen } = await serve((_req, res) =>
      json(res, 409, { error: { code: 'conflict', message: 'busy now' }, request_id: 'req_9' }));
    const err = await client(base).request({ method: 'POST', path: '/x', body: {} }).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'conflict', status: 409, requestId: 'req_9', exitCode: 6 });
    expect(seen).toHaveLength(1);
  });

  it('gives up after the configured retries with exit 9', async () => {
    const { base, seen } = await serve((_req, res) => json(res, 502, { error: { code: 'upstream_error', message: 'node' } }));
    const err = await client(base, { retries: 2 }).request({ method: 'GET', path: '/x' }).catch((e) => e);
    expect(err).toMatchObject({ status: 502, exitCode: 9 });
    expect(seen).toHaveLength(3);
  });

  it('reports an unreachable host as a NetworkError (exit 9)', async () => {
    const { base } = await serve(() => undefined);
    await new Promise((r) => { servers[0]?.close(r); });
    const err = await client(base, { retries: 1 }).request({ method: 'GET', path: '/x' }).catch((e) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.exitCode).toBe(9);
  });

  it('sends the bearer, a given key, query arrays; marks replays', async () => {
    const { base, seen } = await serve((_req, res) => json(res, 200, { data: {} }, { 'idempotency-replayed': 'true' }));
    const res = await client(base).request({ method: 'PATCH', path: '/a', query: { x: ['1', '2'], y: true }, body: {}, idempotencyKey: 'my-key' });
    expect(seen[0]).toMatchObject({ url: '/api/v2/a?x=1&x=2&y=true', key: 'my-key', auth: 'Bearer key_secret_value' });
    expect(res.replayed).toBe(true);
  });

  it('traces with the bearer redacted', async () => {
    const { base } = await serve((_req, res) => json(res, 200, { data: { token: 'tok_secret_123456' } }));
    const lines: string[] = [];
    await client(base, { trace: (l) => lines.push(l) }).request({ method: 'GET', path: '/me' });
    const text = lines.join('\n');
    expect(text).toContain('> GET ');
    expect(text).not.toContain('key_secret_value');
    expect(text).not.toContain('tok_secret_123456');
    expect(text).toMatch(/authorization: Bearer key_…\[redacted\]/);
  });

  it('checks Idempotency-Key: printable ASCII, at most 200', () => {
    expect(checkIdempotencyKey('a'.repeat(200))).toHaveLength(200);
    expect(() => checkIdempotencyKey('a'.repeat(201))).toThrow(UsageError);
    expect(() => checkIdempotencyKey('tab\there')).toThrow(UsageError);
    expect(() => checkIdempotencyKey('')).toThrow(UsageError);
  });
});

describe('the rate-limit wait says why in one true sentence (issue 37: "7 of 60 requests left … all in use")', () => {
  it('used up, or the last ones taken by requests under way', () => {
    expect(rateLimitTaken(0, 60)).toBe('all 60 requests of this minute are used');
    expect(rateLimitTaken(7, 60)).toBe("the last 7 requests of this minute's 60 are already under way");
    expect(rateLimitTaken(1, 60)).toBe("the last request of this minute's 60 is already under way");
  });
});
