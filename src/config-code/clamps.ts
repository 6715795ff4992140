import { join } from 'node:path';
import { configDir, configDirProblem, writePrivateCache } from '../core/auth/store.js';
import { readPrivateFile } from '../core/disk/disk.js';
import type { Runtime } from '../core/run/runtime.js';

// Clamps (02-endpoints-part-a.md "Properties": resource-related keys are clamped on free-plan
// servers): the service stored another value than the one `apply` sent. The contract names
// neither the keys nor the plan, so the write's answer is the only witness: apply keeps what it
// saw here (config dir, mode 0600), and `diff` names a difference that is exactly a clamp it saw
// as one, with its next step, instead of as drift a second apply would fix.

export const CLAMPS_FILE = 'config-clamps.json';
const MAX_ENTRIES = 500;

export interface Clamp {
  /** The service's base URL and the server id: ids are unique per service. */
  server: string;
  /** The declared path: `properties.max-players`. */
  path: string;
  sent: string;
  stored: string;
  /** When it was seen (the run's clock, ms). */
  at: number;
}

interface ClampFile {
  version: 1;
  clamps: Clamp[];
}

const fileOf = (rt: Runtime) => join(configDir(rt.env), CLAMPS_FILE);
const serverKey = (rt: Runtime, serverId: string) => `${rt.auth?.baseUrl ?? rt.globals.baseUrl ?? rt.env.GSH_BASE_URL ?? ''} ${serverId}`;

function load(rt: Runtime): Clamp[] {
  if (configDirProblem(rt.env)) return [];
  try {
    const data = JSON.parse(readPrivateFile(fileOf(rt))?.toString('utf8') ?? 'null') as ClampFile | null;
    return data?.version === 1 && Array.isArray(data.clamps) ? data.clamps.filter((c) => c && typeof c.path === 'string' && typeof c.stored === 'string' && typeof c.sent === 'string') : [];
  } catch {
    return [];
  }
}

/** The clamps this machine has seen, for the servers of this run's service. */
export interface ClampMemory {
  /** The clamp seen when `sent` was written at `path` and `stored` came back, if that is what the live value is. */
  find(serverId: string, path: string, sent: string, live: string): Clamp | undefined;
}

export function clampMemory(rt: Runtime): ClampMemory {
  const all = load(rt);
  return {
    find: (serverId, path, sent, live) => all.find((c) => c.server === serverKey(rt, serverId) && c.path === path && c.sent === sent && c.stored === live),
  };
}

/** Keeps what apply saw (the newest first, bounded); a value written as declared later forgets it. */
export function rememberClamps(rt: Runtime, seen: Array<{ serverId: string; path: string; sent: string; stored: string }>, written: Array<{ serverId: string; path: string }>): void {
  if (rt.dryRun || (!seen.length && !written.length) || configDirProblem(rt.env)) return;
  const key = (serverId: string, path: string) => `${serverKey(rt, serverId)}\0${path}`;
  const replaced = new Set([...seen, ...written].map((c) => key(c.serverId, c.path)));
  const kept = load(rt).filter((c) => !replaced.has(`${c.server}\0${c.path}`));
  const at = rt.now();
  const fresh = seen.map((c): Clamp => ({ server: serverKey(rt, c.serverId), path: c.path, sent: c.sent, stored: c.stored, at }));
  if (!fresh.length && kept.length === load(rt).length) return;
  writePrivateCache(rt.env, fileOf(rt), { version: 1, clamps: [...fresh, ...kept].slice(0, MAX_ENTRIES) } satisfies ClampFile);
}
