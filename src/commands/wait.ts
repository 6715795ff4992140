import type { Command } from 'commander';
import { fleetFlags, fleetSteps, type RolloutFlags, runsAsFleet } from '../core/fleet/rollout.js';
import { collect } from '../core/flags/fields.js';
import { Exit, GshError, ownError, UsageError } from '../core/errors.js';
import { pathIdProblem } from '../core/flags/checks.js';
import { step } from '../core/plan.js';
import { type Runtime, withRuntime } from '../core/run/runtime.js';
import type { ServerFlags } from '../core/fleet/fleet-command.js';
import type { Work } from '../core/fleet/follow.js';
import type { ApiClient } from '../core/wire/http.js';
import type { OperationUses } from './hand-written.js';

// `gsh wait` (ARCHITECTURE.md "Many servers at once"): follows work already under way without
// sending its request again: server states on one or many servers, and each kind of job the
// contract has. Every 202 answer prints the `gsh wait …` line that picks its work up
// (src/core/fleet/follow.ts). Exit codes as --wait: 0 reached, 1 failed, 10 timed out, 12 cannot tell
// (the record shows no field gsh reads); 11 when some of several servers failed.

const SERVER_HELP = 'server id or name (default: $GSH_SERVER); for several: repeat it, commas, a name glob, or - for stdin';

const HELP = `
--for takes a state of the server status resource (running, offline, starting, stopping…) or
settled (running or offline, with no reinstall, restore or transfer under way). The global
--timeout bounds the wait (default 10m). One server is polled on its own, 1 s after the start
and then less often (up to every 10 s); several are read together from the list with statuses,
100 servers a request. --ready waits for a console line (REGEX, or the settings' done_message)
and ends as soon as it arrives. The console history counts, so a line printed before gsh attached
is not missed; a server already running whose line is not in its history exits 12 at once (use
--for running, or a line it prints now), and so does a server whose settings hold no done_message
when no REGEX is given. A crash, or the server stopping or going offline once it started, ends
it at once with exit 13 and the last console lines. Exit codes: 0 reached, 1 failed, 10 timed
out, 11 when some of several servers did not make it, 12 the record shows no field gsh reads (it
says what the record holds and the gsh api line that shows it) or --ready has nothing it can
wait for, 13 --ready: the server crashed or stopped first.

Examples:
  gsh wait -s lobby --for running
  gsh wait -s lobby --ready 'Done \\(' --timeout 5m    # running, and the console says so
  gsh wait server -s lobby --for running
  gsh wait -s 'lobby-*' --for offline --timeout 5m
  gsh servers list -q | gsh wait -s - --for running
  gsh wait job /account/servers/create-jobs/cj_123
  gsh wait init -s lobby
  gsh wait transfer -s lobby
  gsh wait backup 8c1e6f8a-1b2c-4d3e-9f00-0a1b2c3d4e5f -s lobby`;

