import type { Operation } from '../../operations/types.js';
import { Exit, GshError, UsageError, WaitStoppedError } from '../errors.js';
import type { ApiClient } from '../wire/http.js';
import { fillTemplate } from '../../operations/leaves.js';
import type { SignalName } from '../run/context.js';
import type { Runtime } from '../run/runtime.js';
import { shellLine } from '../shell-words.js';
import { pollUntil } from '../run/poll.js';
import { type SocketStates, targetState, waitForBackup, waitForJob, waitForServerState } from './wait.js';

// Work already under way, as one value: what `--wait` follows after a 202 and what `gsh wait`
// follows later (ARCHITECTURE.md "Many servers at once"), so both poll the same way and every 202
// can name the exact `gsh wait` command that picks it up.

export type Work =
  | { kind: 'job'; path: string; what: string }
  | { kind: 'server-state'; serverId: string; state: string; mustLeave?: string; note?: string; ready?: ReadyCondition }
  | { kind: 'pull'; serverId: string; started?: string }
  | { kind: 'transfer'; serverId: string }
  | { kind: 'init'; serverId: string }
  | { kind: 'backup'; serverId: string; backupId: string; path: string };

/** --ready's condition on a server-state wait: a console line matching `pattern` (none: the settings' done_message). */
export interface ReadyCondition {
  pattern?: string;
}

/** The work a 202 answer of `op` started (01-general-contract.md "Job object"), if it can be followed. */
export function workOf(op: Operation, verb: string | undefined, params: Record<string, string>, data: unknown): Work | undefined {
  const wait = op.wait;
  if (!wait) return undefined;
  const body = (data && typeof data === 'object' ? data : {}) as Record<string, unknown>;
  const serverId = params.server_id as string;
  switch (wait.kind) {
    case 'job': {
      const values: Record<string, string> = { ...params };
      for (const [k, v] of Object.entries(body)) if (typeof v === 'string' || typeof v === 'number') values[k] ??= String(v);
      values.job_id ??= String(body.id ?? '');
      const path = fillTemplate(wait.poll, (name) => {
        const v = values[name];
        if (!v) throw new GshError(`cannot follow: the response has no ${name}`, Exit.error);
        return v;
      });
      return { kind: 'job', path, what: `${op.command} job` };
    }
    case 'server-status': {
      // 02-endpoints-part-a.md "Power": a start may be queued on the node, or wait for a transfer back.
      const note = body.power_state === 'queued' ? 'Queued in the node startup queue; waiting for it to start.'
        : body.power_state === 'transferring'
          ? 'The server is stored, off any runtime node: the service answered power_state "transferring" and moves it back to one before it starts. That takes longer than a start, so gsh keeps waiting until it runs (Ctrl-C stops the wait, not the move).'
          : undefined;
      const state = verb ? targetState(verb) : 'settled';
      return { kind: 'server-state', serverId, state, ...(verb === 'restart' ? { mustLeave: 'running' } : {}), ...(note ? { note } : {}) };
    }
    case 'pull': {
      const started = body.id ?? body.download_id ?? body.uuid;
      return { kind: 'pull', serverId, ...(started === undefined ? {} : { started: String(started) }) };
    }
    case 'transfer':
      return { kind: 'transfer', serverId };
    case 'init':
      return { kind: 'init', serverId };
    case 'backup': {
      const id = body.uuid ?? body.backup_uuid ?? body.id;
      if (typeof id !== 'string' && typeof id !== 'number') throw new GshError('cannot follow: the answer names no backup (no uuid or id)', Exit.error);
      return backupWork(serverId, String(id), wait.poll);
    }
  }
}

/** A backup to follow: `poll` names its resource (`{backup_uuid}` from the answer). */
export function backupWork(serverId: string, backupId: string, poll = '/servers/{server_id}/backups/{backup_uuid}'): Extract<Work, { kind: 'backup' }> {
  const values: Record<string, string> = { server_id: serverId, backup_uuid: backupId };
  return { kind: 'backup', serverId, backupId, path: fillTemplate(poll, (name) => values[name] ?? '') };
}

