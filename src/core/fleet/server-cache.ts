import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crypto } from '../builtin.js';
import { describeProblem, removeFile } from '../disk/disk.js';
import { ApiError } from '../errors.js';
import type { ApiClient } from '../wire/http.js';
import type { Runtime } from '../run/runtime.js';
import { findByName, type LookedUp, lookUpServer, UnknownServerError } from './server-ref.js';
import { configDir, configDirProblem, writePrivateCache } from '../auth/store.js';

// Resolve once (README "Remembered servers"): a server reference that resolved to an id is kept
// in the config dir (mode 0600), per base URL and credential (a hash of them, never the secret),
// so the next command that names it sends only its own requests. A name is kept for an hour (a
// rename can move it to another server), an id for a day (it always names the same server). A
// command that gets 404 for a remembered id looks the reference up again once (lookUpAgain).

export const CACHE_FILE = 'server-refs.json';
export const NAME_TTL_MS = 60 * 60_000;
export const ID_TTL_MS = 24 * 60 * 60_000;
/** Bounds on the file: the newest entries of the most recently used scopes are kept. */
const MAX_ENTRIES = 500;
const MAX_SCOPES = 16;

interface Entry {
  id: string;
  /** When it was looked up (the run's clock, ms). */
  at: number;
}

interface CacheFile {
  version: 1;
  scopes: Record<string, Record<string, Entry>>;
}

export interface ServerMemory {
  /** The id a reference resolved to, while it is fresh. */
  get(ref: string): string | undefined;
  remember(ref: string, id: string): void;
  forget(ref: string): void;
}

export function cachePath(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), CACHE_FILE);
}

const memories = new WeakMap<Runtime, ServerMemory>();

/** The remembered servers of this run's base URL and credential (after rt.client()). */
function serverMemory(rt: Runtime): ServerMemory {
  let m = memories.get(rt);
  if (!m) {
    m = open(rt, scopeKey(rt));
    memories.set(rt, m);
  }
  return m;
}

/**
 * Which base URL and credential the entries belong to: a SHA-256 of them, so the file holds no
 * secret. An agent's token renews itself, so its profile (and account) stands for it instead.
 */
function scopeKey(rt: Runtime): string {
  const auth = rt.auth;
  const envSecret = rt.globals.profile ? undefined : (rt.env.GSH_TOKEN || rt.env.GSH_API_KEY);
  let credential = envSecret ?? '';
  if (!envSecret && auth) {
    try {
      const profile = rt.store.read().profiles[auth.profile];
      credential = profile?.api_key ?? `agent ${auth.profile} ${profile?.agent?.account?.id ?? ''}`;
    } catch {
      credential = `profile ${auth.profile}`;
    }
  }
  return crypto().createHash('sha256').update([auth?.baseUrl ?? rt.globals.baseUrl ?? rt.env.GSH_BASE_URL ?? '', auth?.source ?? '', credential].join('\0')).digest('hex');
}

function readCache(file: string): CacheFile {
  try {
    const c = JSON.parse(readFileSync(file, 'utf8')) as CacheFile;
    if (c && c.version === 1 && c.scopes && typeof c.scopes === 'object') return c;
  } catch {
    // Missing or damaged: a cache starts empty (the next write replaces a damaged file).
  }
  return { version: 1, scopes: {} };
}

/** Remembers nothing: the config dir is not the user's alone, so what is in it may be planted. */
const NO_MEMORY: ServerMemory = { get: () => undefined, remember: () => {}, forget: () => {} };

function open(rt: Runtime, scope: string): ServerMemory {
  const problem = configDirProblem(rt.env);
  if (problem) {
    rt.warn(`remembered servers not used: ${describeProblem(problem)}`);
    return NO_MEMORY;
  }
  const file = cachePath(rt.env);
  const isId = (ref: string, id: string) => ref === id;
  const fresh = (ref: string, e: Entry | undefined, now: number): e is Entry =>
    e !== undefined && typeof e.id === 'string' && typeof e.at === 'number' && e.at <= now && now - e.at < (isId(ref, e.id) ? ID_TTL_MS : NAME_TTL_MS);
  const change = (edit: (entries: Record<string, Entry>) => void) => {
    // A dry run changes nothing on disk, the cache included.
    if (rt.dryRun) return;
    const data = readCache(file);
    const entries = { ...data.scopes[scope] };
    edit(entries);
    const now = rt.now();
    const kept = Object.entries(entries).filter(([ref, e]) => fresh(ref, e, now)).sort((a, b) => b[1].at - a[1].at).slice(0, MAX_ENTRIES);
    delete data.scopes[scope];
    // The scope just used goes last: the oldest scopes are dropped first.
    data.scopes = Object.fromEntries([...Object.entries(data.scopes).slice(-(MAX_SCOPES - 1)), [scope, Object.fromEntries(kept)]]);
    writePrivateCache(rt.env, file, data);
  };
  return {
    get(ref) {
      const e = readCache(file).scopes[scope]?.[ref];
      return fresh(ref, e, rt.now()) ? e.id : undefined;
    },
    remember(ref, id) {
      const at = rt.now();
      change((entries) => {
        entries[ref] = { id, at };
        entries[id] = { id, at };
      });
    },
    forget(ref) {
      change((entries) => {
        const id = entries[ref]?.id;
        delete entries[ref];
        if (id !== undefined) delete entries[id];
      });
    },
  };
}

