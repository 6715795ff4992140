import type { Operation, PermissionMap, PermissionRule } from '../operations/types.js';
import type { Principal } from './auth.js';
import type { SandboxContext } from './context.js';
import { isoSeconds } from './clock.js';
import { ApiFailure } from './envelope.js';
import { serverSlot } from './node/slots.js';

// Server permissions (01-general-contract.md "Permission names used by endpoints"; "Authentication"
// rule 5: per-operation access needs the owner role or the named permission). A credential acts as
// the account owner unless it was made for a panel user (Sandbox.createKey `subuser`, admin
// POST /__sandbox/keys `subuser`); such a user reaches only servers where they are a subuser
// (others answer 404, invisible) and needs the operation's permission there (403 otherwise). The
// rule is the registry's `permission` structure (operations/types.ts), checked here only.

export interface PanelUser {
  id: number;
  username: string;
  email: string;
}

export interface SubuserEntry {
  user_id: number;
  permissions: string[];
  created_at: string;
}

interface Directory {
  users: Map<number, PanelUser>;
  next: number;
}

const directories = new WeakMap<SandboxContext, Directory>();

/** Panel users the sandbox knows: the owner and a few people to invite. */
export function usersOf(ctx: SandboxContext): Directory {
  let d = directories.get(ctx);
  if (!d) {
    const owner = ctx.state.account;
    d = { users: new Map(), next: 200 };
    d.users.set(owner.id, { id: owner.id, username: owner.username, email: `${owner.username}@example.com` });
    for (const [id, name] of [[101, 'alex'], [102, 'sam'], [103, 'kim']] as const) {
      d.users.set(id, { id, username: name, email: `${name}@example.com` });
    }
    directories.set(ctx, d);
  }
  return d;
}

export function subusersOf(ctx: SandboxContext, serverId: string): Map<number, SubuserEntry> {
  return serverSlot(ctx, serverId, 'subusers', () => new Map<number, SubuserEntry>());
}

export function grant(ctx: SandboxContext, serverId: string, userId: number, permissions: readonly string[]): SubuserEntry {
  const map = subusersOf(ctx, serverId);
  const entry: SubuserEntry = { user_id: userId, permissions: [...new Set(permissions)], created_at: map.get(userId)?.created_at ?? isoSeconds() };
  map.set(userId, entry);
  return entry;
}

/** A new panel user who is a subuser of `serverId` with `permissions`, and a key acting as them. */
export function createSubuserKey(
  ctx: SandboxContext,
  scopes: string[],
  sub: { serverId: string; permissions: readonly string[] },
  opts: { rateLimit: number; name?: string },
): { secret: string; userId: number } {
  const dir = usersOf(ctx);
  const id = dir.next++;
  dir.users.set(id, { id, username: `subuser${id}`, email: `subuser${id}@example.com` });
  if (ctx.state.servers.has(sub.serverId)) grant(ctx, sub.serverId, id, sub.permissions);
  const key = ctx.keys.create(scopes, { ...opts, userId: id });
  return { secret: key.secret, userId: id };
}

/**
 * The permissions a request needs on its path server, read from the registry rule and the body:
 * `allOf`, plus the `byField` entries of the fields given and the `byValue` entry of the value
 * given. Own keys only, so a body value such as "constructor" finds nothing.
 */
export function requiredPermissions(rule: PermissionRule | undefined, body: unknown): string[] {
  if (rule === undefined) return [];
  if (typeof rule === 'string') return [rule];
  const fields = bodyFields(body);
  const need = [...(rule.allOf ?? [])];
  if (rule.byField) for (const f of Object.keys(fields)) need.push(...entry(rule.byField, f));
  if (rule.byValue) need.push(...entry(rule.byValue.values, fields[rule.byValue.field]));
  return [...new Set(need)];
}

function entry(map: PermissionMap, key: unknown): readonly string[] {
  return typeof key === 'string' && Object.hasOwn(map, key) ? map[key]! : [];
}

function bodyFields(body: unknown): Record<string, unknown> {
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}

function isOwner(p: Principal): boolean {
  return p.userId === undefined;
}

/**
 * Whether the caller may see the server at all: its account's server ("API keys" rule 3, and the
 * context's reach rules: agent account reach in agent/gate.ts), or, for a panel user, a server
 * they are a subuser of.
 */
export function canReach(ctx: SandboxContext, principal: Principal | undefined, serverId: string): boolean {
  if (!principal) return true;
  return isOwner(principal) ? ctx.reachRules.every((reaches) => reaches(principal, serverId)) : subusersOf(ctx, serverId).has(principal.userId!);
}

/** Whether the caller holds a server permission there (the owner holds every one). */
export function holds(ctx: SandboxContext, principal: Principal | undefined, serverId: string, permission: string): boolean {
  if (!principal || isOwner(principal)) return true;
  return subusersOf(ctx, serverId).get(principal.userId!)?.permissions.includes(permission) ?? false;
}

function requireAll(ctx: SandboxContext, principal: Principal, serverId: string, permissions: readonly string[]): void {
  const missing = permissions.find((p) => !holds(ctx, principal, serverId, p));
  if (missing) throw new ApiFailure(403, 'forbidden', `Missing server permission ${missing}`);
}

/**
 * The pipeline's server check, after the path server is known to exist: reach (404, invisible),
 * owner-only deletion, the rule's permissions on the path server, and its `onServer` part on the
 * server the body names (an unknown one is left to the handler's 404).
 */
export function authorizeServer(ctx: SandboxContext, principal: Principal, op: Operation | undefined, serverId: string | undefined, body: unknown): void {
  if (serverId !== undefined) {
    if (!canReach(ctx, principal, serverId)) throw new ApiFailure(404, 'not_found', 'Server not found');
    if (!isOwner(principal) && op?.method === 'DELETE' && op.path === '/servers/{server_id}') {
      throw new ApiFailure(403, 'forbidden', 'Only the server owner may delete it');
    }
    requireAll(ctx, principal, serverId, requiredPermissions(op?.permission, body));
  }
  const other = typeof op?.permission === 'object' ? op.permission.onServer : undefined;
  const otherId = other ? bodyFields(body)[other.field] : undefined;
  if (other && typeof otherId === 'string' && ctx.state.servers.has(otherId)) {
    if (!canReach(ctx, principal, otherId)) throw new ApiFailure(404, 'not_found', 'Target server not found');
    requireAll(ctx, principal, otherId, other.allOf);
  }
}
