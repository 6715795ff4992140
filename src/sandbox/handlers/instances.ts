import type { SandboxContext } from '../context.js';
import { isoSeconds } from '../clock.js';
import { findApplication } from '../demo-data.js';
import { ApiFailure, fail, ok } from '../envelope.js';
import { pageOf, parsePaging } from '../paging.js';
import { serverSlot } from '../node/slots.js';
import type { ServerRecord } from '../state.js';
import { optString } from './fields.js';
import type { HandlerMap, HandlerRequest } from './types.js';
import { asBoolean, bodyObject, serverOf } from './util.js';

// 02-endpoints-part-a.md "Instances" and 01 "States and transitions" (instance activate: server
// must be offline). Clone jobs run queued → running → completed and then add the new instance.

export const INSTANCE_LIMIT = 10;

interface Instance {
  id: string; label: string; application: string; metadata: Record<string, unknown>;
  is_default: boolean; active: boolean; created_at: string;
}

interface CloneJob {
  object: 'instance_clone_job'; job_id: string; state: 'queued' | 'running' | 'completed';
  progress: number; message: string; source_instance_id: string; idempotency_key?: string;
  instance_id?: string; created_at: string;
}

interface Model { instances: Map<string, Instance>; jobs: CloneJob[] }

function modelOf(ctx: SandboxContext, s: ServerRecord): Model {
  return serverSlot(ctx, s.id, 'instances', () => ({ instances: new Map(), jobs: [] }));
}

/** "default parent profile created on first use" */
function instancesOf(ctx: SandboxContext, s: ServerRecord): Map<string, Instance> {
  const m = modelOf(ctx, s);
  if (!m.instances.size) {
    const id = `inst_${ctx.rng.hex(8)}`;
    m.instances.set(id, { id, label: 'Default', application: s.application, metadata: {}, is_default: true, active: true, created_at: isoSeconds() });
  }
  return m.instances;
}

const view = (i: Instance) => ({ object: 'server_instance', ...i });
const cloning = (m: Model, id?: string) => m.jobs.some((j) => j.state !== 'completed' && (id === undefined || j.source_instance_id === id));

function instanceOf(req: HandlerRequest, ctx: SandboxContext, param = 'instance_id'): Instance {
  const i = instancesOf(ctx, serverOf(req, ctx)).get(req.params[param] ?? '');
  if (!i) throw fail.notFound('Instance not found');
  return i;
}

function application(s: ServerRecord, raw: unknown): string {
  const app = findApplication(typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : raw);
  if (!app) throw fail.badRequest('Unknown application');
  if (s.plan === 'free' && !app.free_tier) throw new ApiFailure(402, 'free_plan_restricted', `${app.name} is not on the free plan`);
  return app.slug;
}

