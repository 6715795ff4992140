import { describe, expect, it } from 'vitest';
import { call, until, withSandbox } from '../helpers.js';
import type { Sandbox } from '../../../src/sandbox/index.js';

// 02-endpoints-part-a.md "Instances" and 01-general-contract.md "States and transitions"
// (instance activate: the server must be offline; "Limits": instances per server 10).

const offline = (sb: Sandbox) => [...sb.state.servers.values()].find((s) => s.state === 'offline' && !s.stored && !s.startupQueue)!.id;
const running = (sb: Sandbox) => [...sb.state.servers.values()].find((s) => s.state === 'running')!.id;

describe('instances', () => {
  it('creates the default profile on first use; create answers 200; at most 10', () =>
    withSandbox({ servers: 4 }, async (sb) => {
      const base = `/servers/${offline(sb)}/instances`;
      const first = await call(sb, 'GET', base);
      expect(first.body.data).toEqual([expect.objectContaining({ object: 'server_instance', is_default: true, active: true })]);
      const made = await call(sb, 'POST', base, { body: { target_config_id: 'terraria' } });
      expect(made.status).toBe(200);
      expect(made.body.data).toMatchObject({ application: 'terraria', active: false });
      for (let i = 2; i < 10; i++) expect((await call(sb, 'POST', base, { body: {} })).status).toBe(200);
      const over = await call(sb, 'POST', base, { body: {} });
      expect(over.body.error.code).toBe('limit_reached');
      expect((await call(sb, 'GET', `${base}?limit=100`)).body.pagination.total).toBe(10);
    }));

  it('activates only while offline; the default and the active one cannot be deleted', () =>
    withSandbox({ servers: 4 }, async (sb) => {
      const on = `/servers/${running(sb)}/instances`;
      const other = (await call(sb, 'POST', on, { body: {} })).body.data;
      expect((await call(sb, 'POST', `${on}/${other.id}/activate`)).status).toBe(409);

      const base = `/servers/${offline(sb)}/instances`;
      const def = (await call(sb, 'GET', base)).body.data[0];
      const inst = (await call(sb, 'POST', base, { body: {} })).body.data;
      const act = await call(sb, 'POST', `${base}/${inst.id}/activate`);
      expect(act.body.data).toMatchObject({ id: inst.id, active: true });
      expect((await call(sb, 'DELETE', `${base}/${inst.id}`)).status).toBe(400);
      expect((await call(sb, 'DELETE', `${base}/${def.id}`)).status).toBe(400);
      await call(sb, 'POST', `${base}/${def.id}/activate`);
      expect((await call(sb, 'DELETE', `${base}/${inst.id}`)).status).toBe(200);
    }));

  it('clone: 202 with a job, idempotency_key returns the same job, the copy appears when it completes', () =>
    // Manual time: the job stays under way until the test moves the clock (on a busy machine a
    // real-time job finished before the second clone was sent, which then was not refused).
    withSandbox({ servers: 4, manualTime: true }, async (sb) => {
      const base = `/servers/${offline(sb)}/instances`;
      const def = (await call(sb, 'GET', base)).body.data[0];
      const started = await call(sb, 'POST', `${base}/${def.id}/clone`, { body: { idempotency_key: 'k1' } });
      expect(started.status).toBe(202);
      expect(started.body.data).toMatchObject({ object: 'instance_clone_job', state: 'queued', source_instance_id: def.id });
      const same = await call(sb, 'POST', `${base}/${def.id}/clone`, { body: { idempotency_key: 'k1' } });
      expect(same.body.data.job_id).toBe(started.body.data.job_id);
      expect((await call(sb, 'POST', `${base}/${def.id}/clone`, { body: {} })).status).toBe(409);
      const done = await until(async () => {
        sb.extensions.context.clock.advance(1000);
        const j = (await call(sb, 'GET', `${base}/clone-jobs/${started.body.data.job_id}`)).body.data;
        return j.state === 'completed' ? j : undefined;
      });
      expect((await call(sb, 'GET', base)).body.data.map((i: { id: string }) => i.id)).toContain(done.instance_id);
      expect((await call(sb, 'GET', `${base}/clone-jobs`)).body.data[0].job_id).toBe(done.job_id);
    }));
});
