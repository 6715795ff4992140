import { nearestNames } from '../../common/suggest.js';
import { pathIdProblem } from '../flags/checks.js';
import { envelopeData } from '../wire/envelope.js';
import { ApiError, UsageError } from '../errors.js';
import type { ApiClient } from '../wire/http.js';
import { fetchPage, MAX_PAGE } from '../wire/paging.js';
import type { ServerReference } from '../plan.js';

// -s/--server takes an id or a name (ARCHITECTURE.md "Command grammar"). A name is resolved with
// GET /servers?search= and must match exactly one server; a value no name matches is checked once
// as an id (GET /servers/{ref}), and one that is neither stops the command before it sends
// anything else, naming the servers it may have meant. A value shaped like an id (8 hex digits,
// as the service's ids are) is checked as an id first and searched by name only on a 404, so a
// first mutation by id costs 2 requests (issue 45). `id:…` marks an id that is never looked up;
// server-cache.ts remembers what a lookup found. A typo costs at most 3 requests: the two checks
// and one page of names for the suggestion, which a partial name takes from its search instead.

export interface ServerItem {
  id?: string | number;
  identifier?: string;
  uuid?: string;
  name?: string;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The shape of the service's server ids (8 hex digits): checked as an id before any search. */
export const ID_SHAPE = /^[0-9a-f]{8}$/i;

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
  // Used as it is in /servers/{id}: checked as every path id is.
  const problem = pathIdProblem(id);
  if (problem) throw new UsageError(`the server id in "${ref}" ${problem}`);
  return id;
}

export interface LookedUp {
  id: string;
  /** What the reference is: a server's name or a server's id. */
  is: 'name' | 'id';
  /** The server's name, when an answer gave it. */
  name?: string;
  /** The service said so in this run: a fact worth remembering. */
  confirmed: boolean;
  /** Not checked as an id yet: the command's own request (`GET /servers/{id}`) is the check. */
  unchecked?: boolean;
  /** An id used as typed, never looked up. */
  known?: 'id:' | 'uuid';
}

/**
 * The id `ref` names (ARCHITECTURE.md "Command grammar"): `id:…` or a UUID as it is; else the
 * server named so (`GET /servers?search=`); else, when no name matches, `ref` checked
 * once as an id with `GET /servers/{ref}`. A 404 there is an UnknownServerError naming the closest
 * names, so a typo is never sent on to the command's own request. With `ownRequestChecks`, the
 * command's own request is that GET, so it is not sent twice (`unchecked`).
 */
export async function lookUpServer(client: ApiClient, ref: string, opts: { ownRequestChecks?: boolean } = {}): Promise<LookedUp> {
  const marked = markedId(ref);
  if (marked !== undefined) return { id: marked, is: 'id', confirmed: false, known: 'id:' };
  // A UUID is only ever an id, copied rather than typed: used as it is, as `id:…` is.
  if (UUID_RE.test(ref)) return { id: ref, is: 'id', confirmed: false, known: 'uuid' };
  if (ID_SHAPE.test(ref) && !opts.ownRequestChecks) {
    const checked = await serverById(client, ref);
    if (!(checked instanceof ApiError)) return { id: ref, is: 'id', ...nameOf(checked), confirmed: true };
    // No server has that id: a server may still be named so.
    const named = await findByName(client, ref);
    if (named) return named;
    throw await unknownServers(client, [ref], checked);
  }
  const found = await findByName(client, ref);
  if (found) return found;
  if (opts.ownRequestChecks) return { id: ref, is: 'id', confirmed: false, unchecked: true };
  const checked = await serverById(client, ref);
  if (checked instanceof ApiError) throw await unknownServers(client, [ref], checked);
  return { id: ref, is: 'id', ...nameOf(checked), confirmed: true };
}

/**
 * The server a search lists under `ref`: by id, or by its exact name (case-insensitive, as the
 * search). Only the API's answer counts (core/wire/envelope.ts): a proxy's page is an error here, never
 * "no such name" followed by the command's own request.
 */
