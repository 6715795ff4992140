import { closeSync, openSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { os } from '../builtin.js';
import { type DirProblem, makePrivateDir, privateDirProblem, privateFileProblem, releaseLock, replaceFile, takeLock } from '../disk/disk.js';
import { GshError } from '../errors.js';

// The auth store (ARCHITECTURE.md "Auth store"): one JSON file, mode 0600, with named profiles.
// Reads check its shape (a wrong one is an error, and the file is left alone); every write is a
// locked read-modify-write that replaces the file atomically, so concurrent logins lose nothing.
// The config dir is used as ssh uses ~/.ssh (core/disk/disk.ts privateDirProblem): the store is read
// only from a directory that is the user's own and that no one else can write to (else anyone who
// can could swap in credentials and a service of their own), and only a file of the user's own.

export interface AgentIdentity {
  method: 'service_auth' | 'anonymous' | 'identity_assertion';
  identity_assertion?: string;
  access_token?: string;
  /** ISO 8601. */
  expires_at?: string;
  /** Lifetime of the current access token in seconds (how early to renew it). */
  expires_in?: number;
  /** {auth_url}: where the registration and token endpoints live (the base URL unless discovery says otherwise). */
  auth_url?: string;
  /** The claim grant type as discovery names it. */
  claim_grant_type?: string;
  claim_token?: string;
  claimed?: boolean;
  /** When an unclaimed temporary account is deleted, if the service said (ISO 8601). */
  account_expires_at?: string;
  account?: { id?: number; username?: string };
  scopes?: string[];
  /** Unfinished `auth login --agent --no-wait` state. */
  pending?: Record<string, unknown>;
}

export interface Profile {
  base_url?: string;
  api_key?: string;
  agent?: AgentIdentity;
}

export interface StoreData {
  current?: string;
  profiles: Record<string, Profile>;
}

export const DEFAULT_PROFILE = 'default';

export function configDir(env: NodeJS.ProcessEnv): string {
  if (env.GSH_CONFIG_DIR) return env.GSH_CONFIG_DIR;
  const homedir = () => os().homedir();
  if (process.platform === 'win32') return join(env.APPDATA || join(homedir(), 'AppData', 'Roaming'), 'gsh');
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'gsh');
}

/** Why the config dir may not hold gsh's files (caches are then neither read nor written), or undefined. */
export function configDirProblem(env: NodeJS.ProcessEnv): DirProblem | undefined {
  return privateDirProblem(configDir(env));
}

/**
 * Writes a cache beside the config (remembered servers, completion answers) as JSON: replaced
 * atomically (core/disk/disk.ts replaceFile), mode 0600, in a 0700 directory that passes the check.
 * A cache that cannot be written is left as it was: it only costs the next run a request.
 */
export function writePrivateCache(env: NodeJS.ProcessEnv, file: string, data: unknown): void {
  try {
    if (makePrivateDir(configDir(env)) === undefined) replaceFile(file, `${JSON.stringify(data)}\n`);
  } catch {
    // Left as it was.
  }
}

/**
 * Throws when the config dir may not hold the config file (a command about to save one checks
 * before it asks for a key, not after).
 */
export function assertConfigDirUsable(env: NodeJS.ProcessEnv): void {
  const problem = configDirProblem(env);
  if (problem) throw untrusted(configPath(env), problem, 'not writing');
}

/** The error for a config dir or file gsh will not use, with what fixes it. */
function untrusted(path: string, problem: DirProblem, doing: string): GshError {
  const fix = problem.fix.replace(/^run: /, 'Run: ').replace(/^remove/, 'Remove');
  return new GshError(`${doing} ${path}: ${problem.path}: ${problem.why}`, 1, `${fix}; credentials are read only from where no one else can write, as ssh does.`);
}

export function configPath(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), 'config.json');
}

function readStore(env: NodeJS.ProcessEnv): StoreData {
  const path = configPath(env);
  let text: string;
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
    throw new GshError(`cannot read ${path}: ${(err as Error).message}`);
  }
  try {
    const problem = configDirProblem(env) ?? privateFileProblem(fd, path);
    if (problem) throw untrusted(path, problem, 'not reading');
    text = readFileSync(fd, 'utf8');
  } catch (err) {
    if (err instanceof GshError) throw err;
    throw new GshError(`cannot read ${path}: ${(err as Error).message}`);
  } finally {
    closeSync(fd);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new GshError(`the config file ${path} is not valid JSON`, 1, 'Fix or remove it, then run `gsh auth login` again.');
  }
  const problem = shapeProblem(data);
  if (problem) throw new GshError(`the config file ${path} is not a gsh config: ${problem}`, 1, 'Fix or remove it; gsh does not write to it until then.');
  const store = data as StoreData;
  store.profiles ??= {};
  return store;
}

