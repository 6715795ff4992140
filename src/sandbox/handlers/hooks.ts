import type { SandboxContext } from '../context.js';
import { isoSeconds } from '../clock.js';
import { ApiFailure, fail, ok } from '../envelope.js';
import { pageOf, parsePaging } from '../paging.js';
import { isPrivateHost } from '../node/addresses.js';
import { familyState } from '../node/slots.js';
import { EVENT_TYPES } from '../../operations/vocabulary.js';
import { emitEvent, hookView, hooksOf, newSecret, type Hook } from '../node/webhooks.js';
import { genericHandler } from './generic.js';
import { optString, stringList } from './fields.js';
import type { HandlerMap, HandlerRequest } from './types.js';
import { asBoolean, bodyObject, serverOf } from './util.js';

// 02-endpoints-part-a.md "Webhooks" with the delivery contract of 01 "Webhooks (per server)"
// (node/webhooks.ts). Also the emitter that wraps a generic operation: git deploys (backups emit
// backup.completed when they finish, handlers/backups.ts).

/** Per-server webhook limit: the errors say one exists; the number is ours. */
export const HOOK_LIMIT = 10;

const LOCAL = new Set(['127.0.0.1', 'localhost', '[::1]']);

function vetUrl(ctx: SandboxContext, raw: unknown): string {
  if (typeof raw !== 'string') throw fail.badRequest('url is required');
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw fail.badRequest('url is not a valid URL');
  }
  if (familyState(ctx).allowLocalWebhooks && LOCAL.has(u.hostname) && (u.protocol === 'http:' || u.protocol === 'https:')) return u.href;
  if (u.protocol !== 'https:') throw fail.badRequest('url must be https');
  if (isPrivateHost(u.hostname)) throw fail.badRequest('url must not point at a private or reserved address');
  return u.href;
}

function vetEvents(body: Record<string, unknown>): string[] | undefined {
  const events = stringList(body, 'events');
  const unknown = events?.filter((e) => !(EVENT_TYPES as readonly string[]).includes(e)) ?? [];
  if (unknown.length) throw fail.badRequest(`Unknown event types: ${unknown.join(', ')}`);
  return events && [...new Set(events)];
}

function hookOf(req: HandlerRequest, ctx: SandboxContext): Hook {
  const h = hooksOf(ctx, serverOf(req, ctx).id).get(req.params.hook_id ?? '');
  if (!h) throw fail.notFound('Webhook not found');
  return h;
}

export const handlers: HandlerMap = {
  'GET /servers/{server_id}/hooks': (req, ctx) =>
    ({ status: 200, body: pageOf([...hooksOf(ctx, serverOf(req, ctx).id).values()].map(hookView), parsePaging(req.query)) }),

  'POST /servers/{server_id}/hooks': (req, ctx) => {
    const hooks = hooksOf(ctx, serverOf(req, ctx).id);
    const body = bodyObject(req);
    const url = vetUrl(ctx, body.url);
    const events = vetEvents(body) ?? [];
    const secret = optString(body, 'secret') ?? newSecret();
    if (secret.length < 16 || secret.length > 128) throw fail.badRequest('secret must be 16 to 128 characters');
    if (hooks.size >= HOOK_LIMIT) throw new ApiFailure(409, 'limit_reached', `At most ${HOOK_LIMIT} webhooks per server`);
    const now = isoSeconds();
    const hook: Hook = { id: `hook_${ctx.rng.hex(10)}`, url, events, enabled: true, consecutive_failures: 0, secret, created_at: now, updated_at: now, deliveries: [] };
    hooks.set(hook.id, hook);
    return ok({ ...hookView(hook), secret }, 201);
  },

  'PATCH /servers/{server_id}/hooks/{hook_id}': (req, ctx) => {
    const h = hookOf(req, ctx);
    const body = bodyObject(req);
    const url = body.url === undefined ? undefined : vetUrl(ctx, body.url);
    const events = vetEvents(body);
    const enabled = body.enabled === undefined ? undefined : asBoolean(body.enabled);
    if (enabled === undefined && body.enabled !== undefined) throw fail.badRequest('enabled must be a boolean');
    if (url !== undefined) h.url = url;
    if (events !== undefined) h.events = events;
    if (enabled === true) h.consecutive_failures = 0;
    if (enabled !== undefined) h.enabled = enabled;
    h.updated_at = isoSeconds();
    return ok(hookView(h));
  },

  'DELETE /servers/{server_id}/hooks/{hook_id}': (req, ctx) => {
    const h = hookOf(req, ctx);
    hooksOf(ctx, serverOf(req, ctx).id).delete(h.id);
    return ok({ object: 'server_hook', id: h.id, deleted: true });
  },

  'GET /servers/{server_id}/hooks/{hook_id}/deliveries': (req, ctx) =>
    ({ status: 200, body: pageOf(hookOf(req, ctx).deliveries, parsePaging(req.query)) }),

  // Emitters on generic families (see node/webhooks.ts for the list).
  'POST /servers/{server_id}/git/deploy': (req, ctx) => {
    const s = serverOf(req, ctx);
    const result = genericHandler(req, ctx);
    if (result.status < 300) ctx.clock.after(2000, () => emitEvent(ctx, s.id, 'git.deployment.completed', {}));
    return result;
  },
};