export async function findByName(client: ApiClient, ref: string): Promise<LookedUp | undefined> {
  const { items } = await fetchPage(client, { method: 'GET', path: '/servers', query: { search: ref } }, MAX_PAGE);
  const servers = items as ServerItem[];
  remember(client, ref, servers);
  const byId = servers.find((s) => [s.id, s.identifier, s.uuid].some((v) => v !== undefined && String(v) === ref));
  if (byId) return { id: ref, is: 'id', ...nameOf(byId), confirmed: true };
  const named = servers.filter((s) => s.name?.toLowerCase() === ref.toLowerCase());
  if (named.length > 1) {
    throw new UsageError(
      `"${ref}" matches ${named.length} servers`,
      `Use an id: ${named.map((s) => `${s.id} (${s.name})`).join(', ')}`,
    );
  }
  const [one] = named;
  return one?.id !== undefined ? { id: String(one.id), is: 'name', ...nameOf(one), confirmed: true } : undefined;
}

/**
 * The server `GET /servers/{id}` gives, or the 404 that says there is none (02-endpoints-part-a.md
 * "Endpoints", reading rule 2: server paths answer 404 when the server is absent).
 */
export async function serverById(client: ApiClient, id: string): Promise<ServerItem | ApiError> {
  try {
    const data = envelopeData(await client.request({ method: 'GET', path: `/servers/${encodeURIComponent(id)}` }));
    return data !== null && typeof data === 'object' ? (data as ServerItem) : {};
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return err;
    throw err;
  }
}

const nameOf = (s: ServerItem): { name?: string } => (typeof s.name === 'string' ? { name: s.name } : {});

/**
 * References that name no server: exit 5, before anything else is sent. It is gsh's own finding
 * from its lookup, not the service refusing the command: the error line names the references and
 * the nearest names, without the lookup's HTTP 404 or its request_id (they are under --debug;
 * core/terminal/report.ts). The --json error object keeps its status and request_id fields for scripts.
 */
export class UnknownServerError extends ApiError {
  override readonly hint: string;
  /** The 404 came from gsh's lookup, not from the command's own request. */
  readonly lookup = true;
  constructor(readonly references: ServerReference[], answer: ApiError) {
    const quoted = references.map((r) => `"${r.ref}"`);
    super(answer.status, { ...answer.body, code: answer.code || 'not_found', message: `no server has the name or id ${orList(quoted)}` }, answer.requestId);
    const meant = references.filter((r) => r.suggestions?.length).map((r) => `${references.length > 1 ? `"${r.ref}": did` : 'Did'} you mean ${orList(r.suggestions ?? [])}?`);
    this.hint = [...meant, 'List them with gsh servers list.'].join('\n');
    this.name = 'UnknownServerError';
  }
}

/**
 * What each search listed, per client (one run): one page of the full listing may not hold the
 * names a partial name is part of, and the search that found no exact match already read them.
 */
const searched = new WeakMap<ApiClient, Map<string, string[]>>();
function remember(client: ApiClient, ref: string, servers: readonly ServerItem[]): void {
  let map = searched.get(client);
  if (!map) searched.set(client, (map = new Map()));
  map.set(ref.toLowerCase(), servers.flatMap((s) => (typeof s.name === 'string' ? [s.name] : [])));
}

function orList(items: readonly string[]): string {
  return items.length < 2 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}

/**
 * The error for references no server has (`answer`: the 404 of one of them), each with the names
 * it may have meant. `names` are the servers' names when a listing is at hand (a fleet's);
 * otherwise they are listed now.
 */
export async function unknownServers(client: ApiClient, refs: readonly string[], answer: ApiError, names?: readonly string[]): Promise<UnknownServerError> {
  let known = names;
  // The names this run's search listed under each reference: the servers a partial name is part
  // of, on whatever page of the whole listing they are (`jade-summit` → `jade-summit-035`).
  const hits = refs.map((ref) => searched.get(client)?.get(ref.toLowerCase()) ?? []);
  if (known === undefined && hits.every((h) => h.length > 0)) known = [];
  if (known === undefined) {
    try {
      // One page: a typo costs at most 3 requests (the search, the check as an id, these names).
      const { items } = await fetchPage(client, { method: 'GET', path: '/servers' }, MAX_PAGE);
      known = (items as ServerItem[]).flatMap((s) => (typeof s.name === 'string' ? [s.name] : []));
    } catch (err) {
      // The 404 is the answer; the suggestions are a courtesy a refused listing does not prevent.
      if (!(err instanceof ApiError)) throw err;
      known = [];
    }
  }
  return new UnknownServerError(refs.map((ref, i) => {
    const suggestions = nearestNames(ref, [...(hits[i] ?? []), ...(known ?? [])]);
    return { ref, is: 'nothing', servers: [], ...(suggestions.length ? { suggestions } : {}) };
  }), answer);
}
