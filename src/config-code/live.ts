// Reading what a server has, for the kinds a declaration manages (or every kind, for export):
// one read per kind (one per declared config type), through the registry's operations and
// ApiClient.request; paged lists through core/wire/paging.ts.

import { ApiError } from '../core/errors.js';
import type { ApiClient } from '../core/wire/http.js';
import { fetchAll } from '../core/wire/paging.js';
import { asText, type Live, type LiveHook, type LiveSubuser } from './compare.js';
import { type Kind, opSpec } from './kinds.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

async function data(client: ApiClient, spec: ReturnType<typeof opSpec>): Promise<unknown> {
  const res = await client.request<{ data?: unknown }>(spec);
  return isObj(res.body) ? res.body.data : undefined;
}

/** How many requests reading these kinds costs (a paged list counts as one: the estimate's floor). */
export function readCost(kinds: readonly Kind[], configTypes: number): number {
  return kinds.reduce((n, k) => n + (k === 'configs' ? configTypes : 1), 0);
}

/**
 * The live state of one server for `kinds`. `configTypes`: the config types to read; undefined
 * lists the ones that exist first (export).
 */
export async function readLive(client: ApiClient, serverId: string, kinds: readonly Kind[], configTypes?: readonly string[], opts: { absentOk?: boolean } = {}): Promise<Live> {
  const live: Live = {};
  for (const kind of kinds) {
    try {
      await readKind(client, serverId, kind, live, configTypes);
    } catch (err) {
      // Export: a kind the server does not have (no server.properties on this game) is left out.
      if (opts.absentOk && err instanceof ApiError && err.status === 404) continue;
      throw err;
    }
  }
  return live;
}

async function readKind(client: ApiClient, serverId: string, kind: Kind, live: Live, configTypes?: readonly string[]): Promise<void> {
  const sid = { server_id: serverId };
  {
    switch (kind) {
      case 'settings': {
        const d = await data(client, opSpec('readSettings', sid));
        live.settings = isObj(d) ? d : {};
        break;
      }
      case 'properties': {
        const d = await data(client, opSpec('readProperties', sid));
        live.properties = new Map((Array.isArray(d) ? d : []).filter(isObj).filter((p) => typeof p.key === 'string').map((p) => [p.key as string, asText(p.value)]));
        break;
      }
      case 'startup': {
        const d = await data(client, opSpec('readStartup', sid));
        const vars = isObj(d) && Array.isArray(d.variables) ? d.variables.filter(isObj) : [];
        // The variable's key field is not named by the contract ("environment variables"):
        // `key`, else `env_variable`, as the write's path parameter calls it.
        live.variables = new Map(vars.map((v) => [String(v.key ?? v.env_variable ?? ''), asText(v.value ?? v.server_value)] as [string, string]).filter(([k]) => k !== ''));
        break;
      }
      case 'configs': {
        let types = configTypes;
        if (types === undefined) {
          const d = await data(client, opSpec('listConfigs', sid));
          types = (Array.isArray(d) ? d : []).filter(isObj).map((c) => c.type).filter((t): t is string => typeof t === 'string');
        }
        live.configs = new Map();
        for (const type of types) {
          const d = await data(client, opSpec('readConfig', { ...sid, config_type: type }));
          live.configs.set(type, isObj(d) && isObj(d.values) ? d.values : {});
        }
        break;
      }
      case 'hooks': {
        const { items } = await fetchAll(client, opSpec('listHooks', sid));
        live.hooks = items.filter(isObj).filter((h) => typeof h.url === 'string').map((h): LiveHook => ({
          id: String(h.id), url: h.url as string, events: Array.isArray(h.events) ? h.events.map(String) : [], enabled: h.enabled !== false,
        }));
        break;
      }
      case 'subusers': {
        const { items } = await fetchAll(client, opSpec('listSubusers', sid));
        live.subusers = items.filter(isObj).filter((u) => u.user_id !== undefined).map((u): LiveSubuser => ({
          user_id: Number(u.user_id), permissions: Array.isArray(u.permissions) ? u.permissions.map(String) : [],
        }));
        break;
      }
    }
  }
}

/** The reads of `kinds` on one server, as requests (a dry run prints them; a paged list shows its first page). */
export function readSpecs(serverId: string, kinds: readonly Kind[], configTypes?: readonly string[]): Array<ReturnType<typeof opSpec>> {
  const sid = { server_id: serverId };
  return kinds.flatMap((kind) => {
    switch (kind) {
      case 'settings': return [opSpec('readSettings', sid)];
      case 'properties': return [opSpec('readProperties', sid)];
      case 'startup': return [opSpec('readStartup', sid)];
      case 'configs': return configTypes === undefined ? [opSpec('listConfigs', sid)] : configTypes.map((type) => opSpec('readConfig', { ...sid, config_type: type }));
      case 'hooks': return [opSpec('listHooks', sid)];
      case 'subusers': return [opSpec('listSubusers', sid)];
    }
  });
}
