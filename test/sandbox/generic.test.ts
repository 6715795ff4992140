import { describe, expect, it } from 'vitest';
import { loadAllFamilies } from '../../src/operations/index.js';
import { kindOf } from '../../src/sandbox/handlers/generic.js';
import { handlerMaps } from '../../src/sandbox/handlers/index.js';
import { TIMESTAMP, call, serverIds, until, withSandbox } from './helpers.js';

// Generic behaviour for registry operations without specific semantics yet: routing by the
// registry, envelopes of 01-general-contract.md "Envelope rules" 5 and 6, and the webhook
// endpoints of 02-endpoints-part-a.md "Webhooks" as the worked example.

describe('routing by the registry', () => {
  it('every registry operation is routed: no 404/405 for its own method and path', async () => {
    const ops = (await loadAllFamilies()).flatMap((f) => f.operations);
    expect(ops.length).toBeGreaterThan(10);
    await withSandbox({}, async (sb) => {
      const [id] = serverIds(sb);
      for (const op of ops) {
        const path = op.path.replace('{server_id}', id!).replace(/[{<][^}>]+[}>]/g, 'x1');
        const r = await call(sb, op.method, path, op.method === 'GET' ? {} : { body: {} });
        expect(r.status, `${op.method} ${op.path}`).not.toBe(405);
        expect(r.status, `${op.method} ${op.path}`).toBeLessThan(500);
        if (r.status === 404) expect(r.body.error.message, `${op.method} ${op.path}`).not.toMatch(/No route/);
        expect(r.headers.get('x-request-id')).toBeTruthy();
      }
    });
  });

  it('specific handler keys name registry operations or self-declared routes', async () => {
    const ops = new Set((await loadAllFamilies()).flatMap((f) => f.operations).map((o) => `${o.method} ${o.path}`));
    for (const map of handlerMaps) {
      for (const [key, h] of Object.entries(map)) {
        if (!ops.has(key)) expect(typeof h === 'object' && (h.auth === 'none' || h.scope), key).toBeTruthy();
      }
    }
  });

  it('derives object kinds from templates', () => {
    expect(kindOf('/servers/{server_id}/allocations')).toBe('server_allocation');
    expect(kindOf('/servers/{server_id}/properties')).toBe('server_property');
    expect(kindOf('/init/templates')).toBe('init_template');
    expect(kindOf('/account/ssh-keys')).toBe('ssh_key');
  });
});

describe('generic resources (webhooks as the example)', () => {
  it('create 201 → list (paged) → patch → delete → 404; items need their collection entry', () =>
    withSandbox({}, async (sb) => {
      const [id] = serverIds(sb);
      const base = `/servers/${id}/hooks`;
      const created = await call(sb, 'POST', base, { body: { url: 'https://example.com/h', events: ['server.started'] } });
      expect(created.status).toBe(201);
      const hook = created.body.data;
      expect(hook).toMatchObject({ object: 'server_hook', url: 'https://example.com/h' });
      expect(hook.created_at).toMatch(TIMESTAMP);
      await call(sb, 'POST', base, { body: { url: 'https://example.com/2', events: ['server.stopped'] } });
      const list = await call(sb, 'GET', `${base}?limit=1`);
      expect(list.body.pagination).toEqual({ total: 2, limit: 1, offset: 0, has_more: true });
      expect(list.body.data[0].id).toBe(hook.id);
      const patched = await call(sb, 'PATCH', `${base}/${hook.id}`, { body: { enabled: false } });
      expect(patched.body.data).toMatchObject({ id: hook.id, url: 'https://example.com/h', enabled: false });
      expect((await call(sb, 'GET', `${base}/${hook.id}/deliveries`)).status).toBe(200);
      expect((await call(sb, 'DELETE', `${base}/${hook.id}`)).status).toBe(200);
      expect((await call(sb, 'PATCH', `${base}/${hook.id}`, { body: { enabled: true } })).status).toBe(404);
      expect((await call(sb, 'GET', `${base}/${hook.id}/deliveries`)).body.error.code).toBe('not_found');
      expect((await call(sb, 'GET', base)).body.pagination.total).toBe(1);
    }));

  it('registry-declared required body fields give 422 validation_failed', () =>
    withSandbox({}, async (sb) => {
      const [id] = serverIds(sb);
      const r = await call(sb, 'POST', `/servers/${id}/hooks`, { body: { events: ['server.started'] } });
      expect(r.status).toBe(422);
      expect(r.body.error.errors).toEqual([{ field: 'url', message: expect.any(String) }]);
    }));

  it('deleting a server forgets its sub-resources', () =>
    withSandbox({}, async (sb) => {
      const [id] = serverIds(sb);
      await call(sb, 'POST', `/servers/${id}/hooks`, { body: { url: 'https://example.com/h' } });
      expect(sb.state.generic.collections.get(`/servers/${id}/hooks`)?.size).toBe(1);
      await call(sb, 'DELETE', `/servers/${id}`);
      expect(sb.state.generic.collections.get(`/servers/${id}/hooks`)).toBeUndefined();
    }));

  it('singletons: GET gives a default object, PUT/PATCH store it', () =>
    withSandbox({}, async (sb) => {
      const [id] = serverIds(sb);
      const path = `/servers/${id}/settings`;
      expect((await call(sb, 'GET', path)).body.data.object).toBe('server_setting');
      await call(sb, 'PATCH', path, { body: { description: 'hello' } });
      expect((await call(sb, 'GET', path)).body.data).toMatchObject({ description: 'hello' });
    }));

  it('202 operations with a job: the job is polled at the registry path until completed', () =>
    withSandbox({}, async (sb) => {
      const [id] = serverIds(sb);
      const r = await call(sb, 'POST', `/servers/${id}/addons/modpack`, { body: { project_id: 'abc' } });
      expect(r.status).toBe(202);
      expect(r.body.data).toMatchObject({ state: 'queued', progress: 0 });
      expect(r.body.data.object).toMatch(/_job$/);
      const done = await until(async () => {
        const j = (await call(sb, 'GET', `/servers/${id}/addons/modpack/jobs/${r.body.data.job_id}`)).body.data;
        return j.state === 'completed' ? j : undefined;
      });
      expect(done.progress).toBe(100);
    }));

  it('202 operations followed through server status set lifecycle_status, then clear it', () =>
    withSandbox({ timeScale: 0.3 }, async (sb) => {
      const [id] = serverIds(sb);
      const r = await call(sb, 'POST', `/servers/${id}/importer`, { body: {} });
      expect(r.status).toBe(202);
      expect((await call(sb, 'GET', `/servers/${id}/status`)).body.data.lifecycle_status).toBeTruthy();
      await until(async () => (await call(sb, 'GET', `/servers/${id}/status`)).body.data.lifecycle_status === undefined);
    }));
});
