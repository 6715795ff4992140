import { stdinFor } from '../flags/fields.js';
import type { ApiClient } from '../wire/http.js';
import { DEFAULT_PARALLEL, fleetOptions, resolveFleet, runFleet } from './fleet.js';
import { fleetSteps, type RolloutFlags, rolloutOf, runsAsFleet } from './rollout.js';
import type { Plan } from '../plan.js';
import type { Runtime } from '../run/runtime.js';
import { type ResolvedServer, resolveRemembered } from './server-cache.js';
import { restCommand } from '../terminal/report.js';
import { resolveTargets, singleRef, type Target, targetRefs } from './targets.js';

// Hand-written server-scoped commands on one server or many (ARCHITECTURE.md "Many servers at
// once"): the same -s grammar as the registry's commands (repeated, commas, globs, `-s -`,
// --all-servers) through the one fleet runner (fleet.ts), with one result per server and exit 11
// when some failed. One plain reference keeps the command's single-server path exactly: its
// plan, its output, its exit code. The command plans one server at a time (`planOne`); every
// server's plan is made before anything is sent, so --dry-run lists every server's requests.

/** One server's run, planned. */
export interface ServerRun {
  /** The requests and steps this server's run sends. */
  plan: Plan;
  /** The only server: prints as the command always has; its exit code. */
  alone(): Promise<number | void>;
  /** One of several: this server's result for the fleet's table (its failure is thrown). */
  inFleet(): Promise<unknown>;
}

export interface OnServers {
  /** -s as given (a string for a plain option, the list for a repeated one). */
  server: string | readonly string[] | undefined;
  /** A server argument, where the command takes one. */
  positional?: string;
  allServers?: boolean;
  /** --fail-fast, --batch, --max-fail, --shard… (rollout.ts: fleetFlags declares them). */
  rollout?: RolloutFlags;
  /** Servers at once (default 4). */
  parallel?: number;
  /** Each server's run sends a change. */
  mutates: boolean;
  /** Checks and plans that hold only when there are several servers (files get: --to DIR, a folder each), before anything is sent. */
  several?: (targets: readonly Target[]) => void;
}

/** The one server a plain reference named: as typed, and how it resolved (remembered or looked up; server-cache.ts). */
export interface OnlyServer {
  ref: string;
  resolved: ResolvedServer;
}

/**
 * Runs `planOne` for the server (or servers) the command line names. `only` is given when one
 * plain reference named the server (a 404 on a remembered id may look it up again: onServer()).
 */
export async function onServers(rt: Runtime, o: OnServers, planOne: (client: ApiClient, target: Target, several: boolean, only?: OnlyServer) => Promise<ServerRun>): Promise<number | void> {
  const refs = targetRefs(o.server, o.positional, rt.env, o.allServers === true);
  const single = singleRef(refs);
  // Checked whatever the number of servers (a usage error never follows a request).
  const rollout = rolloutOf(o.rollout ?? {});
  const client = await rt.client();
  if (single !== undefined && !runsAsFleet(rollout)) {
    const resolved = await resolveRemembered(rt, client, single);
    const one = await planOne(client, { id: resolved.id, ...(single !== resolved.id ? { name: single } : {}) }, false, { ref: single, resolved });
    return rt.submit(one.plan, () => one.alone());
  }
  const opts = {
    // One key cannot name several servers' requests (fleet.ts fleetOptions).
    ...fleetOptions(o.rollout ?? {}, rt.globals.idempotencyKey),
    parallel: o.parallel ?? DEFAULT_PARALLEL,
    mutates: o.mutates,
    // An interrupt names the servers left unfinished with the command that finishes them: these
    // commands finish a server by running again there (an upload replaces, a read reads again).
    rest: (ids: readonly string[]) => restCommand(rt.argv, ids),
    runsAgain: true,
  };
  const stdin = await stdinFor(refs.refs, () => rt.ctx.stdin);
  const runs = new Map<string, ServerRun>();
  const targets = await resolveFleet(rt, refs.refs, opts, () => resolveTargets(client, refs, stdin, rt.references), async (resolved) => {
    if (resolved.length > 1) o.several?.(resolved);
    for (const t of resolved) runs.set(t.id, await planOne(client, t, resolved.length > 1));
  });
  if (typeof targets === 'number') return targets;
  const first = runs.get(targets[0]?.id ?? '');
  // A glob or list that named one server: that server's run, as if it had been named alone.
  if (targets.length === 1 && first && !runsAsFleet(rollout)) return rt.submit(first.plan, () => first.alone());
  const plan: Plan = {
    requests: targets.flatMap((t) => (runs.get(t.id) as ServerRun).plan.requests),
    then: [
      ...fleetSteps(targets, opts.parallel, opts.rollout),
      ...(first?.plan.then ?? []),
    ],
  };
  return rt.submit(plan, () => {
    rt.singleTarget = false;
    return runFleet(rt, targets, opts, (t) => (runs.get(t.id) as ServerRun).inFleet());
  });
}


/** -s's help on a command that takes one server or many. */
export const SERVERS_HELP = 'server id or name (default: $GSH_SERVER); for several: repeat it, commas, a name glob, or - for stdin';

/** The options of a command that takes many servers: what `OnServers` reads (`--parallel` where the command has no --parallel of its own). */
export interface ServerFlags extends RolloutFlags {
  server?: string[];
  allServers?: boolean;
  parallel?: string;
}