export function register(cmd: Command): void {
  // The default subcommand: `gsh wait -s lobby --for running` is `gsh wait server -s lobby --for running`.
  fleetFlags(cmd
    .command('server', { isDefault: true })
    .description('Wait until servers reach a state (the default form of gsh wait)')
    .option('-s, --server <id|name>', SERVER_HELP, collect)
    .option('--all-servers', 'every server the key can reach')
    .option('--for <state>', 'the state to wait for (default: settled)')
    .option('--parallel <n>', 'accepted for older scripts: several servers are now read together, 100 a request')
    .option('--ready [regex]', 'wait for a console line matching REGEX (default: the settings\' done_message), recent output included, ending as soon as it arrives; exit 13 if it crashes or stops first, 12 if there is no pattern or a running server\'s line is not in its history')
    .addHelpText('after', HELP)
    .action(async function (this: Command) {
      await withRuntime(this, (rt) => waitForStates(rt, this.opts()));
    }));

  cmd
    .command('job')
    .description('Follow a job resource (server creation, module task…) to its end')
    .argument('<path>', 'the job path a 202 hint printed, e.g. /account/servers/create-jobs/cj_123')
    .addHelpText('after', '\nExample:\n  gsh wait job /account/servers/create-jobs/cj_123\n')
    .action(async function (this: Command, raw: string) {
      await withRuntime(this, async (rt) => {
        const { jobPath, followOrInterrupt } = await import('../core/fleet/follow.js');
        const path = jobPath(raw);
        const client = await rt.client();
        return rt.submit({ requests: [{ method: 'GET', path }], then: [step('wait', `poll until the job ends, for at most ${rt.waitLimitMs / 1000} s`)] }, async () => {
          await rt.out.show(await followOrInterrupt(rt, client, { kind: 'job', path, what: 'job' }));
        });
      });
    });

  fleetFlags(cmd
    .command('backup')
    .description('Follow a backup until the service says it has finished (a status word, or its completion time)')
    .argument('<backup-uuid>', 'the backup, as backups create or backups list gave it')
    .option('-s, --server <id|name>', SERVER_HELP, collect)
    .option('--all-servers', 'every server the key can reach')
    .addHelpText('after', '\nA backup is finished when its answer carries a finished status (completed, succeeded…) or,\nwithout one, a completed_at time; failed, error or is_successful=false exit 1. A backup record\nwith neither (the contract shows no backup fields) cannot say: exit 12 after the first read.\n\nExample:\n  gsh wait backup 8c1e6f8a-1b2c-4d3e-9f00-0a1b2c3d4e5f -s lobby\n')
    .action(async function (this: Command, backupId: string) {
      await withRuntime(this, async (rt) => {
        const problem = pathIdProblem(backupId);
        if (problem) throw new UsageError(`<backup-uuid> ${problem} (got "${backupId}")`);
        const [{ backupWork, followOrInterrupt }, { onServer }, many] = await Promise.all([import('../core/fleet/follow.js'), import('../core/fleet/server-cache.js'), import('../core/fleet/fleet-command.js')]);
        const o = this.opts<ServerFlags>();
        return many.onServers(rt, { server: o.server, allServers: o.allServers, rollout: o, mutates: false }, async (client, t, _several, only) => ({
          plan: { requests: [{ method: 'GET', path: backupWork(t.id, backupId).path }], then: [step('wait', `poll the backup until it has finished, for at most ${rt.waitLimitMs / 1000} s`)] },
          alone: async () => {
            await rt.out.show(await onServer(rt, client, only?.ref ?? t.id, only?.resolved ?? { id: t.id, remembered: false }, (id) => followOrInterrupt(rt, client, backupWork(id, backupId))));
          },
          inFleet: () => waitInFleet(rt, client, backupWork(t.id, backupId)),
        }));
      });
    }));

  for (const [kind, what] of [['init', 'the init provisioning job'], ['transfer', 'a transfer to another region'], ['pull', 'a file pull (download into the server)']] as const) {
    const sub = fleetFlags(cmd
      .command(kind)
      .description(`Follow ${what} on a server to its end`)
      .option('-s, --server <id|name>', SERVER_HELP, collect)
      .option('--all-servers', 'every server the key can reach')
      .addHelpText('after', `\nExample:\n  gsh wait ${kind} -s lobby\n  gsh wait ${kind} -s 'lobby-*'\n`));
    if (kind === 'pull') sub.option('--download <id>', 'the download the pull started (default: until no download is active)');
    sub.action(async function (this: Command) {
      await withRuntime(this, async (rt) => {
        const o = this.opts<ServerFlags & { download?: string }>();
        const [{ followOrInterrupt, pollPath }, { onServer }, many] = await Promise.all([import('../core/fleet/follow.js'), import('../core/fleet/server-cache.js'), import('../core/fleet/fleet-command.js')]);
        const workOn = (serverId: string) => (kind === 'pull' ? { kind, serverId, ...(o.download ? { started: o.download } : {}) } : { kind, serverId });
        return many.onServers(rt, { server: o.server, allServers: o.allServers, rollout: o, mutates: false }, async (client, t, _several, only) => ({
          plan: { requests: [{ method: 'GET', path: pollPath(workOn(t.id)) }], then: [step('wait', `poll ${what} on ${t.id} until it ends, for at most ${rt.waitLimitMs / 1000} s`)] },
          alone: async () => {
            const final = await onServer(rt, client, only?.ref ?? t.id, only?.resolved ?? { id: t.id, remembered: false }, (id) => followOrInterrupt(rt, client, workOn(id)));
            if (final !== undefined) await rt.out.show(final);
          },
          inFleet: () => waitInFleet(rt, client, workOn(t.id)),
        }));
      });
    });
  }
}