/** Forgets every remembered server (`gsh cache clear`); true when there was a file. */
export function clearCache(env: NodeJS.ProcessEnv): boolean {
  return removeFile(cachePath(env));
}

export interface ResolvedServer {
  id: string;
  /** The id came from the cache, not from the service in this run. */
  remembered: boolean;
  /**
   * No name matched and `ref` goes unchecked to the command's own request, `GET /servers/{id}`
   * (lookUpServer's `ownRequestChecks`): call confirm() once it is answered, so that `ref` is
   * remembered as an id; its 404 is the reference matching nothing.
   */
  confirm?: () => void;
}

/**
 * The id of `ref`: remembered, or looked up (and then remembered). `id:…` and UUIDs are never
 * looked up.
 * What the reference turned out to be is kept in `rt.references` for the plan (`--dry-run`).
 */
export async function resolveRemembered(rt: Runtime, client: ApiClient, ref: string, opts: { ownRequestChecks?: boolean } = {}): Promise<ResolvedServer> {
  const memory = serverMemory(rt);
  const known = memory.get(ref);
  if (known !== undefined) {
    rt.references.push({ ref, is: ref === known ? 'id' : 'name', servers: [{ id: known }], known: 'remembered' });
    return { id: known, remembered: true };
  }
  let found: LookedUp;
  try {
    found = await lookUpServer(client, ref, opts);
  } catch (err) {
    if (err instanceof UnknownServerError) rt.references.push(...err.references);
    throw err;
  }
  if (found.confirmed) memory.remember(ref, found.id);
  const server = { id: found.id, ...(found.name !== undefined ? { name: found.name } : {}) };
  rt.references.push({ ref, is: found.is, servers: [server], ...(found.known ? { known: found.known } : {}) });
  return { id: found.id, remembered: false, ...(found.unchecked ? { confirm: () => memory.remember(ref, ref) } : {}) };
}

/** The id of `ref`, remembered or looked up (the plain form most commands need). */
export async function serverIdOf(rt: Runtime, client: ApiClient, ref: string): Promise<string> {
  return (await resolveRemembered(rt, client, ref)).id;
}

/**
 * After a 404 for a remembered id: forget it and look `ref` up again, once. Gives the new id (and
 * says so on stderr), or undefined when the lookup finds the same id or none (the 404 stands).
 */
export async function lookUpAgain(rt: Runtime, client: ApiClient, ref: string, staleId: string): Promise<string | undefined> {
  const memory = serverMemory(rt);
  memory.forget(ref);
  const found = await findByName(client, ref);
  // Nothing listed under it now: the 404 stands.
  if (!found) return undefined;
  memory.remember(ref, found.id);
  if (found.id === staleId) return undefined;
  rt.note(`note: "${ref}" was remembered as server ${staleId}, which the service no longer knows (404); looked it up again: ${found.id}`);
  return found.id;
}

/**
 * Runs `use` on the server `ref` resolved to (hand-written commands; generated ones do the same
 * in leaf/run.ts): when its id was remembered and the service answers 404, `ref` is looked up
 * again once and, if it now names another server, `use` runs on that one.
 */
export async function onServer<T>(rt: Runtime, client: ApiClient, ref: string, resolved: ResolvedServer, use: (id: string) => Promise<T>): Promise<T> {
  try {
    return await use(resolved.id);
  } catch (err) {
    const again = resolved.remembered && err instanceof ApiError && err.status === 404 ? await lookUpAgain(rt, client, ref, resolved.id) : undefined;
    if (again === undefined) throw err;
    return use(again);
  }
}
