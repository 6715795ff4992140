import type { AddressInfo, Socket } from 'node:net';
import { loadAllFamilies } from '../operations/index.js';
import type { Operation } from '../operations/types.js';
import { READ_SCOPES, hasScope, type CredentialResolver } from './auth.js';
import { SandboxContext } from './context.js';
import { handlerSpecs } from './handler-maps.js';
import type { HandlerSpec } from './handlers/types.js';
import { Router } from './router.js';
import { installConsoleNode } from './console-node/index.js';
import { accountReaches } from './agent/gate.js';
import { installAgent } from './agent/service.js';
import { createHttpServer } from './server.js';
import { createSubuserKey } from './permissions.js';
import { disposeFamilies, familyState } from './node/slots.js';
import type { SandboxState } from './state.js';
import type { EffectEntry, Faults, Injection, RequestLogEntry, SandboxOptions, UpgradeHandler } from './types.js';

// The sandbox: a local emulator of the Game Server Hosting Public API v2 on 127.0.0.1, following
// spec/01-general-contract.md and the endpoint documents. See ARCHITECTURE.md "Sandbox". Admin API
// for out-of-process control: admin.ts.

export type { EffectEntry, Faults, Injection, RequestLogEntry, SandboxOptions } from './types.js';
export type { SandboxState, ServerRecord, CreationJob, PowerAction } from './state.js';
export type { UpgradeHandler } from './types.js';
export type { CredentialResolver, Principal } from './auth.js';
export { READ_SCOPES, EXPLICIT_GRANT_SCOPES, KEY_PREFIX, hasScope } from './auth.js';

export interface Sandbox {
  /** http://127.0.0.1:PORT/api/v2 */
  readonly baseUrl: string;
  /** http://127.0.0.1:PORT (admin API under /__sandbox). */
  readonly origin: string;
  readonly keys: { all: string; readOnly: string };
  readonly log: RequestLogEntry[];
  /** Every change made: mutations executed and answered below 400, replays not counted. */
  readonly effects: EffectEntry[];
  readonly state: SandboxState;
  setFaults(f: Partial<Faults>): void;
  /** One-shot faults: 'drop' destroys the connection before processing, 'lost' after executing. */
  inject(f: Injection): void;
  /** `subuser`: the key acts as a new panel user who is a subuser of that server with those permissions. */
  createKey(scopes: string[], opts?: { rateLimit?: number; name?: string; expiresAt?: number; subuser?: { serverId: string; permissions: string[] } }): string;
  /** Sandbox-only switches of the families with real semantics (see node/slots.ts). */
  readonly families: { allowLocalWebhooks(on: boolean): void; setSignedUrlTtl(ms: number): void; setArchiveFillerBytes(n: number): void };
  /** Revokes a key (it then gets 401). */
  revokeKey(secret: string): boolean;
  /** Called with each completed log entry; returns an unsubscribe function. */
  onRequest(listener: (e: RequestLogEntry) => void): () => void;
  /** Extension points for later features (console node WebSocket, agent access tokens). */
  readonly extensions: { upgrade: UpgradeHandler[]; credentials: CredentialResolver[]; context: SandboxContext; router: Router<HandlerSpec> };
  /** Closes all sockets and clears all timers. */
  close(): Promise<void>;
}

export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const ctx = new SandboxContext(opts, READ_SCOPES);
  const families = await loadAllFamilies();
  const ops: Operation[] = families.flatMap((f) => f.operations);
  ctx.operations = ops;
  const router = new Router<HandlerSpec>(ops, handlerSpecs());
  ctx.router = router;
  installAgent(ctx);
  ctx.reachRules.push((principal, serverId) => accountReaches(ctx, principal, serverId));

  const upgrade: UpgradeHandler[] = [];
  const server = createHttpServer(ctx, router, upgrade);
  const consoleNode = installConsoleNode(ctx, upgrade, opts.consoleTokenTtlMs !== undefined ? { tokenTtlMs: opts.consoleTokenTtlMs } : {});
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  ctx.origin = `http://127.0.0.1:${port}`;

  let closing: Promise<void> | undefined;
  return {
    baseUrl: ctx.baseUrl,
    origin: ctx.origin,
    keys: { all: ctx.demoKeys.all.secret, readOnly: ctx.demoKeys.readOnly.secret },
    log: ctx.log.entries,
    effects: ctx.effects,
    state: ctx.state,
    setFaults: (f) => ctx.faults.set(f),
    inject: (f) => ctx.faults.inject(f),
    createKey: (scopes, o = {}) =>
      o.subuser ? createSubuserKey(ctx, scopes, o.subuser, { rateLimit: o.rateLimit ?? ctx.defaultRateLimit, ...(o.name !== undefined ? { name: o.name } : {}) }).secret : ctx.keys.create(scopes, {
        rateLimit: o.rateLimit ?? ctx.defaultRateLimit,
        ...(o.name !== undefined ? { name: o.name } : {}),
        ...(o.expiresAt !== undefined ? { expiresAt: o.expiresAt } : {}),
      }).secret,
    families: {
      allowLocalWebhooks: (on) => { familyState(ctx).allowLocalWebhooks = on; },
      setSignedUrlTtl: (ms) => { familyState(ctx).signedUrlTtlMs = ms; },
      setArchiveFillerBytes: (n) => { familyState(ctx).archiveFillerBytes = n; },
    },
    revokeKey: (secret) => ctx.keys.revoke(secret),
    onRequest: (l) => ctx.log.onEntry(l),
    extensions: { upgrade, credentials: ctx.keys.resolvers, context: ctx, router },
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        ctx.clock.close();
        disposeFamilies(ctx);
        consoleNode.close();
        ctx.state.events.removeAllListeners();
        server.close(() => resolve());
        server.closeAllConnections();
        for (const s of sockets) s.destroy();
      })),
  };
}

/** True when `scopes` grant `required` (`*`, exact, or `servers:*` outside the explicit-grant list). */
export const scopeCovers = hasScope;
