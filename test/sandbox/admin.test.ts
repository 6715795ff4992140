import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { call, serverIds, withSandbox } from './helpers.js';

// The out-of-process admin API (src/sandbox/admin.ts) and the request log.

const admin = async (origin: string, method: string, path: string, body?: unknown) => {
  const r = await fetch(`${origin}/__sandbox${path}`, {
    method,
    ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}),
  });
  return { status: r.status, body: (await r.json()) as any };
};

describe('request log', () => {
  it('records method, concrete path, query, body, idempotency key, key id, status, request id', () =>
    withSandbox({}, async (sb) => {
      const [id] = serverIds(sb);
      const r = await call(sb, 'POST', `/servers/${id}/power?dry=1`, { body: { signal: 'kill' }, headers: { 'idempotency-key': 'abc' } });
      expect(sb.log).toHaveLength(1);
      expect(sb.log[0]).toMatchObject({
        seq: 1, method: 'POST', path: `/servers/${id}/power`, route: '/servers/{server_id}/power',
        query: { dry: '1' }, body: { signal: 'kill' }, idempotencyKey: 'abc', keyId: 'key_1',
        status: 202, requestId: r.headers.get('x-request-id'), replayed: false,
      });
      expect(JSON.stringify(sb.log)).not.toContain(sb.keys.all);
    }));
});

describe('admin API', () => {
  it('serves info, log, faults, injections, keys and state', async () => {
    const sb = await startSandbox({ timeScale: 0.02 });
    try {
      const info = await admin(sb.origin, 'GET', '');
      expect(info.body.data).toMatchObject({ base_url: sb.baseUrl, keys: { all: sb.keys.all, read_only: sb.keys.readOnly } });

      await call(sb, 'GET', '/servers');
      const log = await admin(sb.origin, 'GET', '/log');
      expect(log.body.data.map((e: { path: string }) => e.path)).toEqual(['/servers']);
      expect((await admin(sb.origin, 'GET', '/log?since=1')).body.data).toEqual([]);

      const inj = await admin(sb.origin, 'POST', '/inject', { kind: 503, path_regex: '^/servers$', count: 1 });
      expect(inj.body.data.pending_injections).toBe(1);
      expect((await call(sb, 'GET', '/servers')).status).toBe(503);
      expect((await admin(sb.origin, 'POST', '/inject', { kind: 'boom' })).status).toBe(400);

      expect((await admin(sb.origin, 'POST', '/faults', { gateway5xx: 1 })).body.data.gateway5xx).toBe(1);
      expect((await call(sb, 'GET', '/servers')).status).toBeGreaterThanOrEqual(502);
      await admin(sb.origin, 'POST', '/faults', { gateway5xx: 0 });

      const key = await admin(sb.origin, 'POST', '/keys', { scopes: ['servers:read'], rate_limit: 5 });
      expect(key.status).toBe(201);
      const me = await call(sb, 'GET', '/me', { key: key.body.data.key });
      expect(me.body.data.key).toMatchObject({ scopes: ['servers:read'], rate_limit: 5 });

      const state = await admin(sb.origin, 'GET', '/state');
      expect(state.body.data.servers).toHaveLength(3);
      expect(state.body.data.servers[0].status.object).toBe('server_status');

      await admin(sb.origin, 'DELETE', '/log');
      expect(sb.log).toHaveLength(0);
      expect((await admin(sb.origin, 'GET', '/nope')).status).toBe(404);
      expect((await admin(sb.origin, 'POST', '/faults', [1])).status).toBe(400);
    } finally {
      await sb.close();
    }
  });
});

describe('close', () => {
  it('clears every timer and stops listening, even mid-transition', async () => {
    const sb = await startSandbox({ timeScale: 1 });
    const ctx = sb.extensions.context;
    const id = [...sb.state.servers.values()].find((s) => s.state === 'running')!.id;
    await call(sb, 'POST', `/servers/${id}/power`, { body: { signal: 'restart' } });
    await call(sb, 'POST', '/servers', { body: { name: 'pending' } });
    expect(ctx.clock.pending).toBeGreaterThan(0);
    await sb.close();
    expect(ctx.clock.pending).toBe(0);
    await expect(fetch(`${sb.baseUrl}/health`)).rejects.toThrow();
    await sb.close(); // idempotent
  });
});
