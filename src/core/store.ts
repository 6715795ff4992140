import { mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { GshError } from './errors.js';

// The auth store (DESIGN.md "Auth store"): one JSON file, mode 0600, with named profiles. Reads
// use fs directly, since a command that only needs a key must not pay conf's load time (about
// 2x node's startup); every write goes through conf, which writes atomically with the file mode.

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
  if (process.platform === 'win32') return join(env.APPDATA || join(homedir(), 'AppData', 'Roaming'), 'gsh');
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'gsh');
}

export function configPath(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), 'config.json');
}

function readStore(env: NodeJS.ProcessEnv): StoreData {
  let text: string;
  try {
    text = readFileSync(configPath(env), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
    throw new GshError(`cannot read ${configPath(env)}: ${(err as Error).message}`);
  }
  try {
    const data = JSON.parse(text) as Partial<StoreData>;
    return { current: data.current, profiles: data.profiles ?? {} };
  } catch {
    throw new GshError(
      `the config file ${configPath(env)} is not valid JSON`,
      1,
      'Fix or remove it, then run `gsh auth login` again.',
    );
  }
}

async function updateStore(
  change: (data: StoreData) => void,
  env: NodeJS.ProcessEnv,
): Promise<StoreData> {
  const data = readStore(env);
  change(data);
  mkdirSync(configDir(env), { recursive: true, mode: 0o700 });
  const { default: Conf } = await import('conf');
  const conf = new Conf<Record<string, unknown>>({
    projectName: 'gsh',
    cwd: configDir(env),
    configName: 'config',
    configFileMode: 0o600,
    accessPropertiesByDotNotation: false,
    clearInvalidConfig: false,
  });
  conf.store = { ...(data.current === undefined ? {} : { current: data.current }), profiles: data.profiles };
  return data;
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
