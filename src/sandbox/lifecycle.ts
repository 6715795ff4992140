import type { Clock } from './clock.js';
import { isoSeconds } from './clock.js';
import { findApplication } from './demo-data.js';
import { ApiFailure, compact, fail } from './envelope.js';
import type { Prng } from './prng.js';
import {
  makeServer,
  type CreationJob, type PowerSignal, type RuntimeState, type SandboxState, type ServerRecord,
} from './state.js';

// Simulated time-based behaviour: the power state machine, reinstalls and server creation jobs
// (init provisioning, started when a created server is ready, is init/provisioning.ts). Durations are in simulated ms and scale with timeScale (Clock).
//
// Power (02-endpoints-part-a.md "Power"; transitions are "not shown" in the contract, so these are
// ours): offline -start-> starting -> running; running -stop-> stopping -> offline; restart =
// stop then start (an offline server just starts); kill -> offline at once, from any state.
// start/stop/restart while starting or stopping: 409 conflict (action in progress); start while
// running or stop while offline: 409 conflict (state). A node with a startup queue answers
// `queued` and the server waits (state `starting`) before booting; a stored server answers
// `transferring` and moves to a runtime node first (also shown as `starting`). While a reinstall
// runs, power answers 409 server_installing.

export const DURATIONS = {
  queueWait: 3000,
  transfer: 4000,
  boot: 2500,
  shutdown: 1500,
  reinstall: 4000,
  createSteps: [1000, 2000, 3500, 4500],
  initPhase: 400,
} as const;

/** An ad view counts for this long (01-general-contract.md "Limits": ad retry window). */
export const AD_WINDOW_MS = 5 * 60 * 1000;

export class Lifecycle {
  /**
   * How long a boot and a shutdown take here (test hook: a node slow to stop, 2.5 s, lands the
   * stop's end on a status poll of gsh). A restart always passes through offline, as a real node's.
   */
  readonly timing: { boot: number; shutdown: number } = { boot: DURATIONS.boot, shutdown: DURATIONS.shutdown };

  constructor(
    private readonly state: SandboxState,
    private readonly clock: Clock,
    private readonly rng: Prng,
    /** Browser link that records an ad view for a server (admin API). */
    private readonly adUrl: (serverId: string) => string,
    /** The wall clock uptime is counted on (the sandbox's `now`), and its unit (SandboxOptions.uptimeUnit). */
    private readonly uptimeClock: { now: () => number; uptimePerSecond: number } = { now: Date.now, uptimePerSecond: 1 },
  ) {}

  private setState(s: ServerRecord, next: RuntimeState): void {
    const previous = s.state;
    if (previous === next) return;
    s.state = next;
    if (next === 'running') s.runningSince = this.uptimeClock.now();
    if (next === 'offline') delete s.runningSince;
    this.state.events.emit('server-state', s, previous);
  }

  private arm(s: ServerRecord, ms: number, fn: () => void): void {
    const cancel = this.clock.after(ms, () => {
      s.timers.delete(cancel);
      if (this.state.servers.get(s.id) === s) fn();
    });
    s.timers.add(cancel);
  }

  private cancelTransitions(s: ServerRecord): void {
    for (const cancel of s.timers) cancel();
    s.timers.clear();
    delete s.queuedSince;
    delete s.transferring;
  }

  power(s: ServerRecord, signal: PowerSignal): 'applied' | 'queued' | 'transferring' {
    if (s.lifecycleStatus) {
      throw new ApiFailure(409, 'server_installing', 'The server is reinstalling; retry once the install completes');
    }
    const busy = s.state === 'starting' || s.state === 'stopping';
    if (signal === 'kill') {
      this.cancelTransitions(s);
      this.setState(s, 'offline');
      return this.record(s, signal, 'applied');
    }
    if (busy) throw fail.conflict(`A power action is already in progress (server is ${s.state})`);
    if (signal === 'start' && s.state === 'running') throw fail.conflict('The server is already running');
    if (signal === 'stop' && s.state === 'offline') throw fail.conflict('The server is already offline');
    if ((signal === 'start' || signal === 'restart') && s.adRequired) {
      if (s.adViewedAt === undefined || Date.now() - s.adViewedAt > AD_WINDOW_MS) {
        throw new ApiFailure(403, 'ad_required', 'Starting this free-plan server needs an ad view; open action_url, then retry within 5 minutes', {
          action_url: this.adUrl(s.id),
        });
      }
    }
    if (signal === 'stop') {
      this.setState(s, 'stopping');
      this.arm(s, this.timing.shutdown, () => this.setState(s, 'offline'));
      return this.record(s, signal, 'applied');
    }
    if (s.state === 'running') {
      // restart of a running server: stop, then start as a start would.
      this.setState(s, 'stopping');
      this.arm(s, this.timing.shutdown, () => {
        this.setState(s, 'offline');
        this.beginStart(s);
      });
      return this.record(s, signal, s.stored ? 'transferring' : s.startupQueue ? 'queued' : 'applied');
    }
    return this.record(s, signal, this.beginStart(s));
  }

  private record(s: ServerRecord, signal: PowerSignal, powerState: 'applied' | 'queued' | 'transferring') {
    const action = { serverId: s.id, signal, powerState, at: Date.now() };
    this.state.powerActions.push(action);
    this.state.events.emit('power', action);
    return powerState;
  }

