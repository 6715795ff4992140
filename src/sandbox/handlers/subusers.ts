import type { SandboxContext } from '../context.js';
import { ApiFailure, fail, ok } from '../envelope.js';
import { pageOf, parsePaging } from '../paging.js';
import { PERMISSIONS } from '../../operations/vocabulary.js';
import { grant, subusersOf, usersOf, type SubuserEntry } from '../permissions.js';
import { stringList } from './fields.js';
import type { HandlerMap, HandlerRequest } from './types.js';
import { bodyObject, serverOf } from './util.js';

// 02-endpoints-part-a.md "Subusers". Granted permissions take effect at once for keys acting as
// that user (permissions.ts). Panel users the sandbox knows: the owner, alex, sam, kim
// (<name>@example.com, ids 101-103) and the users made for subuser keys.

function view(ctx: SandboxContext, e: SubuserEntry): Record<string, unknown> {
  const u = usersOf(ctx).users.get(e.user_id);
  return { object: 'server_subuser', user_id: e.user_id, username: u?.username, email: u?.email, permissions: e.permissions, created_at: e.created_at };
}

function permissionsOf(body: Record<string, unknown>): string[] {
  const list = stringList(body, 'permissions') ?? [];
  const bad = list.filter((p) => !(PERMISSIONS as readonly string[]).includes(p));
  if (bad.length) throw fail.badRequest(`Invalid permissions: ${bad.join(', ')}`);
  return list;
}

/** The caller's panel user id (the owner's is the account id). */
const callerId = (req: HandlerRequest, ctx: SandboxContext) => req.principal?.userId ?? ctx.state.account.id;

function notSelf(req: HandlerRequest, ctx: SandboxContext, userId: number): void {
  if (userId === callerId(req, ctx) || userId === ctx.state.account.id) throw new ApiFailure(403, 'forbidden', 'You cannot modify your own entry or the owner');
}

function existing(req: HandlerRequest, ctx: SandboxContext): SubuserEntry {
  const id = Number(req.params.user_id);
  const e = Number.isInteger(id) ? subusersOf(ctx, serverOf(req, ctx).id).get(id) : undefined;
  if (!e) throw fail.notFound('Subuser not found');
  return e;
}

export const handlers: HandlerMap = {
  'GET /servers/{server_id}/subusers': (req, ctx) =>
    ({ status: 200, body: pageOf([...subusersOf(ctx, serverOf(req, ctx).id).values()].map((e) => view(ctx, e)), parsePaging(req.query)) }),

  'POST /servers/{server_id}/subusers': (req, ctx) => {
    const s = serverOf(req, ctx);
    const body = bodyObject(req);
    const given = (['email', 'username', 'user_id'] as const).filter((k) => body[k] !== undefined && body[k] !== null);
    if (given.length !== 1) throw fail.badRequest('Give exactly one of email, username, user_id');
    const permissions = permissionsOf(body);
    const users = [...usersOf(ctx).users.values()];
    const key = given[0]!;
    const target = key === 'user_id'
      ? users.find((u) => u.id === Number(body.user_id))
      : users.find((u) => String(body[key]).toLowerCase() === u[key].toLowerCase());
    if (!target) throw fail.notFound('No such user');
    notSelf(req, ctx, target.id);
    return ok(view(ctx, grant(ctx, s.id, target.id, permissions)), 201);
  },

  'PUT /servers/{server_id}/subusers/{user_id}': (req, ctx) => {
    const e = existing(req, ctx);
    notSelf(req, ctx, e.user_id);
    return ok(view(ctx, grant(ctx, serverOf(req, ctx).id, e.user_id, permissionsOf(bodyObject(req)))));
  },

  'DELETE /servers/{server_id}/subusers/{user_id}': (req, ctx) => {
    const e = existing(req, ctx);
    notSelf(req, ctx, e.user_id);
    subusersOf(ctx, serverOf(req, ctx).id).delete(e.user_id);
    return ok({ ...view(ctx, e), deleted: true });
  },
};
