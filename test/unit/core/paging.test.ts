import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../../src/core/wire/http.js';
import { fetchAll } from '../../../src/core/wire/paging.js';

// 01-general-contract.md "Envelope rules" 5 (pagination object) and "Limits" (limit max 100).
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => { s.closeAllConnections(); s.close(r); })));
});

async function listServer(total: number, opts: { noTotal?: boolean; delays?: Record<number, number>; remaining?: number; resetIn?: number } = {}) {
  const seen: number[] = [];
  const srv = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const limit = Math.min(Number(url.searchParams.get('limit') ?? 25), 100);
    const offset = Number(url.searchParams.get('offset') ?? 0);
    seen.push(offset);
    const data = Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_v, i) => ({ n: offset + i }));
    const body = { data, pagination: { ...(opts.noTotal ? {} : { total }), limit, offset, has_more: offset + limit < total } };
    setTimeout(() => {
      const reset = opts.resetIn === undefined ? 0 : Math.ceil(Date.now() / 1000) + opts.resetIn;
      res.writeHead(200, { 'content-type': 'application/json', 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': String(opts.remaining ?? 90), 'x-ratelimit-reset': String(reset) });
      res.end(JSON.stringify(body));
    }, opts.delays?.[offset] ?? 0);
  });
  servers.push(srv);
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const sleeps: number[] = [];
  const client = new ApiClient({ baseUrl: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`, sleep: async (ms) => void sleeps.push(ms) });
  return { client, seen, sleeps };
}

describe('fetchAll', () => {
  it('keeps the order when later pages answer first, without onPage', async () => {
    const { client, seen } = await listServer(450, { delays: { 100: 60, 200: 30 } });
    const { items } = await fetchAll(client, { method: 'GET', path: '/servers' });
    await client.close();
    expect(items.map((i) => (i as { n: number }).n)).toEqual(Array.from({ length: 450 }, (_v, i) => i));
    expect(seen.sort((a, b) => a - b)).toEqual([0, 100, 200, 300, 400]);
  });

  it('hands pages to onPage in order as soon as earlier ones are in', async () => {
    const { client } = await listServer(350, { delays: { 100: 50 } });
    const order: number[] = [];
    await fetchAll(client, { method: 'GET', path: '/servers' }, { onPage: (p) => order.push((p[0] as { n: number }).n) });
    await client.close();
    expect(order).toEqual([0, 100, 200, 300]);
  });

  it('follows has_more page by page when total is absent', async () => {
    const { client, seen } = await listServer(230, { noTotal: true });
    const { items } = await fetchAll(client, { method: 'GET', path: '/x' });
    await client.close();
    expect(items).toHaveLength(230);
    expect(seen).toEqual([0, 100, 200]);
  });

  it('waits for the rate-limit window when the pages still needed are more than the requests left (ARCHITECTURE.md "Requests")', async () => {
    const { client, sleeps } = await listServer(250, { remaining: 1, resetIn: 5 });
    const { items } = await fetchAll(client, { method: 'GET', path: '/servers' });
    await client.close();
    expect(items).toHaveLength(250);
    expect(sleeps.length).toBeGreaterThan(0);
    for (const ms of sleeps) expect(ms).toBeGreaterThan(3000);
  });

  it('does not wait while enough requests remain for the pages still needed, however few', async () => {
    const { client, sleeps } = await listServer(250, { remaining: 2, resetIn: 5 });
    await fetchAll(client, { method: 'GET', path: '/servers' });
    await client.close();
    expect(sleeps).toEqual([]);
  });
});
