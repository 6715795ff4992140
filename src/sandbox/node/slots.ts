import { randomBytes } from 'node:crypto';
import type { SandboxContext } from '../context.js';

// Per-sandbox and per-server state of the families with real semantics (files, hooks, subusers,
// instances, ...). Kept beside the context (WeakMap) so each family owns its own data shape; a
// deleted server's slots go with it, and `disposeFamilies` (called by close) ends what is in flight.

export interface FamilyState {
  /** Key of the signed node URLs (upload, download). */
  readonly urlSecret: Buffer;
  /** Lifetime of signed node URLs (real ms; tests shorten it). */
  signedUrlTtlMs: number;
  /** Sandbox-only: bytes of filler in archives made from now on (large downloads on demand). */
  archiveFillerBytes: number;
  /**
   * Sandbox-only: let webhooks target http://127.0.0.1 / localhost receivers. The contract
   * (01 "Webhooks (per server)") allows https to public addresses only; tests need a local receiver.
   */
  allowLocalWebhooks: boolean;
  /** Per server id: family name → that family's data. */
  readonly servers: Map<string, Map<string, unknown>>;
  /** Cleanups run on close (in-flight webhook deliveries). */
  readonly disposers: Set<() => void>;
}

const states = new WeakMap<SandboxContext, FamilyState>();

export function familyState(ctx: SandboxContext): FamilyState {
  let st = states.get(ctx);
  if (!st) {
    const created: FamilyState = {
      urlSecret: randomBytes(32),
      signedUrlTtlMs: 5 * 60_000,
      archiveFillerBytes: 0,
      allowLocalWebhooks: false,
      servers: new Map(),
      disposers: new Set(),
    };
    ctx.state.events.on('server-deleted', (id: string) => created.servers.delete(id));
    states.set(ctx, created);
    st = created;
  }
  return st;
}

/** The family `name`'s data for a server, made by `init` on first use. */
export function serverSlot<T>(ctx: SandboxContext, serverId: string, name: string, init: () => T): T {
  const servers = familyState(ctx).servers;
  let slots = servers.get(serverId);
  if (!slots) {
    slots = new Map();
    servers.set(serverId, slots);
  }
  if (!slots.has(name)) slots.set(name, init());
  return slots.get(name) as T;
}

export function disposeFamilies(ctx: SandboxContext): void {
  const st = states.get(ctx);
  if (!st) return;
  for (const d of st.disposers) d();
  st.disposers.clear();
}
