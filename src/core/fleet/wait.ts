import { Exit, GshError } from '../errors.js';
import type { ApiClient } from '../wire/http.js';
import type { RuntimeView } from '../run/runtime-view.js';
import { cannotTell, type PollOptions, pollUntil, type Readable } from '../run/poll.js';

// --wait (ARCHITECTURE.md "Requests": 202 work): follow a job or status resource to a terminal
// state, with a spinner on a terminal and nothing on a pipe. `partial` succeeds with warnings;
// `failed` and `timed_out` exit 1; running out of --timeout exits 10. A record that shows no field
// gsh knows how to read ends the wait after the first read with exit 12 (cannotTell): polling it
// until --timeout could never end otherwise, and gsh never reports a state the service did not send.

/** 01-general-contract.md "States and transitions": job states; creation jobs end ready or failed. */
export const TERMINAL_JOB_STATES = new Set(['completed', 'partial', 'failed', 'timed_out', 'ready']);
const FAILED_JOB_STATES = new Set(['failed', 'timed_out']);

export interface Job {
  job_id?: string;
  state?: string;
  progress?: number;
  message?: string;
  warnings?: unknown[];
  errors?: unknown[];
  [k: string]: unknown;
}

function describeJob(job: Job): string {
  const pct = typeof job.progress === 'number' ? ` ${Math.round(job.progress <= 1 ? job.progress * 100 : job.progress)}%` : '';
  return `${job.state ?? 'no state'}${pct}${job.message ? ` — ${job.message}` : ''}`;
}

/** Follows a job to its end and reports it: warnings for partial, an error for failed/timed_out. */
export async function waitForJob(rt: RuntimeView, client: ApiClient, path: string, what = 'job'): Promise<Job> {
  const job = await pollUntil(
    rt,
    what,
    async () => ((await client.request<{ data?: Job }>({ method: 'GET', path })).body?.data ?? {}) as Job,
    (j) => TERMINAL_JOB_STATES.has(String(j.state)),
    describeJob,
    { readable: { test: (j) => typeof j.state === 'string', fields: 'state', path } },
  );
  for (const w of job.warnings ?? []) rt.warn(typeof w === 'string' ? w : JSON.stringify(w));
  if (FAILED_JOB_STATES.has(String(job.state))) {
    const details = (job.errors ?? []).map((e) => (typeof e === 'string' ? e : JSON.stringify(e)));
    throw new GshError(`${what} ${job.state}${job.message ? `: ${job.message}` : ''}${details.length ? `\n  ${details.join('\n  ')}` : ''}`, Exit.error);
  }
  return job;
}

export interface ServerStatus {
  state?: string;
  node_ready?: boolean;
  lifecycle_status?: string | null;
  [k: string]: unknown;
}

/** Target runtime state of a power signal (02-endpoints-part-a.md "Power"). */
export function targetState(signal: string): 'running' | 'offline' {
  return signal === 'start' || signal === 'restart' ? 'running' : 'offline';
}

/** How long a restart may stay unseen (never leaving `running` between polls) before it counts as done. */
export const UNSEEN_RESTART_MS = 15_000;
/** Once the socket says the state is reached but a poll does not yet, the next poll comes this soon. */
export const CONFIRM_MS = 500;

/**
 * What the console socket says of a server while its wait polls (leaf/state-watch.ts opens it;
 * 01-general-contract.md "Console socket": `status`, one of offline, starting, running, stopping).
 */
export interface SocketStates {
  /** Every `status` the socket sent since the wait began, oldest first. */
  seen(): readonly string[];
  /** A signal aborted when the next `status` arrives (a fresh one each call). */
  next(): AbortSignal;
}

/**
 * Follows GET /servers/{id}/status until the server reaches `target`. A restart must be seen
 * leaving `running` first, so a poll that lands before the restart begins does not end the wait;
 * one too quick to see between polls counts as done after UNSEEN_RESTART_MS. With the console
 * socket's `status` events (`socket`), a pause ends as soon as the socket says the target is
 * reached, and the poll it wakes confirms it: the status resource stays the one that ends the
 * wait, the socket only says when to read it (README "Waits").
 */
export async function waitForServerState(
  rt: RuntimeView,
  client: ApiClient,
  serverId: string,
  /** A state of the status resource (`running`, `offline`, …), or `settled`: running or offline with no lifecycle under way. */
  target: string,
  opts: { mustLeave?: string; now?: () => number; socket?: SocketStates } & PollOptions = {},
): Promise<ServerStatus> {
  const { socket } = opts;
  const leftBySocket = socket && opts.mustLeave !== undefined ? () => socket.seen().some((s) => s !== opts.mustLeave) : undefined;
  /** The socket's last word reaches the target (after leaving `mustLeave`, for a restart). */
  const socketSays = (seen: readonly string[]) => {
    const last = seen.at(-1);
    if (last === undefined || (leftBySocket && !leftBySocket())) return false;
    return target === 'settled' ? last === 'running' || last === 'offline' : last === target;
  };
  const sleep = socket && !opts.sleep
    ? async (ms: number) => {
      // Told but not yet confirmed (the API may lag its node): read again soon, not after the backoff.
      const end = rt.now() + (socketSays(socket.seen()) ? Math.min(ms, CONFIRM_MS) : ms);
      while (rt.now() < end) {
        const wake = socket.next();
        const before = socket.seen().length;
        await rt.sleep(end - rt.now(), wake);
        const seen = socket.seen();
        if (seen.length > before && socketSays(seen)) return;
      }
    }
    : opts.sleep;
  return pollUntil(
    rt,
    `server ${serverId}`,
    () => readServerStatus(client, serverId),
    serverStateReached(target, opts.mustLeave, opts.now ?? (() => rt.now()), leftBySocket),
    describeServerStatus,
    { ...opts, ...(sleep ? { sleep } : {}), readable: statusReadable(serverId) },
  );
}

