import { TIERS, type Tier } from '../../init/caps.js';
import { isoSeconds } from '../clock.js';
import { ApiFailure, fail, ok } from '../envelope.js';
import { checkManifest } from '../init/manifest.js';
import { resolveInit, templatesOf } from '../init/resolve.js';
import { pageOf, parsePaging } from '../paging.js';
import type { HandlerMap, HandlerRequest } from './types.js';
import { bodyObject, serverOf } from './util.js';
import type { SandboxContext } from '../context.js';

// 02-endpoints-part-a.md "Init templates and manifest validation". Templates are validated at the
// paid caps when saved; names are unique per account (compared case-insensitively here); a
// template's manifest body field is `manifest` (the name is not shown; the resource table's word)
// and its problems are reported under `manifest.`, as /init/validate reports under `init.` the
// field it was given. Limits the contract leaves unstated, chosen here: name 1-64 characters,
// description up to 500, at most 100 templates per account (409 limit_reached beyond).

const MAX_NAME = 64;
const MAX_DESCRIPTION = 500;
export const MAX_TEMPLATES = 100;

type Template = Record<string, unknown>;

function checkText(body: Record<string, unknown>, key: 'name' | 'description', max: number, required: boolean): string | undefined {
  const v = body[key];
  if (v === undefined || v === null) {
    if (required) throw fail.badRequest(`${key} is required`);
    return undefined;
  }
  if (typeof v !== 'string') throw fail.badRequest(`${key} must be a string`);
  if (key === 'name' && v.trim() === '') throw fail.badRequest('name must not be empty');
  if ([...v].length > max) throw fail.badRequest(`${key} must be at most ${max} characters`);
  return v;
}

function assertUniqueName(ctx: SandboxContext, name: string, except?: string): void {
  for (const [id, t] of templatesOf(ctx)) {
    if (id !== except && String(t.name).toLowerCase() === name.toLowerCase()) {
      throw fail.conflict(`A template named ${String(t.name)} already exists (${id})`);
    }
  }
}

/** 422 with the linter's errors at paid caps, under `manifest.`. */
function assertValidManifest(value: unknown): void {
  if (value === undefined || value === null) throw fail.validation([{ field: 'manifest', message: 'manifest is required' }]);
  const { errors } = checkManifest(value, 'paid', 'manifest');
  if (errors.length) throw fail.validation(errors, 'The manifest is not valid at the paid caps');
}

function templateOf(req: HandlerRequest, ctx: SandboxContext): Template {
  const t = templatesOf(ctx).get(req.params.template_id ?? '');
  if (!t) throw fail.notFound('Init template not found');
  return t;
}

function tierOf(value: unknown): Tier {
  if (value === undefined || value === null) return 'paid';
  if (typeof value !== 'string' || !(TIERS as readonly string[]).includes(value)) {
    throw fail.badRequest(`tier must be one of ${TIERS.join(', ')}`);
  }
  return value as Tier;
}

export const handlers: HandlerMap = {
  'GET /init/templates': (req, ctx) => {
    const newestFirst = [...templatesOf(ctx).values()].reverse();
    return { status: 200, body: pageOf(newestFirst, parsePaging(req.query)) };
  },

  'POST /init/templates': (req, ctx) => {
    const body = bodyObject(req);
    const name = checkText(body, 'name', MAX_NAME, true) as string;
    const description = checkText(body, 'description', MAX_DESCRIPTION, false);
    assertValidManifest(body.manifest);
    assertUniqueName(ctx, name);
    const store = templatesOf(ctx);
    if (store.size >= MAX_TEMPLATES) throw new ApiFailure(409, 'limit_reached', `An account can keep at most ${MAX_TEMPLATES} init templates`);
    const now = isoSeconds();
    const template: Template = {
      object: 'init_template', id: `tpl_${ctx.rng.hex(10)}`, name,
      ...(description ? { description } : {}),
      manifest: body.manifest, created_at: now, updated_at: now,
    };
    store.set(template.id as string, template);
    return ok(template, 201);
  },

  'GET /init/templates/{template_id}': (req, ctx) => ok(templateOf(req, ctx)),

  'PATCH /init/templates/{template_id}': (req, ctx) => {
    const template = templateOf(req, ctx);
    const body = bodyObject(req);
    const name = checkText(body, 'name', MAX_NAME, false);
    const description = checkText(body, 'description', MAX_DESCRIPTION, false);
    if (body.manifest !== undefined) assertValidManifest(body.manifest);
    if (name !== undefined) assertUniqueName(ctx, name, template.id as string);
    Object.assign(template, {
      ...(name !== undefined ? { name } : {}),
      ...(description !== undefined ? { description } : {}),
      ...(body.manifest !== undefined ? { manifest: body.manifest } : {}),
      updated_at: isoSeconds(),
    });
    return ok(template);
  },

  'DELETE /init/templates/{template_id}': (req, ctx) => {
    const template = templateOf(req, ctx);
    templatesOf(ctx).delete(template.id as string);
    return ok({ object: 'init_template', id: template.id, deleted: true });
  },

  // Dry run: provisions nothing. The default tier is paid, the tier templates are saved at.
  'POST /init/validate': (req, ctx) => {
    const body = bodyObject(req);
    if (body.init === undefined && body.template_id === undefined) throw fail.badRequest('Give init, template_id, or both');
    const tier = tierOf(body.tier);
    const { errors, warnings } = resolveInit(ctx, body, tier);
    if (errors.length) throw fail.validation(errors, `The manifest is not valid at the ${tier} caps`);
    return ok({
      object: 'init_validation', valid: true, tier,
      ...(typeof body.template_id === 'string' ? { template_id: body.template_id } : {}),
      warnings,
    });
  },

  'GET /servers/{server_id}/init': (req, ctx) => {
    const s = serverOf(req, ctx);
    const job = ctx.state.jobs.get(`/servers/${s.id}/init`);
    if (!job) throw fail.notFound('This server never ran init');
    return ok(structuredClone(job));
  },
};
