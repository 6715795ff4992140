import { describe, expect, it } from 'vitest';
import { IdempotencyStore } from '../../src/sandbox/idempotency.js';
import { call, serverIds, withSandbox } from './helpers.js';

// 01-general-contract.md "Limits": idempotency key (printable ASCII, ≤ 200), replay window
// (success and 5xx replay with Idempotency-Replayed: true; client errors release the key),
// in-flight claim (different path/query/body or in flight → 409 idempotency_conflict).

describe('idempotency', () => {
  it('replays a success once executed, with Idempotency-Replayed: true and the same body', () =>
    withSandbox({}, async (sb) => {
      const [id] = serverIds(sb);
      const headers = { 'idempotency-key': 'k-1' };
      const first = await call(sb, 'POST', `/servers/${id}/power`, { body: { signal: 'kill' }, headers });
      const second = await call(sb, 'POST', `/servers/${id}/power`, { body: { signal: 'kill' }, headers });
      expect(first.status).toBe(202);
      expect(first.headers.get('idempotency-replayed')).toBeNull();
      expect(second.status).toBe(202);
      expect(second.headers.get('idempotency-replayed')).toBe('true');
      expect(second.body).toEqual(first.body);
      expect(sb.state.powerActions).toHaveLength(1);
      expect(sb.log.map((e) => e.replayed)).toEqual([false, true]);
      expect(sb.log[1]!.idempotencyKey).toBe('k-1');
    }));

  it('the same key with a different body, path or query is 409 idempotency_conflict', () =>
    withSandbox({}, async (sb) => {
      const [a, b] = serverIds(sb);
      const headers = { 'idempotency-key': 'k-2' };
      await call(sb, 'POST', `/servers/${a}/power`, { body: { signal: 'kill' }, headers });
      const cases = [
        call(sb, 'POST', `/servers/${a}/power`, { body: { signal: 'start' }, headers }),
        call(sb, 'POST', `/servers/${b}/power`, { body: { signal: 'kill' }, headers }),
        call(sb, 'POST', `/servers/${a}/power?x=1`, { body: { signal: 'kill' }, headers }),
      ];
      for (const r of await Promise.all(cases)) {
        expect(r.status).toBe(409);
        expect(r.body.error.code).toBe('idempotency_conflict');
      }
      expect(sb.state.powerActions).toHaveLength(1);
    }));

  it('body key order does not matter', () =>
    withSandbox({}, async (sb) => {
      const headers = { 'idempotency-key': 'k-order' };
      await call(sb, 'POST', '/servers', { rawBody: '{"name":"a","plan":"free"}', headers: { ...headers, 'content-type': 'application/json' } });
      const again = await call(sb, 'POST', '/servers', { rawBody: '{"plan":"free","name":"a"}', headers: { ...headers, 'content-type': 'application/json' } });
      expect(again.headers.get('idempotency-replayed')).toBe('true');
      expect(sb.state.createJobs.size).toBe(1);
    }));

  it('a client-error response releases the key', () =>
    withSandbox({}, async (sb) => {
      const headers = { 'idempotency-key': 'k-3' };
      const bad = await call(sb, 'POST', '/servers', { body: {}, headers });
      expect(bad.status).toBe(422);
      const good = await call(sb, 'POST', '/servers', { body: { name: 'fixed' }, headers });
      expect(good.status).toBe(202);
      expect(good.headers.get('idempotency-replayed')).toBeNull();
      expect(sb.state.createJobs.size).toBe(1);
    }));

  it('reuse while the original is in flight is 409 idempotency_conflict', () =>
    withSandbox({ faults: { latencyMs: 300 } }, async (sb) => {
      const [id] = serverIds(sb);
      const headers = { 'idempotency-key': 'k-4' };
      const first = call(sb, 'POST', `/servers/${id}/power`, { body: { signal: 'kill' }, headers });
      await new Promise((r) => setTimeout(r, 100));
      const second = await call(sb, 'POST', `/servers/${id}/power`, { body: { signal: 'kill' }, headers });
      expect(second.status).toBe(409);
      expect(second.body.error.code).toBe('idempotency_conflict');
      expect((await first).status).toBe(202);
      expect(sb.state.powerActions).toHaveLength(1);
    }));

  it('keys are scoped per API key', () =>
    withSandbox({}, async (sb) => {
      const other = sb.createKey(['*']);
      const headers = { 'idempotency-key': 'shared' };
      await call(sb, 'POST', '/servers', { body: { name: 'one' }, headers });
      const r = await call(sb, 'POST', '/servers', { key: other, body: { name: 'two' }, headers });
      expect(r.status).toBe(202);
      expect(sb.state.createJobs.size).toBe(2);
    }));

  it('an invalid key (non-printable, non-ASCII or over 200 characters) is 400 and executes nothing', () =>
    withSandbox({}, async (sb) => {
      const [id] = serverIds(sb);
      for (const key of ['x'.repeat(201), 'tab\there', 'caf\u00e9']) {
        const r = await fetch(`${sb.baseUrl}/servers/${id}/power`, {
          method: 'POST',
          headers: { authorization: `Bearer ${sb.keys.all}`, 'content-type': 'application/json', 'idempotency-key': key },
          body: JSON.stringify({ signal: 'kill' }),
        });
        expect(r.status, JSON.stringify(key)).toBe(400);
      }
      expect((await call(sb, 'POST', `/servers/${id}/power`, { body: { signal: 'kill' }, headers: { 'idempotency-key': 'y'.repeat(200) } })).status).toBe(202);
      expect(sb.state.powerActions).toHaveLength(1);
    }));

  it('store: 5xx results are kept for replay, 4xx released', () => {
    const store = new IdempotencyStore();
    const c1 = store.claim('key_1', 'a', 'fp');
    if (c1.kind !== 'new') throw new Error('expected new');
    c1.finish({ status: 503, body: { error: { code: 'service_unavailable' } } });
    const again = store.claim('key_1', 'a', 'fp');
    expect(again.kind).toBe('replay');
    const c2 = store.claim('key_1', 'b', 'fp');
    if (c2.kind !== 'new') throw new Error('expected new');
    c2.finish({ status: 404 });
    expect(store.claim('key_1', 'b', 'fp').kind).toBe('new');
  });
});
