// Reading what a server has, for the kinds a declaration manages (or every kind, for export):
// each kind reads its own (kinds/), through the registry's operations and ApiClient.request;
// paged lists through core/wire/paging.ts.

import { ApiError } from '../core/errors.js';
import type { RequestSpec } from '../core/request-spec.js';
import type { ApiClient } from '../core/wire/http.js';
import type { Live } from './compare.js';
import type { Declaration } from './files.js';
import { kindNamed } from './kinds/index.js';

const kindOf = (name: string) => {
  const kind = kindNamed(name);
  if (!kind) throw new Error(`config-code: no kind ${name}`);
  return kind;
};

/** The reads of `kinds` on one server, as requests (a dry run prints them; a paged list shows its first page). `d` undefined: everything (export). */
export function readSpecs(serverId: string, kinds: readonly string[], d?: Declaration): RequestSpec[] {
  return kinds.flatMap((name) => kindOf(name).readSpecs(serverId, d?.sections[name]));
}

/** How many requests reading these kinds costs (a paged list counts as one: the estimate's floor). */
export function readCost(kinds: readonly string[], d?: Declaration): number {
  return readSpecs('-', kinds, d).length;
}

/** The live state of one server for `kinds`, as declared in `d` (undefined: everything, for export). */
export async function readLive(client: ApiClient, serverId: string, kinds: readonly string[], d?: Declaration, opts: { absentOk?: boolean } = {}): Promise<Live> {
  const live: Live = {};
  for (const name of kinds) {
    try {
      live[name] = await kindOf(name).read(client, serverId, d?.sections[name]);
    } catch (err) {
      // Export: a kind the server does not have (no server.properties on this game) is left out.
      if (opts.absentOk && err instanceof ApiError && err.status === 404) continue;
      throw err;
    }
  }
  return live;
}