/**
 * One server's wait among several: what it ended with; a wait that runs out of --timeout names
 * the `gsh wait` that resumes it on that server (the fleet lists it with the servers left).
 */
async function waitInFleet(rt: Runtime, client: ApiClient, work: Work): Promise<unknown> {
  const { followWork, waitCommand } = await import('../core/fleet/follow.js');
  try {
    return (await followWork(rt, client, work)) ?? { summary: 'finished' };
  } catch (err) {
    if (err instanceof GshError && err.exitCode === Exit.timedOut) err.resume ??= waitCommand(work);
    throw err;
  }
}

async function waitForStates(rt: Runtime, o: RolloutFlags & { server?: string[]; allServers?: boolean; for?: string; parallel?: string; ready?: string | true }): Promise<number | void> {
  if (o.ready !== undefined && o.for !== undefined && o.for !== 'running') throw new UsageError('--ready waits for running; leave out --for');
  const state = o.ready !== undefined ? 'running' : (o.for ?? 'settled');
  if (!/^[a-z_]+$/.test(state)) throw new UsageError(`--for "${state}" is not a state`, 'Use running, offline, settled or another state of the status resource.');
  const [{ followOrInterrupt, followWork, waitCommand }, { EntryFields, fleetOptions, resolveFleet, runFleet }, { resolveTargets, singleRef, targetRefs }, { onServer, resolveRemembered }, { stdinFor }] = await Promise.all([
    import('../core/fleet/follow.js'), import('../core/fleet/fleet.js'), import('../core/fleet/targets.js'), import('../core/fleet/server-cache.js'), import('../core/flags/fields.js'),
  ]);
  const refs = targetRefs(o.server, undefined, rt.env, o.allServers === true);
  // A server of several not started (Ctrl-C first) is waited for by the same command for it.
  const { serversArg } = await import('../core/terminal/report.js');
  const opts = { ...fleetOptions(o), rest: (ids: readonly string[]) => resumeOf(serversArg(ids)) };
  const client = await rt.client();
  const ready = o.ready === undefined ? undefined : await import('../leaf/ready.js');
  const readyOf = (serverId: string) => ready?.planReady(o.ready, serverId);
  /** This command for one server: what a wait that stopped names to pick it up again. */
  const resumeOf = (serverId: string) => waitCommand({ kind: 'server-state', serverId, state, ...(o.ready === undefined ? {} : { ready: o.ready === true ? {} : { pattern: o.ready } }) });
  /** A wait that ran out of --timeout or was interrupted names the command that resumes it. */
  const resumable = async <T>(serverId: string, wait: () => Promise<T>): Promise<T> => {
    try {
      return await wait();
    } catch (caught) {
      const err = ownError(caught);
      if (err instanceof GshError && err.resume === undefined && STOPPED.has(err.exitCode)) err.resume = resumeOf(serverId);
      throw err;
    }
  };
  /** The state wait, and with --ready the console after it (its recent output included). */
  const withReady = async (serverId: string, wait: () => Promise<unknown>, several = false) => {
    const spec = readyOf(serverId);
    if (!ready || !spec) return wait();
    const watch = await ready.watchReady(rt, client, serverId, serverId, spec, { replay: true, stateOnly: `gsh wait -s ${serverId} --for running` });
    try {
      const r = await watch.until({ state });
      rt.note(`ready: ${r.line}`);
      // A fleet entry carries the line and when it came (`ready`).
      return several ? new EntryFields(r.final, { ready: { line: r.line, seconds: r.seconds } }) : r.final;
    } finally {
      watch.close();
    }
  };
  const follow = (serverId: string) => resumable(serverId, () => withReady(serverId, () => followWork(rt, client, { kind: 'server-state', serverId, state }), true));
  const followOne = (serverId: string) => resumable(serverId, () => withReady(serverId, () => followOrInterrupt(rt, client, { kind: 'server-state', serverId, state })));
  const then = (what: string, serverId: string) => {
    const spec = readyOf(serverId);
    const console = ready && spec ? ready.readyPlan(spec, rt, { replay: true }) : undefined;
    return {
      requests: console?.requests ?? [],
      then: [
        ...(console ? [step('stream', `open the console socket (POST …/console/token) and read its recent output (send history, up to 1000 lines)`)] : []),
        step('wait', `poll the status of ${what} until ${state}, for at most ${rt.waitLimitMs / 1000} s`),
        ...(console?.then ?? []),
      ],
    };
  };
  const single = singleRef(refs);
  if (single !== undefined && !runsAsFleet(opts.rollout)) {
    const server = await resolveRemembered(rt, client, single);
    const p = then(server.id, server.id);
    return rt.submit({ requests: [...p.requests, { method: 'GET', path: `/servers/${encodeURIComponent(server.id)}/status` }], then: p.then }, async () => {
      await rt.out.show(await onServer(rt, client, single, server, followOne));
    });
  }
  const stdin = await stdinFor(refs.refs, () => rt.ctx.stdin);
  const targets = await resolveFleet(rt, refs.refs, { rollout: opts.rollout }, () => resolveTargets(client, refs, stdin, rt.references));
  if (typeof targets === 'number') return targets;
  const requests = [...targets.flatMap((t) => then(t.id, t.id).requests), ...pagedRequests(targets.length)];
  return rt.submit({ requests, then: [...(opts.rollout?.batch || opts.rollout?.maxFail || opts.rollout?.shard ? fleetSteps(targets, opts.parallel, opts.rollout) : []), ...then(`${targets.length} servers, read together from the list with statuses (100 a request)`, targets[0]?.id ?? '').then] }, async () => {
    rt.singleTarget = false;
    const { stopPolling } = await import('../core/fleet/status-poller.js');
    try {
      // Nothing to send first: every server waits in the shared poller at once.
      return await runFleet(rt, targets, opts, (t, release) => {
        release(resumeOf(t.id));
        return follow(t.id);
      });
    } finally {
      stopPolling(client);
    }
  });
}

/** Endings that leave the wait to pick up again: --timeout, Ctrl-C, SIGTERM. */
const STOPPED = new Set<number>([Exit.timedOut, Exit.interrupted, Exit.terminated]);

/** The pages one round of a fleet wait reads (status-poller.ts): the plan a dry run prints. */
function pagedRequests(servers: number) {
  return Array.from({ length: Math.max(1, Math.ceil(servers / 100)) }, (_, i) => ({ method: 'GET' as const, path: '/servers', query: { include: 'status', limit: 100, offset: i * 100 } }));
}

export const operations: OperationUses = {
  'wait server': ['GET /servers/{server_id}/status', 'GET /servers', 'GET /servers/{server_id}/settings', 'POST /servers/{server_id}/console/token'],
  'wait job': [],
  'wait init': ['GET /servers/{server_id}/init'],
  'wait transfer': ['GET /servers/{server_id}/settings/transfer/status'],
  'wait pull': ['GET /servers/{server_id}/files/pull/status'],
  'wait backup': ['GET /servers/{server_id}/backups/{backup_uuid}'],
};