/**
 * The `gsh wait` command line that follows `work`, with every condition it waits on (the state,
 * or --ready and its pattern), quoted so that it runs as printed.
 */
export function waitCommand(work: Work): string {
  return shellLine(['gsh', 'wait', ...waitWords(work)]);
}

function waitWords(work: Work): string[] {
  switch (work.kind) {
    case 'job':
      return ['job', work.path];
    case 'server-state':
      if (work.ready) return ['-s', work.serverId, '--ready', ...(work.ready.pattern === undefined ? [] : [work.ready.pattern])];
      return ['-s', work.serverId, '--for', work.state];
    case 'pull':
      return ['pull', '-s', work.serverId, ...(work.started ? ['--download', work.started] : [])];
    case 'transfer':
    case 'init':
      return [work.kind, '-s', work.serverId];
    case 'backup':
      return ['backup', work.backupId, '-s', work.serverId];
  }
}

/** The request each poll of `work` sends (the plan a dry run prints). */
export function pollPath(work: Work): string {
  const server = 'serverId' in work ? `/servers/${encodeURIComponent(work.serverId)}` : '';
  switch (work.kind) {
    case 'job':
      return work.path;
    case 'server-state':
      return `${server}/status`;
    case 'pull':
      return `${server}/files/pull/status`;
    case 'transfer':
      return `${server}/settings/transfer/status`;
    case 'init':
      return `${server}/init`;
    case 'backup':
      return work.path;
  }
}

/** What a stopped wait leaves under way, for the message and the JSON error object. */
function underWay(work: Work): Record<string, string> {
  switch (work.kind) {
    case 'job':
      return { job: work.path };
    case 'server-state':
      return { server: work.serverId, until: work.ready ? 'ready' : work.state };
    case 'pull':
      return { server: work.serverId, ...(work.started ? { download: work.started } : {}), work: 'file pull' };
    case 'backup':
      return { server: work.serverId, backup: work.backupId };
    default:
      return { server: work.serverId, work: work.kind };
  }
}

/**
 * followWork that, when --timeout runs out or Ctrl-C / SIGTERM stops it (exit 10, 130, 143),
 * says what is still under way and the exact `gsh wait …` command that resumes it.
 */
export async function followOrInterrupt(rt: Runtime, client: ApiClient, work: Work, socket?: SocketStates): Promise<unknown> {
  const handlers: [SignalName, () => void][] = [];
  const stopped = new Promise<never>((_resolve, reject) => {
    for (const [signal, code] of [['SIGINT', Exit.interrupted], ['SIGTERM', Exit.terminated]] as const) {
      const on = () => reject(new WaitStoppedError('interrupted while waiting; the work goes on without gsh', code, waitCommand(work), underWay(work)));
      handlers.push([signal, on]);
      rt.ctx.signals.on(signal, on);
    }
  });
  try {
    return await Promise.race([followWork(rt, client, work, socket), stopped]);
  } catch (err) {
    if (err instanceof GshError && err.exitCode === Exit.timedOut && !(err instanceof WaitStoppedError)) {
      throw new WaitStoppedError(err.message, Exit.timedOut, waitCommand(work), underWay(work));
    }
    throw err;
  } finally {
    for (const [signal, on] of handlers) rt.ctx.signals.off(signal, on);
  }
}

/**
 * Follows `work` to its end and gives what it ended with (nothing for a file pull). `socket`: the
 * console socket's states of a single server's state wait, which wake its polls (wait.ts).
 */
