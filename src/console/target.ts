import { Exit, GshError } from '../core/errors.js';
import { type ApiClient, type RequestSpec, withIdempotencyKey } from '../core/wire/http.js';
import type { Runtime } from '../core/run/runtime.js';
import { serverIdOf } from '../core/fleet/server-cache.js';
import { serverFlag } from '../core/fleet/server-ref.js';
import type { ConsoleSessionInfo } from './protocol.js';

// Where a console command goes, found while planning: -s resolved (the one request planning may
// send) and the console session request every socket command starts with.

export interface ConsoleTarget {
  client: ApiClient;
  serverId: string;
  /** The server as the user named it, with its id when that differs. */
  label: string;
  /** POST /servers/{id}/console/token, its Idempotency-Key fixed: the request the plan shows. */
  token: RequestSpec;
}

export async function planTarget(rt: Runtime, server: string | undefined, positional?: string): Promise<ConsoleTarget> {
  const ref = serverFlag(server, rt.env, positional);
  const client = await rt.client();
  const serverId = await serverIdOf(rt, client, ref);
  return consoleTarget(client, serverId, ref === serverId ? serverId : `${ref} (${serverId})`);
}

/** The console target of a server already resolved (each server of a fleet). */
export async function consoleTarget(client: ApiClient, serverId: string, label: string): Promise<ConsoleTarget> {
  const token = await withIdempotencyKey({ method: 'POST', path: `/servers/${encodeURIComponent(serverId)}/console/token` });
  return { client, serverId, label, token };
}

/**
 * Console sessions for one socket: the planned request first, then a fresh key for each renewal
 * and reconnect (under the planned key the API would replay the session whose token is expiring).
 */
export function sessionSource(t: ConsoleTarget): () => Promise<ConsoleSessionInfo> {
  let next = t.token;
  return async () => {
    const spec = next;
    next = { ...t.token, idempotencyKey: undefined };
    const res = await t.client.request<{ data?: Partial<ConsoleSessionInfo> }>(spec);
    const data = res.body?.data;
    if (typeof data?.socket !== 'string' || typeof data.token !== 'string') {
      throw new GshError('the console session response has no socket or token', Exit.error);
    }
    return { socket: data.socket, token: data.token, ...(Array.isArray(data.permissions) ? { permissions: data.permissions } : {}) };
  };
}
