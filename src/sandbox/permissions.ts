import type { Operation } from '../operations/types.js';
import { PERMISSIONS } from '../operations/vocabulary.js';
import { agentReaches } from './agent/gate.js';
import type { Principal } from './auth.js';
import type { SandboxContext } from './context.js';
import { isoSeconds } from './clock.js';
import { ApiFailure } from './envelope.js';
import { serverSlot } from './node/slots.js';

// Server permissions (01-general-contract.md "Permission names used by endpoints"; "Authentication"
// rule 5: per-operation access needs the owner role or the named permission). A credential acts as
// the account owner unless it was made for a panel user (Sandbox.createKey `subuser`, admin
// POST /__sandbox/keys `subuser`); such a user reaches only servers where they are a subuser
// (others answer 404, invisible) and needs the operation's permission there (403 otherwise).


const KNOWN: ReadonlySet<string> = new Set(PERMISSIONS);

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
 * The permissions the pipeline checks for an operation: its registry `permission` when that
 * names permissions joined by "and" (parenthesized notes dropped). "per field" and "or" rules
 * depend on the body: their handlers call requirePermission.
 */
export function requiredPermissions(op: Operation | undefined): string[] {
  const text = op?.permission?.replace(/\([^)]*\)/g, '').trim();
  if (!text || /per field|\bor\b/.test(text)) return [];
  return text.split(/\s+and\s+/).map((p) => p.trim()).filter((p) => KNOWN.has(p));
}

function isOwner(p: Principal): boolean {
  return p.userId === undefined;
}

/** Whether the caller may see the server at all (owner, or one of its subusers). */
export function canReach(ctx: SandboxContext, principal: Principal | undefined, serverId: string): boolean {
  const member = !principal || isOwner(principal) || subusersOf(ctx, serverId).has(principal.userId!);
  return member && agentReaches(ctx, principal, serverId);
}

export function authorizeServer(ctx: SandboxContext, principal: Principal, op: Operation | undefined, serverId: string | undefined): void {
  if (serverId === undefined || isOwner(principal)) return;
  const entry = subusersOf(ctx, serverId).get(principal.userId!);
  if (!entry) throw new ApiFailure(404, 'not_found', 'Server not found');
  if (op?.method === 'DELETE' && op.path === '/servers/{server_id}') throw new ApiFailure(403, 'forbidden', 'Only the server owner may delete it');
  for (const p of requiredPermissions(op)) {
    if (!entry.permissions.includes(p)) throw new ApiFailure(403, 'forbidden', `Missing server permission ${p}`);
  }
}

/** For rules that depend on the body (settings fields, clean modpack installs, cut). */
export function requirePermission(ctx: SandboxContext, principal: Principal | undefined, serverId: string, permission: string): void {
  if (!principal || isOwner(principal)) return;
  if (!subusersOf(ctx, serverId).get(principal.userId!)?.permissions.includes(permission)) {
    throw new ApiFailure(403, 'forbidden', `Missing server permission ${permission}`);
  }
}