export const handlers: HandlerMap = {
  'GET /servers/{server_id}/instances': (req, ctx) =>
    ({ status: 200, body: pageOf([...instancesOf(ctx, serverOf(req, ctx)).values()].map(view), parsePaging(req.query)) }),

  'POST /servers/{server_id}/instances': (req, ctx) => {
    const s = serverOf(req, ctx);
    const all = instancesOf(ctx, s);
    const body = bodyObject(req);
    if (all.size >= INSTANCE_LIMIT) throw new ApiFailure(409, 'limit_reached', `At most ${INSTANCE_LIMIT} instances per server`);
    const active = [...all.values()].find((i) => i.active)!;
    const app = body.target_config_id === undefined ? active.application : application(s, body.target_config_id);
    const id = `inst_${ctx.rng.hex(8)}`;
    const inst: Instance = { id, label: optString(body, 'label') ?? `Instance ${all.size + 1}`, application: app, metadata: {}, is_default: false, active: false, created_at: isoSeconds() };
    all.set(id, inst);
    return ok(view(inst));
  },

  'GET /servers/{server_id}/instances/clone-jobs': (req, ctx) =>
    ({ status: 200, body: pageOf(modelOf(ctx, serverOf(req, ctx)).jobs.map((j) => ({ ...j })), parsePaging(req.query)) }),

  'GET /servers/{server_id}/instances/clone-jobs/{job_id}': (req, ctx) => {
    const job = modelOf(ctx, serverOf(req, ctx)).jobs.find((j) => j.job_id === req.params.job_id);
    if (!job) throw fail.notFound('Clone job not found');
    return ok({ ...job });
  },

  'PATCH /servers/{server_id}/instances/{instance_id}': (req, ctx) => {
    const s = serverOf(req, ctx);
    const inst = instanceOf(req, ctx);
    const body = bodyObject(req);
    if (cloning(modelOf(ctx, s), inst.id)) throw fail.conflict('A clone of this instance is in progress');
    const label = optString(body, 'label');
    const app = body.application === undefined ? undefined : application(s, body.application);
    if (body.metadata !== undefined && (body.metadata === null || typeof body.metadata !== 'object' || Array.isArray(body.metadata))) throw fail.badRequest('metadata must be an object');
    if (app !== undefined && app !== inst.application && inst.active && s.state !== 'offline') throw fail.conflict('Changing the active instance\'s application needs the server offline');
    if (label !== undefined) inst.label = label;
    if (app !== undefined) inst.application = app;
    if (body.metadata !== undefined) inst.metadata = { ...inst.metadata, ...(body.metadata as Record<string, unknown>) };
    return ok(view(inst));
  },

  'DELETE /servers/{server_id}/instances/{instance_id}': (req, ctx) => {
    const s = serverOf(req, ctx);
    const inst = instanceOf(req, ctx);
    if (inst.is_default || inst.active) throw fail.badRequest('The default and the active instance cannot be deleted');
    if (cloning(modelOf(ctx, s), inst.id)) throw fail.conflict('A clone of this instance is in progress');
    instancesOf(ctx, s).delete(inst.id);
    return ok({ ...view(inst), deleted: true });
  },

  'POST /servers/{server_id}/instances/{instance_id}/activate': (req, ctx) => {
    const s = serverOf(req, ctx);
    const inst = instanceOf(req, ctx);
    const raw = req.query.reinstall;
    const reinstall = raw === undefined ? false : asBoolean(Array.isArray(raw) ? raw[raw.length - 1] : raw);
    if (reinstall === undefined) throw fail.badRequest('reinstall must be true or false');
    if (s.state !== 'offline') throw fail.conflict(`The server is ${s.state}; activation needs it offline`);
    if (cloning(modelOf(ctx, s))) throw fail.conflict('A clone is in progress');
    for (const i of instancesOf(ctx, s).values()) i.active = i === inst;
    s.application = inst.application;
    if (reinstall) ctx.lifecycle.reinstall(s, false);
    return ok({ ...view(inst), reinstalling: reinstall });
  },

  'POST /servers/{server_id}/instances/{source_instance_id}/clone': (req, ctx) => {
    const s = serverOf(req, ctx);
    const source = instanceOf(req, ctx, 'source_instance_id');
    const m = modelOf(ctx, s);
    const key = optString(bodyObject(req), 'idempotency_key');
    const same = key !== undefined ? m.jobs.find((j) => j.idempotency_key === key) : undefined;
    if (same) return ok({ ...same }, 202);
    if (source.active && s.state !== 'offline') throw fail.conflict('The source instance is running');
    if (m.instances.size >= INSTANCE_LIMIT) throw new ApiFailure(409, 'limit_reached', `At most ${INSTANCE_LIMIT} instances per server`);
    if (cloning(m)) throw fail.conflict('Another clone is active');
    const job: CloneJob = {
      object: 'instance_clone_job', job_id: `clone_${ctx.rng.hex(10)}`, state: 'queued', progress: 0, message: 'Queued',
      source_instance_id: source.id, ...(key !== undefined ? { idempotency_key: key } : {}), created_at: isoSeconds(),
    };
    m.jobs.unshift(job);
    ctx.clock.after(1000, () => Object.assign(job, { state: 'running', progress: 50, message: 'Copying files' }));
    ctx.clock.after(2500, () => {
      const id = `inst_${ctx.rng.hex(8)}`;
      m.instances.set(id, { ...source, id, label: `${source.label} (copy)`, is_default: false, active: false, metadata: { ...source.metadata }, created_at: isoSeconds() });
      Object.assign(job, { state: 'completed', progress: 100, message: 'Completed', instance_id: id });
    });
    return ok({ ...job }, 202);
  },
};