/** One read of GET /servers/{id}/status (02-endpoints-part-a.md "Servers"). */
export async function readServerStatus(client: ApiClient, serverId: string): Promise<ServerStatus> {
  return (await client.request<{ data?: ServerStatus }>({ method: 'GET', path: statusPath(serverId) })).body?.data ?? {};
}

/** What a server-state wait reads: the status resource's `state`. */
export function statusReadable(serverId: string): Readable<ServerStatus> {
  return { test: (s) => typeof s.state === 'string', fields: 'state', path: statusPath(serverId) };
}

function statusPath(serverId: string): string {
  return `/servers/${encodeURIComponent(serverId)}/status`;
}

/**
 * Whether a server's status has reached `target` (see waitForServerState), as one check per
 * wait: it remembers whether the server was seen leaving `mustLeave`.
 */
export function serverStateReached(target: string, mustLeave: string | undefined, now: () => number, leftElsewhere?: () => boolean): (s: ServerStatus) => boolean {
  const started = now();
  let left = mustLeave === undefined;
  return (s) => {
    // `leftElsewhere`: the console socket saw it leave (a stop too quick for the polls).
    if (!left && (s.state !== mustLeave || now() - started >= UNSEEN_RESTART_MS || leftElsewhere?.())) left = true;
    if (!left) return false;
    if (target === 'settled') return !s.lifecycle_status && (s.state === 'running' || s.state === 'offline');
    return s.state === target;
  };
}

export function describeServerStatus(s: ServerStatus): string {
  return `${s.state ?? 'no state'}${s.lifecycle_status ? ` (${s.lifecycle_status})` : ''}`;
}

/**
 * Whether a backup has finished. The contract shows no backup fields or states (01-general-
 * contract.md "Resources and their fields": backups' field lists not shown; document 3 only
 * speaks of a "completed" backup and 409 "backup incomplete"), so gsh follows what the answer
 * carries: a `status` or `state` word when there is one (completed/succeeded/done… finished,
 * failed/error/cancelled… failed, anything else still running), otherwise its completion time
 * `completed_at` (finished once set; failed when `is_successful` is false). A missing field means
 * null (envelope rule 4): an answer with neither cannot say, and the wait stops at once (exit 12).
 */
export type BackupState = 'running' | 'finished' | 'failed';

const BACKUP_DONE = new Set(['completed', 'complete', 'succeeded', 'successful', 'success', 'done', 'finished', 'ready', 'available']);
const BACKUP_FAILED = new Set(['failed', 'failure', 'error', 'errored', 'cancelled', 'canceled', 'timed_out']);

export function backupState(b: Record<string, unknown>): BackupState {
  const word = [b.status, b.state].find((v): v is string => typeof v === 'string' && v !== '');
  if (word !== undefined) {
    const w = word.toLowerCase();
    return BACKUP_DONE.has(w) ? 'finished' : BACKUP_FAILED.has(w) ? 'failed' : 'running';
  }
  if (typeof b.completed_at === 'string' && b.completed_at !== '') return b.is_successful === false ? 'failed' : 'finished';
  return 'running';
}

/** Follows a backup (GET `path`) until it has finished; a failed backup exits 1. */
/** A backup record carries a field that says when it ends (status, state or completed_at): a wait on it can finish. */
export function backupShowsEnd(b: Record<string, unknown>): boolean {
  return [b.status, b.state, b.completed_at].some((v) => typeof v === 'string' && v !== '');
}

export async function waitForBackup(rt: RuntimeView, client: ApiClient, path: string): Promise<Record<string, unknown>> {
  const describe = (b: Record<string, unknown>) => {
    const word = [b.status, b.state].find((v) => typeof v === 'string');
    return `${word ?? (b.completed_at ? 'completed' : 'no status yet')}${typeof b.progress === 'number' ? ` ${Math.round(b.progress <= 1 ? b.progress * 100 : b.progress)}%` : ''}`;
  };
  const backup = await pollUntil(
    rt,
    'backup',
    async () => ((await client.request<{ data?: Record<string, unknown> }>({ method: 'GET', path })).body?.data ?? {}),
    (b) => backupState(b) !== 'running',
    describe,
    { readable: { test: backupShowsEnd, fields: 'status, state or completed_at', path } },
  );
  if (backupState(backup) === 'failed') throw new GshError(`backup failed (${describe(backup)})${typeof backup.message === 'string' ? `: ${backup.message}` : ''}`, Exit.error);
  return backup;
}
