import { createHmac, randomBytes } from 'node:crypto';
import { request as httpRequest, type ClientRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { SandboxContext } from '../context.js';
import { isoSeconds } from '../clock.js';
import type { ServerRecord } from '../state.js';
import { familyState, serverSlot } from './slots.js';

// Per-server webhooks and their deliveries (01-general-contract.md "Webhooks (per server)",
// "Limits": delivery timeout 5 s, disabled after 15 consecutive failures).
//
// Delivery: POST of {event, server:{id}, occurred_at (unix s), data} as JSON with X-Service-Event
// and X-Service-Signature: sha256=<hex HMAC-SHA256 of the raw body with the hook's secret>;
// success is any 2xx; redirects are not followed; each failed attempt counts toward the 15 and is
// retried up to RETRIES times (1 s, 2 s simulated backoff) while the hook stays enabled.
//
// Which operation emits which event is "not shown"; the sandbox's choice:
//   server.started   a server reaches `running` (power start/restart)
//   server.stopped   a server reaches `offline` from running/stopping (power stop, kill)
//   server.installed a reinstall finishes
//   backup.completed shortly after POST /servers/{id}/backups
//   git.deployment.completed shortly after POST /servers/{id}/git/deploy
//   anything else    admin POST /__sandbox/hooks/emit {server_id, event, data?}

/** "delivered only when explicitly subscribed" */
export const HIGH_FREQUENCY = (e: string) => e.startsWith('player.') || e.startsWith('threshold.');

export const DELIVERY_TIMEOUT_MS = 5000;
export const DISABLE_AFTER = 15;
export const RETRIES = 2;

export interface Delivery {
  object: 'server_hook_delivery';
  id: string;
  event: string;
  attempt: number;
  success: boolean;
  status_code?: number;
  error?: string;
  duration_ms: number;
  delivered_at: string;
}

export interface Hook {
  id: string;
  url: string;
  /** Empty: every event that is not high-frequency. */
  events: string[];
  enabled: boolean;
  consecutive_failures: number;
  secret: string;
  created_at: string;
  updated_at: string;
  /** Newest first. */
  deliveries: Delivery[];
}

export function hooksOf(ctx: SandboxContext, serverId: string): Map<string, Hook> {
  installEmitters(ctx);
  return serverSlot(ctx, serverId, 'hooks', () => new Map<string, Hook>());
}

export const newSecret = () => `whsec_${randomBytes(24).toString('hex')}`;

export function hookView(h: Hook): Record<string, unknown> {
  return {
    object: 'server_hook', id: h.id, url: h.url, events: h.events, enabled: h.enabled,
    consecutive_failures: h.consecutive_failures, created_at: h.created_at, updated_at: h.updated_at,
  };
}

export function signBody(secret: string, raw: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
}

const wired = new WeakSet<SandboxContext>();

function installEmitters(ctx: SandboxContext): void {
  if (wired.has(ctx)) return;
  wired.add(ctx);
  const ev = ctx.state.events;
  ev.on('server-state', (s: ServerRecord, previous: string) => {
    if (s.state === 'running') emitEvent(ctx, s.id, 'server.started', {});
    else if (s.state === 'offline' && previous !== 'offline') emitEvent(ctx, s.id, 'server.stopped', { previous_state: previous });
  });
  ev.on('server-installed', (s: ServerRecord) => emitEvent(ctx, s.id, 'server.installed', {}));
}

/** Delivers `event` to every enabled hook of the server subscribed to it. */
export function emitEvent(ctx: SandboxContext, serverId: string, event: string, data: Record<string, unknown>): number {
  const hooks = familyState(ctx).servers.get(serverId)?.get('hooks') as Map<string, Hook> | undefined;
  let count = 0;
  for (const h of hooks?.values() ?? []) {
    const subscribed = h.events.length ? h.events.includes(event) : !HIGH_FREQUENCY(event);
    if (!h.enabled || !subscribed) continue;
    const raw = JSON.stringify({ event, server: { id: serverId }, occurred_at: Math.floor(Date.now() / 1000), data });
    attempt(ctx, h, event, raw, 1);
    count++;
  }
  return count;
}

function attempt(ctx: SandboxContext, h: Hook, event: string, raw: string, n: number): void {
  const started = Date.now();
  post(ctx, h.url, raw, { 'X-Service-Event': event, 'X-Service-Signature': signBody(h.secret, raw) }, (status, error) => {
    const success = status !== undefined && status >= 200 && status < 300;
    h.deliveries.unshift({
      object: 'server_hook_delivery', id: `dlv_${randomBytes(6).toString('hex')}`, event, attempt: n, success,
      ...(status !== undefined ? { status_code: status } : {}), ...(error ? { error } : {}),
      duration_ms: Date.now() - started, delivered_at: isoSeconds(),
    });
    h.deliveries.length = Math.min(h.deliveries.length, 100);
    if (success) {
      h.consecutive_failures = 0;
      return;
    }
    h.consecutive_failures += 1;
    if (h.consecutive_failures >= DISABLE_AFTER) {
      h.enabled = false;
      return;
    }
    if (n <= RETRIES) ctx.clock.after(1000 * n, () => {
      if (h.enabled) attempt(ctx, h, event, raw, n + 1);
    });
  });
}

function post(ctx: SandboxContext, url: string, raw: string, headers: Record<string, string>, done: (status?: number, error?: string) => void): void {
  const disposers = familyState(ctx).disposers;
  let settled = false;
  let req: ClientRequest;
  const finish = (status?: number, error?: string) => {
    if (settled) return;
    settled = true;
    disposers.delete(abort);
    done(status, error);
  };
  const abort = () => {
    settled = true;
    req.destroy();
  };
  try {
    const u = new URL(url);
    const send = u.protocol === 'https:' ? httpsRequest : httpRequest;
    req = send(u, {
      method: 'POST',
      timeout: DELIVERY_TIMEOUT_MS,
      headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(raw)), 'user-agent': 'gsh-sandbox-webhooks', ...headers },
    }, (res) => {
      res.resume();
      // 3xx counts as a failure: redirects are not followed.
      res.on('end', () => finish(res.statusCode));
      res.on('error', () => finish(res.statusCode));
    });
  } catch (err) {
    finish(undefined, (err as Error).message);
    return;
  }
  disposers.add(abort);
  req.on('timeout', () => {
    req.destroy();
    finish(undefined, `timed out after ${DELIVERY_TIMEOUT_MS} ms`);
  });
  req.on('error', (err) => finish(undefined, err.message));
  req.end(raw);
}