/** The first way `data` is not the config's shape (extra fields are fine and kept). */
function shapeProblem(data: unknown): string | undefined {
  const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (!isObject(data)) return `the top level is ${Array.isArray(data) ? 'an array' : data === null ? 'null' : `a ${typeof data}`}, not an object`;
  if (data.current !== undefined && typeof data.current !== 'string') return '"current" is not a profile name (a string)';
  if (data.profiles !== undefined && !isObject(data.profiles)) return `"profiles" is ${data.profiles === null ? 'null' : Array.isArray(data.profiles) ? 'an array' : `a ${typeof data.profiles}`}, not an object of profiles`;
  for (const [name, profile] of Object.entries((data.profiles ?? {}) as Record<string, unknown>)) {
    if (!isObject(profile)) return `profile "${name}" is not an object`;
    for (const key of ['base_url', 'api_key'] as const) {
      if (profile[key] !== undefined && typeof profile[key] !== 'string') return `profile "${name}": "${key}" is not a string`;
    }
    if (profile.agent !== undefined && !isObject(profile.agent)) return `profile "${name}": "agent" is not an object`;
  }
  return undefined;
}

/** How long a lock may be held before another writer takes it as abandoned (a crashed gsh). */
const STALE_LOCK_MS = 10_000;
const LOCK_WAIT_MS = 15_000;

/**
 * A lock beside the config file: a directory, since creating one is atomic on every platform and
 * filesystem (mkdir fails if it exists). A lock older than STALE_LOCK_MS is removed and retaken.
 */
async function withLock<T>(path: string, fn: () => T): Promise<T> {
  const lock = `${path}.lock`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    let taken: boolean;
    try {
      taken = takeLock(lock);
    } catch (err) {
      throw new GshError(`cannot lock ${path}: ${(err as Error).message}`);
    }
    if (taken) break;
    const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if (age > STALE_LOCK_MS) releaseLock(lock);
    else if (Date.now() > deadline) throw new GshError(`${path} stayed locked for ${LOCK_WAIT_MS / 1000} s`, 1, `If no other gsh is running, remove ${lock}.`);
    else await new Promise((r) => setTimeout(r, 10 + Math.random() * 40));
  }
  try {
    return fn();
  } finally {
    releaseLock(lock);
  }
}

/**
 * A locked read-modify-write: the file is read again under the lock (so concurrent logins each
 * add their profile), written to a temporary file with mode 0600 and renamed over the old one.
 */
async function updateStore(change: (data: StoreData) => void, env: NodeJS.ProcessEnv): Promise<StoreData> {
  const path = configPath(env);
  let problem: DirProblem | undefined;
  try {
    problem = makePrivateDir(configDir(env));
  } catch (err) {
    throw new GshError(`cannot create ${configDir(env)}: ${(err as Error).message}`);
  }
  if (problem) throw untrusted(path, problem, 'not writing');
  return withLock(path, () => {
    const data = readStore(env);
    change(data);
    try {
      replaceFile(path, `${JSON.stringify(data, null, 2)}\n`);
    } catch (err) {
      throw new GshError(`cannot write ${path}: ${(err as Error).message}`);
    }
    return data;
  });
}

/** The auth store a command reads and writes (Context.store). */
export interface ConfigStore {
  readonly path: string;
  read(): StoreData;
  /** Applies `change` to the stored data and writes it (0600, atomically). */
  update(change: (data: StoreData) => void): Promise<StoreData>;
}

/** The store in the config file that `env` points at (GSH_CONFIG_DIR, XDG_CONFIG_HOME, home). */
export function fileStore(env: NodeJS.ProcessEnv): ConfigStore {
  return {
    get path() {
      return configPath(env);
    },
    read: () => readStore(env),
    update: (change) => updateStore(change, env),
  };
}

/** Which profile a command uses: --profile > GSH_PROFILE > the current one > `default`. */
export function profileName(flag: string | undefined, env: NodeJS.ProcessEnv, data: StoreData): string {
  return flag || env.GSH_PROFILE || data.current || DEFAULT_PROFILE;
}
