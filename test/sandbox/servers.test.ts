import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { TIMESTAMP, call, serverIds, until, withSandbox } from './helpers.js';

// 02-endpoints-part-a.md "Servers" and "Account" (GET /applications); paging from
// 01-general-contract.md "Envelope rules" 5 and "Limits".

describe('demo data', () => {
  it('is deterministic from the seed, sorted by name, and sized by `servers`', async () => {
    const a = await startSandbox({ seed: 7, servers: 6 });
    const b = await startSandbox({ seed: 7, servers: 6 });
    const c = await startSandbox({ seed: 8, servers: 6 });
    try {
      const names = (sb: typeof a) => [...sb.state.servers.values()].map((s) => `${s.id}:${s.name}`).sort();
      expect(names(a)).toEqual(names(b));
      expect(names(a)).not.toEqual(names(c));
      const list = await call(a, 'GET', '/servers');
      const listed = list.body.data.map((s: { name: string }) => s.name);
      expect(listed).toHaveLength(6);
      expect(listed).toEqual([...listed].sort());
      expect(new Set(listed).size).toBe(6);
    } finally {
      await Promise.all([a.close(), b.close(), c.close()]);
    }
  });

  it('defaults to 3 servers', () => withSandbox({}, async (sb) => expect(sb.state.servers.size).toBe(3)));
});

describe('GET /servers', () => {
  it('clamps and echoes limit and offset', () =>
    withSandbox({ servers: 5 }, async (sb) => {
      const d = await call(sb, 'GET', '/servers');
      expect(d.body.pagination).toEqual({ total: 5, limit: 25, offset: 0, has_more: false });
      const low = await call(sb, 'GET', '/servers?limit=0&offset=-4');
      expect(low.body.pagination).toEqual({ total: 5, limit: 1, offset: 0, has_more: true });
      expect(low.body.data).toHaveLength(1);
      const high = await call(sb, 'GET', '/servers?limit=1000&offset=3');
      expect(high.body.pagination).toEqual({ total: 5, limit: 100, offset: 3, has_more: false });
      expect(high.body.data).toHaveLength(2);
      const mid = await call(sb, 'GET', '/servers?limit=2&offset=2');
      expect(mid.body.pagination.has_more).toBe(true);
      expect(mid.body.data.map((s: { id: string }) => s.id)).toEqual(serverIds(sb).slice(2, 4));
      const bad = await call(sb, 'GET', '/servers?limit=ten');
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe('bad_request');
    }));

  it('search is a case-insensitive name substring; include=status adds live status', () =>
    withSandbox({ servers: 8 }, async (sb) => {
      const target = [...sb.state.servers.values()][3]!;
      const needle = target.name.slice(1, 4).toUpperCase();
      const r = await call(sb, 'GET', `/servers?search=${encodeURIComponent(needle)}`);
      const names: string[] = r.body.data.map((s: { name: string }) => s.name);
      expect(names).toContain(target.name);
      for (const n of names) expect(n.toLowerCase()).toContain(needle.toLowerCase());
      expect(r.body.pagination.total).toBe(names.length);
      expect(r.body.data[0].status).toBeUndefined();
      const withStatus = await call(sb, 'GET', '/servers?include=status');
      for (const s of withStatus.body.data) {
        expect(s.object).toBe('server');
        expect(s.created_at).toMatch(TIMESTAMP);
        expect(s.status.object).toBe('server_status');
        expect(['offline', 'running']).toContain(s.status.state);
      }
    }));
});

describe('GET /applications', () => {
  it('filters by kind and free_tier; 400 for an invalid filter', () =>
    withSandbox({}, async (sb) => {
      const all = await call(sb, 'GET', '/applications');
      expect(all.status).toBe(200);
      expect(all.body.pagination).toBeUndefined();
      const kinds = new Set(all.body.data.map((a: { kind: string }) => a.kind));
      expect(kinds).toEqual(new Set(['game', 'application', 'database']));
      const games = await call(sb, 'GET', '/applications?kind=game&free_tier=false');
      expect(games.body.data.length).toBeGreaterThan(0);
      for (const a of games.body.data) expect(a).toMatchObject({ object: 'application', kind: 'game', free_tier: false });
      expect((await call(sb, 'GET', '/applications?kind=vm')).status).toBe(400);
      expect((await call(sb, 'GET', '/applications?free_tier=yes')).status).toBe(400);
    }));
});

