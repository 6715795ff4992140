import { EventEmitter } from 'node:events';
import { isoSeconds } from './clock.js';
import { APPLICATIONS, REGIONS, pickServerNames, type Application } from './demo-data.js';
import type { Prng } from './prng.js';

// The sandbox's in-memory model. Tests read it to count effects (power actions applied, servers
// created); handlers mutate it. Runtime transitions live in lifecycle.ts.

export type RuntimeState = 'offline' | 'starting' | 'running' | 'stopping';
export type PowerSignal = 'start' | 'stop' | 'restart' | 'kill';

export interface ServerRecord {
  id: string;
  name: string;
  description?: string;
  application: string;
  plan: 'free' | 'paid';
  region: string;
  node: string;
  createdAt: number;
  limits: { memory_mb: number; cpu_percent: number; disk_mb: number };
  state: RuntimeState;
  /** When it entered `running` (uptime). */
  runningSince?: number;
  /** The node runs a startup queue: start/restart answer power_state `queued`. */
  startupQueue: boolean;
  /** On a storage node: the next start answers `transferring` and moves it first. */
  stored: boolean;
  /** Waiting in the node's startup queue right now. */
  queuedSince?: number;
  /** Moving back to a runtime node right now. */
  transferring?: boolean;
  /** Reinstall (or other lifecycle work) in progress; omitted from status when undefined. */
  lifecycleStatus?: string;
  /** Suspended by the provider: changes to it answer 403 server_suspended (01-general-contract.md "Errors"). */
  suspended?: boolean;
  /** Its node does not answer: reads and writes of its files (server.properties, configs) answer 502 (02 "Properties"). */
  nodeUnreachable?: boolean;
  /** Free-plan rule: start/restart needs a recent ad view (off for the demo servers). */
  adRequired: boolean;
  adViewedAt?: number;
  diskBytes: number;
  /** Cancels of the armed transition timers (cleared on kill/delete). */
  timers: Set<() => void>;
}

export interface CreationJob {
  object: 'server_creation_job';
  job_id: string;
  state: 'queued' | 'running' | 'ready' | 'failed';
  progress: number;
  message: string;
  server_id?: string;
  warnings?: Array<{ message: string }>;
  errors?: Array<{ field?: string; message: string }>;
  created_at: string;
}

export interface PowerAction {
  serverId: string;
  signal: PowerSignal;
  powerState: 'applied' | 'queued' | 'transferring';
  at: number;
}

/** Generic per-path storage for operations without specific semantics yet. */
export class ResourceStore {
  /** Collection path (concrete) → id → object, in insertion order. */
  readonly collections = new Map<string, Map<string, Record<string, unknown>>>();
  /** Singleton path (concrete) → object. */
  readonly singletons = new Map<string, Record<string, unknown>>();

  collection(path: string): Map<string, Record<string, unknown>> {
    let c = this.collections.get(path);
    if (!c) {
      c = new Map();
      this.collections.set(path, c);
    }
    return c;
  }

  /** Forget everything stored under a path prefix (e.g. a deleted server's sub-resources). */
  removeUnder(prefix: string): void {
    for (const map of [this.collections, this.singletons] as Array<Map<string, unknown>>) {
      for (const k of [...map.keys()]) if (k === prefix || k.startsWith(`${prefix}/`)) map.delete(k);
    }
  }
}

export interface SandboxState {
  account: { object: 'account'; id: number; username: string };
  applications: readonly Application[];
  servers: Map<string, ServerRecord>;
  createJobs: Map<string, CreationJob>;
  /** Every power action that was accepted (202), in order. */
  powerActions: PowerAction[];
  /** Every accepted reinstall, in order. */
  reinstalls: Array<{ serverId: string; wipe: boolean; at: number }>;
  deletedServers: string[];
  generic: ResourceStore;
  /** Job-like objects polled at a concrete path (generic 202 jobs, init provisioning jobs). */
  jobs: Map<string, Record<string, unknown>>;
  /**
   * Change notifications for later consumers (console node): `server-state` (server, previous),
   * `server-created` (server), `server-deleted` (id), `power` (PowerAction).
   */
  events: EventEmitter;
}

export function sortedServers(state: SandboxState): ServerRecord[] {
  return [...state.servers.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : 1));
}

export function newServerId(state: SandboxState, rng: Prng): string {
  let id: string;
  do id = rng.hex(8);
  while (state.servers.has(id));
  return id;
}

export function makeServer(
  state: SandboxState,
  rng: Prng,
  init: Partial<ServerRecord> & { name: string; application: string },
): ServerRecord {
  const memory = rng.pick([1024, 2048, 4096, 8192]);
  return {
    id: newServerId(state, rng),
    plan: 'free',
    region: rng.pick(REGIONS),
    node: `node-${rng.int(1, 24)}`,
    createdAt: Date.now(),
    limits: { memory_mb: memory, cpu_percent: rng.pick([100, 200, 400]), disk_mb: memory * 5 },
    state: 'offline',
    startupQueue: false,
    stored: false,
    adRequired: false,
    diskBytes: rng.int(200, 3000) * 1024 * 1024,
    timers: new Set(),
    ...init,
  };
}

/**
 * Demo data: one account, the catalogue and `count` servers with sorted names. Kinds rotate so a
 * default sandbox shows each power path: index 0 running, 1 offline on a startup-queue node,
 * 2 offline and stored (first start transfers); then normal, queue-node, normal, ...
 */
export function seedState(rng: Prng, count: number): SandboxState {
  const state: SandboxState = {
    account: { object: 'account', id: rng.int(1000, 99999), username: 'demo' },
    applications: APPLICATIONS,
    servers: new Map(),
    createJobs: new Map(),
    powerActions: [],
    reinstalls: [],
    deletedServers: [],
    generic: new ResourceStore(),
    jobs: new Map(),
    events: new EventEmitter(),
  };
  const base = Date.UTC(2024, 0, 15, 9, 0, 0);
  pickServerNames(rng, count).forEach(({ name, application }, i) => {
    const app = APPLICATIONS.find((a) => a.slug === application);
    const s = makeServer(state, rng, {
      name,
      application,
      plan: app?.free_tier && rng.next() < 0.5 ? 'free' : 'paid',
      createdAt: base + i * 86_400_000 + rng.int(0, 86_399) * 1000,
      startupQueue: i === 1 || (i >= 3 && i % 2 === 0),
      stored: i === 2,
    });
    if (i === 0) {
      s.state = 'running';
      s.runningSince = Date.now() - rng.int(600, 86_400) * 1000;
    }
    state.servers.set(s.id, s);
  });
  return state;
}

/** The `server` object (stable metadata). */
export function serverObject(s: ServerRecord): Record<string, unknown> {
  return {
    object: 'server',
    id: s.id,
    name: s.name,
    ...(s.description ? { description: s.description } : {}),
    application: s.application,
    plan: s.plan,
    region: s.region,
    node: s.node,
    limits: { ...s.limits },
    created_at: isoSeconds(s.createdAt),
  };
}
