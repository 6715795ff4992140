import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { call, serverIds, withSandbox } from './helpers.js';

// Fault injection (issue 2, item 7). Codes from 01-general-contract.md "Errors": 502
// upstream_error, 503 service_unavailable, 504 upstream_timeout, 429 rate_limit_exceeded.

describe('faults', () => {
  it('gateway 5xx answers before processing, in the error envelope', () =>
    withSandbox({}, async (sb) => {
      const [id] = serverIds(sb);
      const codes: Record<number, string> = { 502: 'upstream_error', 503: 'service_unavailable', 504: 'upstream_timeout' };
      for (const kind of [502, 503, 504] as const) {
        sb.inject({ kind, method: 'POST', path: '/servers/{server_id}/power' });
        const r = await call(sb, 'POST', `/servers/${id}/power`, { body: { signal: 'kill' } });
        expect(r.status).toBe(kind);
        expect(r.body.error.code).toBe(codes[kind]);
        expect(r.body.request_id).toBe(r.headers.get('x-request-id'));
      }
      expect(sb.state.powerActions).toHaveLength(0);
      expect(sb.log.map((e) => e.fault)).toEqual(['502', '503', '504']);
      expect((await call(sb, 'POST', `/servers/${id}/power`, { body: { signal: 'kill' } })).status).toBe(202);
    }));

  it('a lost response executes exactly once; the retry with the same key replays', () =>
    withSandbox({}, async (sb) => {
      const [id] = serverIds(sb);
      sb.inject({ kind: 'lost', method: 'POST', path: `/servers/${id}/power`, count: 2 });
      const headers = { 'idempotency-key': 'lost-1' };
      await expect(call(sb, 'POST', `/servers/${id}/power`, { body: { signal: 'kill' }, headers })).rejects.toThrow();
      await expect(call(sb, 'POST', `/servers/${id}/power`, { body: { signal: 'kill' }, headers })).rejects.toThrow();
      const third = await call(sb, 'POST', `/servers/${id}/power`, { body: { signal: 'kill' }, headers });
      expect(third.status).toBe(202);
      expect(third.headers.get('idempotency-replayed')).toBe('true');
      expect(sb.state.powerActions).toHaveLength(1);
      expect(sb.log.map((e) => [e.status, e.fault ?? null, e.replayed])).toEqual([
        [202, 'lost', false], [202, 'lost', true], [202, null, true],
      ]);
    }));

  it('drop destroys the connection before processing', () =>
    withSandbox({}, async (sb) => {
      const [id] = serverIds(sb);
      sb.inject({ kind: 'drop', path: /\/power$/ });
      await expect(call(sb, 'POST', `/servers/${id}/power`, { body: { signal: 'kill' } })).rejects.toThrow();
      expect(sb.state.powerActions).toHaveLength(0);
      expect(sb.log[0]).toMatchObject({ fault: 'drop', status: null });
    }));

  it('injected 429 carries Retry-After; injections only match their method', () =>
    withSandbox({}, async (sb) => {
      sb.inject({ kind: 429, method: 'POST', retryAfter: 7 });
      expect((await call(sb, 'GET', '/servers')).status).toBe(200);
      const r = await call(sb, 'POST', '/servers', { body: { name: 'x' } });
      expect(r.status).toBe(429);
      expect(r.body.error.code).toBe('rate_limit_exceeded');
      expect(r.headers.get('retry-after')).toBe('7');
      expect(sb.state.createJobs.size).toBe(0);
    }));

  it('probabilistic faults are reproducible from the seed', async () => {
    const run = async (seed: number) => {
      const sb = await startSandbox({ seed, faults: { gateway5xx: 0.3, rateLimit429: 0.2 } });
      try {
        const out: number[] = [];
        for (let i = 0; i < 25; i++) out.push((await call(sb, 'GET', '/servers')).status);
        return out;
      } finally {
        await sb.close();
      }
    };
    const a = await run(11);
    expect(await run(11)).toEqual(a);
    expect(a.some((s) => s >= 500)).toBe(true);
    expect(a.some((s) => s === 429)).toBe(true);
    expect(a.some((s) => s === 200)).toBe(true);
  });

  it('setFaults can turn faults on and off; latency delays answers', () =>
    withSandbox({}, async (sb) => {
      sb.setFaults({ gateway5xx: 1 });
      expect((await call(sb, 'GET', '/health', { key: null })).status).toBeGreaterThanOrEqual(502);
      sb.setFaults({ gateway5xx: 0, latencyMs: 120 });
      const t0 = Date.now();
      expect((await call(sb, 'GET', '/health', { key: null })).status).toBe(200);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(110);
    }));
});