describe('server creation', () => {
  it('POST /servers answers 202 with a job that goes queued → running → ready, and the server appears', () =>
    withSandbox({ timeScale: 0.2 }, async (sb) => {
      const r = await call(sb, 'POST', '/servers', { body: { name: 'new-lobby', application: 'minecraft', init: '#service-init\nversion: 1\n' } });
      expect(r.status).toBe(202);
      const job = r.body.data;
      expect(job).toMatchObject({ object: 'server_creation_job', state: 'queued', progress: 0 });
      expect(typeof job.job_id).toBe('string');
      expect(job.server_id).toBeUndefined();
      const states = new Set<string>();
      const done = await until(async () => {
        const j = (await call(sb, 'GET', `/account/servers/create-jobs/${job.job_id}`)).body.data;
        states.add(j.state);
        return j.state === 'ready' ? j : undefined;
      });
      expect(states.has('running')).toBe(true);
      expect(done.progress).toBe(100);
      const server = await call(sb, 'GET', `/servers/${done.server_id}`);
      expect(server.body.data).toMatchObject({ object: 'server', name: 'new-lobby', application: 'minecraft' });
      expect((await call(sb, 'GET', '/servers?search=new-lobby')).body.pagination.total).toBe(1);
      // With an init manifest, a provisioning job follows at GET /servers/{id}/init.
      const init = await until(async () => {
        const j = await call(sb, 'GET', `/servers/${done.server_id}/init`);
        return j.body.data?.state === 'completed' ? j.body.data : undefined;
      });
      expect(init.phases.map((p: { name: string }) => p.name)).toEqual(['content', 'files', 'env', 'registrations', 'run', 'finalize']);
    }));

  it('fail=true makes the job fail and creates no server', () =>
    withSandbox({}, async (sb) => {
      const before = sb.state.servers.size;
      const r = await call(sb, 'POST', '/servers', { body: { name: 'doomed', fail: true } });
      const job = await until(async () => {
        const j = (await call(sb, 'GET', `/account/servers/create-jobs/${r.body.data.job_id}`)).body.data;
        return j.state === 'failed' ? j : undefined;
      });
      expect(job.errors[0].message).toBeTruthy();
      await new Promise((res) => setTimeout(res, 150));
      expect(sb.state.servers.size).toBe(before);
    }));

  it('422 validation_failed with error.errors for a missing name or bad fields; 404 for an unknown job', () =>
    withSandbox({}, async (sb) => {
      const r = await call(sb, 'POST', '/servers', { body: { application: 'no-such-app' } });
      expect(r.status).toBe(422);
      expect(r.body.error.code).toBe('validation_failed');
      expect(r.body.error.errors.map((e: { field: string }) => e.field).sort()).toEqual(['application', 'name']);
      const badInit = await call(sb, 'POST', '/servers', { body: { name: 'x', init: 'version: 1' } });
      expect(badInit.body.error.errors[0].field).toBe('init');
      const tpl = await call(sb, 'POST', '/servers', { body: { name: 'x', template_id: 'tpl_missing' } });
      expect(tpl.body.error.errors[0].field).toBe('template_id');
      expect(sb.state.createJobs.size).toBe(0);
      expect((await call(sb, 'GET', '/account/servers/create-jobs/job_nope')).status).toBe(404);
    }));

  it('a paid-only application on the free plan is 402 free_plan_restricted', () =>
    withSandbox({}, async (sb) => {
      const r = await call(sb, 'POST', '/servers', { body: { name: 'v', application: 'valheim', plan: 'free' } });
      expect(r.status).toBe(402);
      expect(r.body.error.code).toBe('free_plan_restricted');
    }));
});

describe('server item operations', () => {
  it('GET, status, status-issues and DELETE (then 404)', () =>
    withSandbox({}, async (sb) => {
      const [id] = serverIds(sb);
      const s = await call(sb, 'GET', `/servers/${id}`);
      expect(s.body.data).toMatchObject({ object: 'server', id });
      const st = (await call(sb, 'GET', `/servers/${id}/status`)).body.data;
      expect(st).toMatchObject({ object: 'server_status', state: 'running', node_ready: true });
      for (const f of ['cpu_absolute', 'memory_bytes', 'memory_limit_bytes', 'disk_bytes', 'uptime']) expect(typeof st[f]).toBe('number');
      expect(st.network).toEqual({ rx_bytes: expect.any(Number), tx_bytes: expect.any(Number) });
      expect(st.lifecycle_status).toBeUndefined();
      expect(Array.isArray((await call(sb, 'GET', `/servers/${id}/status-issues`)).body.data)).toBe(true);
      const del = await call(sb, 'DELETE', `/servers/${id}`);
      expect(del.status).toBe(200);
      expect(sb.state.deletedServers).toEqual([id]);
      expect((await call(sb, 'GET', `/servers/${id}`)).status).toBe(404);
      expect((await call(sb, 'GET', `/servers/${id}/status`)).body.error.code).toBe('not_found');
    }));

  it('reinstall: 202, lifecycle_status shows progress then disappears; power meanwhile is 409 server_installing', () =>
    withSandbox({ timeScale: 0.3 }, async (sb) => {
      const [id] = serverIds(sb);
      const r = await call(sb, 'POST', `/servers/${id}/reinstall`, { body: { wipe: true } });
      expect(r.status).toBe(202);
      expect(sb.state.reinstalls).toEqual([expect.objectContaining({ serverId: id, wipe: true })]);
      const during = (await call(sb, 'GET', `/servers/${id}/status`)).body.data;
      expect(during).toMatchObject({ state: 'offline', lifecycle_status: 'reinstalling' });
      const power = await call(sb, 'POST', `/servers/${id}/power`, { body: { signal: 'start' } });
      expect(power.status).toBe(409);
      expect(power.body.error.code).toBe('server_installing');
      expect((await call(sb, 'POST', `/servers/${id}/reinstall`, { body: {} })).status).toBe(409);
      await until(async () => (await call(sb, 'GET', `/servers/${id}/status`)).body.data.lifecycle_status === undefined);
      expect((await call(sb, 'POST', `/servers/${id}/reinstall`, { body: { wipe: 'yes' } })).status).toBe(422);
    }));
});
