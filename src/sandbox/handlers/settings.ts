import type { SandboxContext } from '../context.js';
import { REGIONS, findApplication } from '../demo-data.js';
import { ApiFailure, fail, ok } from '../envelope.js';
import { serverSlot } from '../node/slots.js';
import { treeOf } from '../node/server-files.js';
import type { ServerRecord } from '../state.js';
import { mergeProperties, parseProperties } from './properties.js';
import { startupOf } from './startup.js';
import type { HandlerMap, HandlerRequest } from './types.js';
import { asBoolean, bodyObject, serverOf } from './util.js';

// 02-endpoints-part-a.md "Settings": settings with per-field permissions, resource limits
// (premium = paid plan here), the application switch, and transfer availability. The transfer
// itself (202, then status) is the generic transfer model.

/** Plan allowance for PUT /resources (the numbers are ours). */
export const ALLOWANCE = { memory_mb: 16_384, cpu_percent: 800, disk_mb: 102_400 } as const;

/** The writable fields: those the registry's per-field rule names (the pipeline checks their permissions). */
function writable(req: HandlerRequest): readonly string[] {
  const rule = req.op?.permission;
  return Object.keys((typeof rule === 'object' && rule.byField) || {});
}

interface Extra { done_message: string; stop_command: string; timezone: string; auto_stop?: unknown; start_on_join: boolean; autoupdate_mode: string }

const extraOf = (ctx: SandboxContext, s: ServerRecord) =>
  serverSlot<Extra>(ctx, s.id, 'settings', () => ({ done_message: ')! For help, type ', stop_command: 'stop', timezone: 'UTC', start_on_join: false, autoupdate_mode: 'off' }));

function view(ctx: SandboxContext, s: ServerRecord): Record<string, unknown> {
  const props = treeOf(ctx, s.id).get('/server.properties');
  const parsed = props ? parseProperties(props.data.toString('utf8')) : undefined;
  return {
    object: 'server_settings', name: s.name, ...(s.description ? { description: s.description } : {}), ...extraOf(ctx, s),
    ...(parsed?.has('online-mode') ? { online_mode: parsed.get('online-mode') === 'true' } : {}),
    ...(parsed?.has('motd') ? { motd: parsed.get('motd') } : {}),
  };
}

function writeProperty(ctx: SandboxContext, s: ServerRecord, key: string, value: string): void {
  const tree = treeOf(ctx, s.id);
  const e = tree.get('/server.properties');
  if (!e) throw new ApiFailure(502, 'upstream_error', 'The node has no server.properties to write');
  tree.write('/server.properties', mergeProperties(e.data.toString('utf8'), new Map([[key, value]])));
}

function text(v: unknown, field: string, max = 256): string {
  if (typeof v !== 'string' || v.length > max) throw fail.badRequest(`${field} must be a string of at most ${max} characters`);
  return v;
}

function applyField(ctx: SandboxContext, s: ServerRecord, field: string, v: unknown): void {
  const extra = extraOf(ctx, s);
  switch (field) {
    case 'name': {
      const name = text(v, 'name', 64).trim();
      if (!name) throw fail.badRequest('name must not be empty');
      s.name = name;
      return;
    }
    case 'description': s.description = text(v, 'description', 1024); return;
    case 'done_message': case 'stop_command': case 'timezone': case 'autoupdate_mode': extra[field] = text(v, field); return;
    case 'auto_stop': extra.auto_stop = v; return;
    case 'start_on_join': {
      const b = asBoolean(v);
      if (b === undefined) throw fail.badRequest('start_on_join must be a boolean');
      if (b && s.plan !== 'paid') throw new ApiFailure(402, 'free_plan_restricted', 'start_on_join needs a premium subscription');
      extra.start_on_join = b;
      return;
    }
    case 'online_mode': {
      const b = asBoolean(v);
      if (b === undefined) throw fail.badRequest('online_mode must be a boolean');
      writeProperty(ctx, s, 'online-mode', String(b));
      return;
    }
    case 'motd': writeProperty(ctx, s, 'motd', text(v, 'motd')); return;
  }
}

