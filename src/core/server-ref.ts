import { pathIdProblem } from './checks.js';
import { UsageError } from './errors.js';
import type { ApiClient } from './http.js';

// -s/--server takes an id or a name (ARCHITECTURE.md "Command grammar"). A name is resolved with
// GET /servers?search= and must match exactly one server; a value that is already a server's id
// (or that no name matches) is used as the id, and the API answers 404 if it is neither.
// `id:…` marks an id that is never looked up; server-cache.ts remembers what a lookup found.

interface ServerItem {
  id?: string | number;
  identifier?: string;
  uuid?: string;
  name?: string;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The server a command names: -s, or the positional argument of commands whose object is the
 * server (`gsh servers get lobby`), or GSH_SERVER.
 */
export function serverFlag(value: string | undefined, env: NodeJS.ProcessEnv, positional?: string): string {
  if (value !== undefined && positional !== undefined && value !== positional) {
    throw new UsageError(`two servers given: "${positional}" and -s ${value}`, 'Name the server once, as an argument or with -s.');
  }
  const ref = value ?? positional ?? env.GSH_SERVER;
  if (!ref) throw new UsageError('this command needs a server', 'Name it as an argument or with -s/--server <id|name>, or set GSH_SERVER.');
  checkServerRef(ref);
  return ref;
}

/**
 * A reference a script got from a lookup that found nothing (`null`, `undefined`) is a usage
 * error before anything is sent, never a name to search for. A name may hold a slash: it is
 * resolved to an id before it reaches a path.
 */
export function checkServerRef(ref: string): void {
  const problem = pathIdProblem(ref, true);
  if (problem) throw new UsageError(`the server reference ${problem}`);
}

/** `-s id:…`: an id that is used as it is, never looked up (and never mistaken for a name). */
export const ID_MARKER = 'id:';

/** The id an `id:…` reference gives, or undefined for any other reference. */
export function markedId(ref: string): string | undefined {
  if (!ref.startsWith(ID_MARKER)) return undefined;
  const id = ref.slice(ID_MARKER.length);
  if (!id) throw new UsageError(`"${ref}" names no id`, 'Give the id after the marker, e.g. -s id:3f2a9c1e.');
  return id;
}

export interface LookedUp {
  id: string;
  /** The service listed it: a fact worth remembering. */
  confirmed: boolean;
  /** No name matched, so the reference is tried as an id (the search matches names only). */
  tried?: boolean;
}

/** The id `ref` names: a UUID or `id:…` as it is, else looked up by name (see LookedUp). */
export async function lookUpServer(client: ApiClient, ref: string): Promise<LookedUp> {
  const marked = markedId(ref);
  if (marked !== undefined) return { id: marked, confirmed: false };
  if (UUID_RE.test(ref)) return { id: ref, confirmed: false };
  const res = await client.request<{ data?: ServerItem[] }>({ method: 'GET', path: '/servers', query: { search: ref, limit: 100 } });
  const items = Array.isArray(res.body?.data) ? res.body.data : [];
  const byId = items.find((s) => [s.id, s.identifier, s.uuid].some((v) => v !== undefined && String(v) === ref));
  if (byId) return { id: ref, confirmed: true };
  const named = items.filter((s) => s.name?.toLowerCase() === ref.toLowerCase());
  if (named.length === 1 && named[0]?.id !== undefined) return { id: String(named[0].id), confirmed: true };
  if (named.length > 1) {
    throw new UsageError(
      `"${ref}" matches ${named.length} servers`,
      `Use an id: ${named.map((s) => `${s.id} (${s.name})`).join(', ')}`,
    );
  }
  return { id: ref, confirmed: false, tried: true };
}
