import { findApplication } from '../demo-data.js';
import { ApiFailure, fail, ok, type FieldError } from '../envelope.js';
import { pageOf, parsePaging } from '../paging.js';
import { queryValue } from '../request.js';
import { serverObject, sortedServers, type ServerRecord } from '../state.js';
import { isoSeconds } from '../clock.js';
import { DURATIONS } from '../lifecycle.js';
import { startProvisioning } from '../init/provisioning.js';
import { resolveInit } from '../init/resolve.js';
import { canReach, holds } from '../permissions.js';
import type { HandlerMap } from './types.js';
import { asBoolean, bodyObject, serverOf } from './util.js';

// 02-endpoints-part-a.md "Servers" (and the console status/queue reads that share their model).

const MAX_NAME = 64;

export const handlers: HandlerMap = {
  'GET /servers': (req, ctx) => {
    const paging = parsePaging(req.query);
    const search = queryValue(req.query, 'search')?.toLowerCase();
    const includes = new Set((Array.isArray(req.query.include) ? req.query.include : [req.query.include ?? ''])
      .flatMap((v) => v.split(',')).map((v) => v.trim()));
    const servers = sortedServers(ctx.state).filter((s) => (!search || s.name.toLowerCase().includes(search)) && canReach(ctx, req.principal, s.id));
    const page = pageOf(servers, paging);
    return {
      status: 200,
      body: {
        // include=status: "only for servers whose console the key's user may access".
        data: page.data.map((s) => ({
          ...serverObject(s),
          ...(includes.has('status') && holds(ctx, req.principal, s.id, 'control.console') ? { status: ctx.lifecycle.status(s) } : {}),
        })),
        pagination: page.pagination,
      },
    };
  },

  // Body: `name` (required), `application` (slug or id, default minecraft), `plan` (free|paid;
  // default free when the application is on the free tier, else paid), `region`, `description`,
  // `init` (manifest text or object), `template_id`; sandbox-only `fail: true` makes the job fail.
  'POST /servers': (req, ctx) => {
    const body = bodyObject(req);
    const errors: FieldError[] = [];
    const name = body.name;
    if (name === undefined || name === null || name === '') errors.push({ field: 'name', message: 'name is required' });
    else if (typeof name !== 'string') errors.push({ field: 'name', message: 'name must be a string' });
    else if (name.length > MAX_NAME) errors.push({ field: 'name', message: `name must be at most ${MAX_NAME} characters` });
    const app = findApplication(body.application ?? 'minecraft');
    if (!app) errors.push({ field: 'application', message: 'unknown application; see GET /applications' });
    const plan = body.plan ?? (app && !app.free_tier ? 'paid' : 'free');
    if (plan !== 'free' && plan !== 'paid') errors.push({ field: 'plan', message: 'plan must be free or paid' });
    for (const f of ['region', 'description'] as const) {
      if (body[f] !== undefined && typeof body[f] !== 'string') errors.push({ field: f, message: `${f} must be a string` });
    }
    // "server creation re-validates at the server's real tier" (01 "Caps by plan").
    const withInit = body.init !== undefined || body.template_id !== undefined;
    const init = withInit && (plan === 'free' || plan === 'paid') ? resolveInit(ctx, body, plan) : undefined;
    errors.push(...(init?.errors ?? []));
    const manifest = init?.manifest;
    const failOnPurpose = body.fail === undefined ? false : asBoolean(body.fail);
    if (failOnPurpose === undefined) errors.push({ field: 'fail', message: 'fail must be a boolean' });
    if (errors.length) throw fail.validation(errors);
    if (plan === 'free' && app && !app.free_tier) {
      throw new ApiFailure(402, 'free_plan_restricted', `${app.name} is not available on the free plan`);
    }
    const job = ctx.lifecycle.createServer({
      name: name as string,
      application: app!.slug,
      plan: plan as 'free' | 'paid',
      ...(typeof body.region === 'string' ? { region: body.region } : {}),
      ...(typeof body.description === 'string' ? { description: body.description } : {}),
      failOnPurpose: failOnPurpose === true,
      ...(manifest ? { onReady: (s: ServerRecord) => startProvisioning(ctx, s, manifest) } : {}),
    });
    return ok({ ...job }, 202);
  },

  'GET /account/servers/create-jobs/{job_id}': (req, ctx) => {
    const job = ctx.state.createJobs.get(req.params.job_id ?? '');
    if (!job) throw fail.notFound('Creation job not found');
    return ok({ ...job });
  },

  'GET /servers/{server_id}': (req, ctx) => ok(serverObject(serverOf(req, ctx))),

  'DELETE /servers/{server_id}': (req, ctx) => {
    const s = serverOf(req, ctx);
    ctx.lifecycle.deleteServer(s);
    return ok({ ...serverObject(s), deleted: true });
  },

  'POST /servers/{server_id}/reinstall': (req, ctx) => {
    const s = serverOf(req, ctx);
    const body = bodyObject(req);
    const wipe = body.wipe === undefined ? false : asBoolean(body.wipe);
    if (wipe === undefined) throw fail.validation([{ field: 'wipe', message: 'wipe must be a boolean' }]);
    ctx.lifecycle.reinstall(s, wipe);
    return ok({ object: 'server_reinstall', server_id: s.id, wipe, lifecycle_status: s.lifecycleStatus }, 202);
  },

  'GET /servers/{server_id}/status': (req, ctx) => ok(ctx.lifecycle.status(serverOf(req, ctx))),
  'GET /servers/{server_id}/console/status': (req, ctx) => ok(ctx.lifecycle.status(serverOf(req, ctx))),

  'GET /servers/{server_id}/console/queue-status': (req, ctx) => {
    const s = serverOf(req, ctx);
    if (s.queuedSince === undefined) return ok({ object: 'startup_queue_status', queued: false });
    const waited = (Date.now() - s.queuedSince) / 1000;
    return ok({
      object: 'startup_queue_status',
      queued: true,
      status: 'waiting',
      position: 1,
      estimated_wait: Math.max(0, Math.ceil((DURATIONS.queueWait / 1000) * ctx.clock.timeScale - waited)),
      boost: false,
    });
  },

  // Stored servers' storage nodes carry a maintenance notice; others have none.
  'GET /servers/{server_id}/status-issues': (req, ctx) => {
    const s = serverOf(req, ctx);
    const issues = s.stored
      ? [{
          object: 'status_issue', id: `issue_${s.node}`, scope: 'node', kind: 'notice',
          title: `Storage node ${s.node}: servers are moved to a runtime node on start`,
          started_at: isoSeconds(s.createdAt),
        }]
      : [];
    return ok(issues);
  },
};