export const handlers: HandlerMap = {
  'GET /servers/{server_id}/resources': (req, ctx) => ok({ object: 'server_resources', ...serverOf(req, ctx).limits, allowance: ALLOWANCE }),

  // Fields memory_mb, cpu_percent, disk_mb (also memory, cpu, disk): within the allowance.
  'PUT /servers/{server_id}/resources': (req, ctx) => {
    const s = serverOf(req, ctx);
    if (s.plan !== 'paid') throw new ApiFailure(403, 'forbidden', 'Adjusting resources needs a premium plan');
    const body = bodyObject(req);
    const next = { ...s.limits };
    for (const [field, alias] of [['memory_mb', 'memory'], ['cpu_percent', 'cpu'], ['disk_mb', 'disk']] as const) {
      const v = body[field] ?? body[alias];
      if (v === undefined) continue;
      if (!Number.isInteger(v) || (v as number) < 1 || (v as number) > ALLOWANCE[field]) throw fail.badRequest(`${field} must be an integer from 1 to ${ALLOWANCE[field]}`);
      next[field] = v as number;
    }
    s.limits = next;
    return ok({ object: 'server_resources', ...s.limits, allowance: ALLOWANCE });
  },

  'GET /servers/{server_id}/settings': (req, ctx) => ok(view(ctx, serverOf(req, ctx))),

  // Each value is checked, then all are written (permissions: the pipeline, from the registry).
  'PATCH /servers/{server_id}/settings': (req, ctx) => {
    const s = serverOf(req, ctx);
    const body = bodyObject(req);
    const fields = Object.keys(body);
    if (!fields.length) throw fail.badRequest('Send at least one field');
    const unknown = fields.filter((f) => !writable(req).includes(f));
    if (unknown.length) throw fail.badRequest(`Not writable: ${unknown.join(', ')}`);
    for (const f of fields) applyField(ctx, s, f, body[f]);
    return ok(view(ctx, s));
  },

  'PUT /servers/{server_id}/settings/application': (req, ctx) => {
    const s = serverOf(req, ctx);
    const body = bodyObject(req);
    const given = (['application', 'version', 'image'] as const).filter((k) => body[k] !== undefined);
    if (given.length !== 1) throw fail.badRequest('Give exactly one of application, version, image');
    if (s.lifecycleStatus) throw new ApiFailure(409, 'server_installing', 'The server is installing');
    const field = given[0]!;
    const value = body[field];
    if (typeof value !== 'string' && typeof value !== 'number') throw fail.badRequest(`${field} must be a string`);
    if (field === 'application') {
      const app = findApplication(value);
      if (!app) throw fail.notFound('No such application');
      if (s.plan === 'free' && !app.free_tier) throw new ApiFailure(402, 'free_plan_restricted', `${app.name} is not on the free plan`);
      s.application = app.slug;
      ctx.lifecycle.reinstall(s, false);
      return ok({ object: 'server_application', application: app.slug, reinstalling: true });
    }
    const st = startupOf(ctx, s);
    if (field === 'image') {
      if (!st.images.includes(String(value))) throw fail.badRequest(`image must be one of ${st.images.join(', ')}`);
      st.image = String(value);
    } else {
      const v = st.variables.find((x) => x.key === 'MINECRAFT_VERSION');
      if (v) v.value = String(value);
    }
    return ok({ object: 'server_application', application: s.application, [field]: String(value) });
  },

  'GET /servers/{server_id}/settings/applications': (req, ctx) => {
    const s = serverOf(req, ctx);
    const groups = new Map<string, Array<Record<string, unknown>>>();
    for (const a of ctx.state.applications) {
      const list = groups.get(a.kind) ?? [];
      list.push({ ...a, current: a.slug === s.application });
      groups.set(a.kind, list);
    }
    return ok([...groups].map(([category, applications]) => ({ object: 'application_category', category, applications })));
  },

  'GET /servers/{server_id}/settings/transfer/availability': (req, ctx) => {
    const s = serverOf(req, ctx);
    return ok(REGIONS.map((region) => ({ object: 'transfer_region', region, current: region === s.region, available: region !== s.region })));
  },
};