  private beginStart(s: ServerRecord): 'applied' | 'queued' | 'transferring' {
    this.setState(s, 'starting');
    const boot = () => this.arm(s, this.timing.boot, () => this.setState(s, 'running'));
    if (s.stored) {
      s.transferring = true;
      this.arm(s, DURATIONS.transfer, () => {
        s.stored = false;
        delete s.transferring;
        s.node = `node-${this.rng.int(1, 24)}`;
        boot();
      });
      return 'transferring';
    }
    if (s.startupQueue) {
      s.queuedSince = Date.now();
      this.arm(s, DURATIONS.queueWait, () => {
        delete s.queuedSince;
        boot();
      });
      return 'queued';
    }
    boot();
    return 'applied';
  }

  reinstall(s: ServerRecord, wipe: boolean): void {
    if (s.lifecycleStatus) throw fail.conflict('A reinstall is already in progress');
    this.cancelTransitions(s);
    this.setState(s, 'offline');
    s.lifecycleStatus = 'reinstalling';
    this.state.reinstalls.push({ serverId: s.id, wipe, at: Date.now() });
    this.arm(s, DURATIONS.reinstall, () => {
      delete s.lifecycleStatus;
      if (wipe) s.diskBytes = 150 * 1024 * 1024;
      this.state.events.emit('server-installed', s);
    });
  }

  /**
   * Generic long work observed through the status resource (operations whose registry entry
   * says `wait: server-status`): lifecycle_status shows `label` for `ms`, then disappears.
   */
  runLifecycle(s: ServerRecord, label: string, ms = DURATIONS.reinstall): void {
    if (s.lifecycleStatus) throw fail.conflict(`The server is busy (${s.lifecycleStatus})`);
    s.lifecycleStatus = label;
    this.arm(s, ms, () => {
      delete s.lifecycleStatus;
    });
  }

  /** `server_status` (Resource table "Server status"); usage numbers are plausible, not real. */
  status(s: ServerRecord): Record<string, unknown> {
    const running = s.state === 'running';
    const active = running || s.state === 'stopping';
    const { now, uptimePerSecond } = this.uptimeClock;
    const seconds = running && s.runningSince !== undefined ? Math.floor((now() - s.runningSince) / 1000) : 0;
    const uptime = uptimePerSecond === 1 ? seconds : running && s.runningSince !== undefined ? Math.max(0, now() - s.runningSince) : 0;
    const memLimit = s.limits.memory_mb * 1024 * 1024;
    return compact({
      object: 'server_status',
      state: s.state,
      node_ready: true,
      cpu_absolute: active ? Math.round(this.rng.next() * 600) / 10 : 0,
      memory_bytes: active ? Math.round(memLimit * (0.35 + this.rng.next() * 0.3)) : 0,
      memory_limit_bytes: memLimit,
      disk_bytes: s.diskBytes,
      network: { rx_bytes: seconds * 2048, tx_bytes: seconds * 4096 },
      uptime,
      lifecycle_status: s.lifecycleStatus,
    });
  }

  /**
   * Test hook: a server that is starting finishes booting now, its timers cancelled: the state
   * becomes running and the console prints its ready line, at a moment the test chooses.
   */
  finishBoot(s: ServerRecord): void {
    if (s.state !== 'starting') throw new Error(`server ${s.id} is ${s.state}, not starting`);
    this.cancelTransitions(s);
    this.setState(s, 'running');
  }

  deleteServer(s: ServerRecord): void {
    this.cancelTransitions(s);
    this.state.servers.delete(s.id);
    this.state.deletedServers.push(s.id);
    this.state.generic.removeUnder(`/servers/${s.id}`);
    for (const path of [...this.state.jobs.keys()]) if (path.startsWith(`/servers/${s.id}/`)) this.state.jobs.delete(path);
    this.state.events.emit('server-deleted', s.id);
  }

  /**
   * A creation job: queued → running (progress steps) → ready, when the server appears; or
   * failed at the install step when `failOnPurpose` (the sandbox's `fail: true` body field).
   */
  createServer(input: {
    name: string; application: string; plan: 'free' | 'paid'; region?: string; description?: string;
    failOnPurpose: boolean;
    /** Runs when the server exists (init provisioning starts there). */
    onReady?: (s: ServerRecord) => void;
  }): CreationJob {
    const job: CreationJob = {
      object: 'server_creation_job',
      job_id: `job_${this.rng.hex(12)}`,
      state: 'queued',
      progress: 0,
      message: 'Waiting for a free node',
      created_at: isoSeconds(),
    };
    this.state.createJobs.set(job.job_id, job);
    const appName = findApplication(input.application)?.name ?? input.application;
    const [t1, t2, t3, t4] = DURATIONS.createSteps;
    const step = (ms: number, fn: () => void) => this.clock.after(ms, () => {
      if (job.state !== 'failed') fn();
    });
    step(t1, () => Object.assign(job, { state: 'running', progress: 15, message: 'Allocating resources' }));
    step(t2, () => {
      if (input.failOnPurpose) {
        Object.assign(job, {
          state: 'failed', message: 'Provisioning failed',
          errors: [{ message: 'The node reported an install failure (requested with fail=true)' }],
        });
        return;
      }
      Object.assign(job, { progress: 45, message: `Installing ${appName}` });
    });
    step(t3, () => Object.assign(job, { progress: 80, message: 'Finishing installation' }));
    step(t4, () => {
      const s = makeServer(this.state, this.rng, {
        name: input.name,
        application: input.application,
        plan: input.plan,
        ...(input.region ? { region: input.region } : {}),
        ...(input.description ? { description: input.description } : {}),
      });
      this.state.servers.set(s.id, s);
      Object.assign(job, { state: 'ready', progress: 100, message: 'Server is ready', server_id: s.id });
      this.state.events.emit('server-created', s);
      input.onReady?.(s);
    });
    return job;
  }
}

