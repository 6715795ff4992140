import { ApiError, UsageError } from '../errors.js';
import type { StdinText } from '../flags/fields.js';
import type { ApiClient } from '../wire/http.js';
import { fetchAll } from '../wire/paging.js';
import type { ServerReference } from '../plan.js';
import { checkServerRef, ID_MARKER, markedId, type ServerItem, serverById, unknownServers } from './server-ref.js';

// Which servers a server-scoped command acts on (ARCHITECTURE.md "Many servers at once"): -s
// repeated or comma-separated, shell-style globs on names (case-sensitive, as in the shell), `-s -`
// for ids or names on stdin, --all-servers. One plain reference keeps the single-server path of
// server-ref.ts; anything else resolves with one listing of the servers, not a call per name.

export interface Target {
  id: string;
  name?: string;
}

export interface TargetRefs {
  /** The references as typed: ids, names, globs, `-`. */
  refs: string[];
  all: boolean;
}

const isPattern = (ref: string): boolean => !ref.startsWith(ID_MARKER) && /[*?[\]{}]/.test(ref);

/** The references a command line names, checked (nothing is sent). */
export function targetRefs(flag: string | readonly string[] | undefined, positional: string | undefined, env: NodeJS.ProcessEnv, all = false): TargetRefs {
  const typed = [flag ?? []].flat().flatMap((v) => v.split(',')).map((v) => v.trim());
  if (typed.some((v) => v === '')) throw new UsageError('-s has an empty server reference', 'Give ids or names separated by commas, e.g. -s lobby-1,lobby-2.');
  if (positional !== undefined && typed.length > 0 && !(typed.length === 1 && typed[0] === positional)) {
    throw new UsageError(`two servers given: "${positional}" and -s ${typed.join(',')}`, 'Name the servers once, as an argument or with -s.');
  }
  const refs = typed.length ? typed : positional !== undefined ? [positional] : [];
  if (all && refs.length) throw new UsageError('--all-servers does not combine with -s or a server argument');
  if (all) return { refs: [], all: true };
  if (refs.length === 0 && env.GSH_SERVER) refs.push(env.GSH_SERVER);
  if (refs.length === 0) throw new UsageError('this command needs a server', 'Name it as an argument or with -s/--server <id|name> (repeat it, or use a glob, for several), or set GSH_SERVER.');
  refs.forEach(checkServerRef);
  return { refs, all: false };
}

/**
 * The server records of the listing resolveTargets read on each client: what else the command
 * needs of them (an announcement's plan check) comes from it, so a command reads the listing once.
 */
const listings = new WeakMap<ApiClient, readonly Record<string, unknown>[]>();

/** The records the targets were resolved from on `client`, if they were listed. */
export function listedServers(client: ApiClient): readonly Record<string, unknown>[] | undefined {
  return listings.get(client);
}

/**
 * Whether a listed server is one `ref` names, in resolveTargets' grammar: `id:…` its id, a glob
 * its name (case-sensitive), else its id or its name (case-insensitive). For a command that has
 * the listing already (gsh config narrows the servers its files manage).
 */
export function refMatcher(ref: string, pm: typeof import('picomatch')): (t: Target) => boolean {
  const marked = markedId(ref);
  if (marked !== undefined) return (t) => t.id === marked;
  if (isPattern(ref)) {
    const isMatch = pm(ref, { dot: true });
    return (t) => t.name !== undefined && isMatch(t.name);
  }
  return (t) => t.id === ref || t.name?.toLowerCase() === ref.toLowerCase();
}

/** One plain id or name: the command runs exactly as it always has for one server. */
export function singleRef(r: TargetRefs): string | undefined {
  const [only] = r.refs;
  return !r.all && r.refs.length === 1 && only !== '-' && !isPattern(only as string) ? only : undefined;
}

/**
 * Every server the references name, in the order named, each once. A glob that matches nothing
 * is a usage error; a name or id no server in the listing has is checked once as an id
 * (`GET /servers/{ref}`), and any that is neither stops the command (exit 5, lookUpServer's rule)
 * before anything else is sent: a fleet command never runs on part of what was asked for by
 * accident. What each reference is goes to `references` (the plan shows it).
 */
export async function resolveTargets(client: ApiClient, r: TargetRefs, stdin: StdinText, references: ServerReference[]): Promise<Target[]> {
  const refs = r.refs.flatMap((ref) => (ref === '-' ? stdin.take().split('\n').map((l) => l.trim()).filter(Boolean) : [ref]));
  if (!r.all && refs.length === 0) throw new UsageError('-s - read no server from standard input');
  const note = (ref: string, is: ServerReference['is'], matched: Target[], known?: ServerReference['known']) =>
    references.push({ ref, is, servers: matched.map((t) => ({ ...t })), ...(known ? { known } : {}) });
  // `id:…` references are used as they are: when they are all there is, nothing is listed.
  if (!r.all && refs.every((ref) => markedId(ref) !== undefined)) {
    const marked = [...new Map(refs.map((ref) => [markedId(ref) as string, { id: markedId(ref) as string }])).values()];
    for (const ref of refs) note(ref, 'id', [{ id: markedId(ref) as string }], 'id:');
    return marked;
  }
  const { items } = await fetchAll(client, { method: 'GET', path: '/servers' });
  listings.set(client, items.filter((i): i is Record<string, unknown> => i !== null && typeof i === 'object'));
  const servers = (items as ServerItem[]).filter((s) => s.id !== undefined).map((s) => ({ id: String(s.id), ...(s.name !== undefined ? { name: s.name } : {}) }));
  if (r.all) return servers;
  const picked = new Map<string, Target>();
  const missing: string[] = [];
  let absent: ApiError | undefined;
  const { default: picomatch } = await import('picomatch');
  for (const ref of refs) {
    let matched: Target[];
    const marked = markedId(ref);
    if (marked !== undefined) {
      matched = [servers.find((s) => s.id === marked) ?? { id: marked }];
      note(ref, 'id', matched, 'id:');
    } else if (isPattern(ref)) {
      const isMatch = picomatch(ref, { dot: true });
      matched = servers.filter((s) => s.name !== undefined && isMatch(s.name));
      if (!matched.length) throw new UsageError(`-s '${ref}' matches no server name`, 'List them with gsh servers list.');
      note(ref, 'pattern', matched);
    } else {
      const byId = servers.filter((s) => s.id === ref);
      const named = servers.filter((s) => s.name?.toLowerCase() === ref.toLowerCase());
      if (!byId.length && named.length > 1) throw new UsageError(`"${ref}" names ${named.length} servers`, `Use ids: ${named.map((s) => `${s.id} (${s.name})`).join(', ')}`);
      matched = byId.length ? byId : named;
      if (!matched.length) {
        // Not listed: an id the listing does not show (another form of it) is still an id.
        const server = await serverById(client, ref);
        if (server instanceof ApiError) {
          missing.push(ref);
          absent = server;
          continue;
        }
        matched = [{ id: ref, ...(typeof server.name === 'string' ? { name: server.name } : {}) }];
      }
      note(ref, named.length && !byId.length ? 'name' : 'id', matched);
    }
    for (const s of matched) picked.set(s.id, s);
  }
  if (absent) {
    const err = await unknownServers(client, missing, absent, servers.flatMap((s) => (s.name !== undefined ? [s.name] : [])));
    references.push(...err.references);
    throw err;
  }
  return [...picked.values()];
}