export async function followWork(rt: Runtime, client: ApiClient, work: Work, socket?: SocketStates): Promise<unknown> {
  switch (work.kind) {
    case 'job':
      return waitForJob(rt, client, work.path, work.what);
    case 'server-state':
      if (work.note && rt.singleTarget) rt.note(work.note);
      // Many servers: read together, a page of the list at a time (status-poller.ts).
      if (!rt.singleTarget) return (await import('./status-poller.js')).sharedPoller(rt, client).waitFor(work.serverId, work.state, work.mustLeave);
      return waitForServerState(rt, client, work.serverId, work.state, { ...(work.mustLeave ? { mustLeave: work.mustLeave } : {}), ...(socket ? { socket } : {}) });
    case 'pull': {
      const statusPath = pollPath(work);
      await pollUntil(
        rt,
        'download',
        async () => (await client.request<{ data?: unknown }>({ method: 'GET', path: statusPath })).body?.data,
        (active) => !(activeDownloads(active) ?? []).some((d) => work.started === undefined || Object.values(d).map(String).includes(work.started)),
        (active) => `${(activeDownloads(active) ?? []).length} active`,
        { readable: { test: (d) => activeDownloads(d) !== undefined, fields: 'a list of downloads', path: statusPath } },
      );
      rt.note('Download finished.');
      return undefined;
    }
    case 'transfer': {
      const statusPath = pollPath(work);
      const final = await pollUntil(
        rt,
        'transfer',
        async () => ((await client.request<{ data?: Record<string, unknown> }>({ method: 'GET', path: statusPath })).body?.data ?? {}),
        (t) => transferState(t) !== 'in_progress',
        (t) => transferState(t) ?? 'no state',
        { readable: { test: (t) => transferState(t) !== undefined, fields: 'state or status', path: statusPath } },
      );
      if (transferState(final) === 'failed') throw new GshError(`transfer failed${final.message ? `: ${String(final.message)}` : ''}`, Exit.error);
      return final;
    }
    case 'init':
      return waitForJob(rt, client, pollPath(work), 'provisioning');
    case 'backup':
      try {
        return await waitForBackup(rt, client, work.path);
      } catch (err) {
        // No field says when it ends: a `gsh wait backup` would stop the same way, so the way on is its download.
        if (err instanceof GshError && err.exitCode === Exit.cannotTell) {
          const stopped = new GshError(err.message, err.exitCode, `${err.hint ? `${err.hint}\n` : ''}${backupDownloadLoop(work)}`);
          stopped.forward = backupDownloadLine(work);
          throw stopped;
        }
        throw err;
      }
  }
}

/**
 * What to run instead of `gsh wait backup` where the backup's records show no field that says
 * when it ends (the contract shows none: 01-general-contract.md "Field lists … backups: not shown"):
 * the download, which the service refuses with 409 (exit 6) while the backup is being made
 * (README "Backups"), retried until it saves the archive.
 */
export function backupDownloadLoop(work: { serverId: string; backupId: string }): string {
  return `${BACKUP_DOWNLOAD_WHY}:\n  ${backupDownloadLine(work)}`;
}

/** Why the download loop is the way on (before its line, or before one line per server). */
export const BACKUP_DOWNLOAD_WHY = 'Its download is refused (exit 6) until it has finished; to save it once it has, retry the download';

/** The download of one backup, retried while the service refuses it with 409 (exit 6). */
export function backupDownloadLine(work: { serverId: string; backupId: string }): string {
  return `until gsh backups download ${work.backupId} -s ${work.serverId} --to ./; do [ $? -eq 6 ] || break; sleep 20; done`;
}

/** A job path typed by a person (`gsh wait job PATH`): under the API, no scheme or host. */
export function jobPath(raw: string): string {
  if (!/^\/[\w\-./%{}]+$/.test(raw) || raw.includes('..')) throw new UsageError(`"${raw}" is not a job path`, 'Give the path the 202 hint printed, e.g. gsh wait job /account/servers/create-jobs/cj_123.');
  return raw;
}

/** The active downloads of a pull status (a list, or an object with `downloads`); undefined when it shows neither. */
function activeDownloads(data: unknown): Record<string, unknown>[] | undefined {
  const list = Array.isArray(data) ? data : data && typeof data === 'object' && Array.isArray((data as { downloads?: unknown }).downloads) ? (data as { downloads: unknown[] }).downloads : undefined;
  return list?.filter((d): d is Record<string, unknown> => d !== null && typeof d === 'object');
}

function transferState(t: Record<string, unknown>): string | undefined {
  const v = t.state ?? t.status;
  return typeof v === 'string' ? v : undefined;
}
