import { describe, expect, it } from 'vitest';
import { loadAllFamilies } from '../../src/operations/index.js';
import { kindOf } from '../../src/sandbox/handlers/generic.js';
import { handlerMaps } from '../../src/sandbox/handler-maps.js';
import { TIMESTAMP, call, serverIds, until, withSandbox } from './helpers.js';

// Generic behaviour for registry operations without specific semantics: routing by the
// registry and the envelopes of 01-general-contract.md "Envelope rules" 5 and 6.

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
        if (!ops.has(key)) expect(typeof h === 'object' && (h.auth !== undefined || h.scope), key).toBeTruthy();
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

describe('generic resources (families without specific semantics)', () => {
  it('create 201 → list (paged) → delete → 404; items need their collection entry', () =>
    withSandbox({}, async (sb) => {
      const base = '/account/ssh-keys';
      const created = await call(sb, 'POST', base, { body: { name: 'laptop', public_key: 'ssh-ed25519 AAAA' } });
      expect(created.status).toBe(201);
      const key = created.body.data;
      expect(key).toMatchObject({ object: 'ssh_key', name: 'laptop' });
      expect(key.created_at).toMatch(TIMESTAMP);
      await call(sb, 'POST', base, { body: { name: 'desktop', public_key: 'ssh-ed25519 BBBB' } });
      const list = await call(sb, 'GET', `${base}?limit=1`);
      expect(list.body.pagination).toEqual({ total: 2, limit: 1, offset: 0, has_more: true });
      expect(list.body.data[0].id).toBe(key.id);
      expect((await call(sb, 'DELETE', `${base}/${key.id}`)).status).toBe(200);
      expect((await call(sb, 'DELETE', `${base}/${key.id}`)).status).toBe(404);
      expect((await call(sb, 'GET', base)).body.pagination.total).toBe(1);

      const [id] = serverIds(sb);
      const db = (await call(sb, 'POST', `/servers/${id}/databases`, { body: { name: 'main' } })).body.data;
      expect((await call(sb, 'GET', `/servers/${id}/databases/${db.id}/backups`)).status).toBe(200);
      expect((await call(sb, 'GET', `/servers/${id}/databases/nope/backups`)).body.error.code).toBe('not_found');
    }));

  it('registry-declared body field types give 422 validation_failed', () =>
    withSandbox({}, async (sb) => {
      const [id] = serverIds(sb);
      const r = await call(sb, 'PUT', `/servers/${id}/settings/crash-config`, { body: { max_crashes: 'three' } });
      expect(r.status).toBe(422);
      expect(r.body.error.errors).toEqual([{ field: 'max_crashes', message: expect.any(String) }]);
    }));

  it('deleting a server forgets its sub-resources', () =>
    withSandbox({}, async (sb) => {
      const [id] = serverIds(sb);
      await call(sb, 'POST', `/servers/${id}/databases`, { body: { name: 'main' } });
      expect(sb.state.generic.collections.get(`/servers/${id}/databases`)?.size).toBe(1);
      await call(sb, 'DELETE', `/servers/${id}`);
      expect(sb.state.generic.collections.get(`/servers/${id}/databases`)).toBeUndefined();
    }));

  it('singletons: GET gives a default object, PUT/PATCH store it', () =>
    withSandbox({}, async (sb) => {
      const [id] = serverIds(sb);
      const path = `/servers/${id}/backups/auto-settings`;
      expect((await call(sb, 'GET', path)).body.data.object).toBe('server_auto_setting');
      await call(sb, 'PATCH', path, { body: { interval_hours: 6 } });
      expect((await call(sb, 'GET', path)).body.data).toMatchObject({ interval_hours: 6 });
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
