import type { Command } from 'commander';
import { parseDuration } from '../core/flags/duration.js';
import { UsageError } from '../core/errors.js';
import { collect } from '../core/flags/fields.js';
import { step } from '../core/plan.js';
import { type Runtime, withRuntime } from '../core/run/runtime.js';
import type { OperationUses } from './hand-written.js';

// `gsh top` (README "gsh top"): the fleet at a glance. On a terminal a full-screen live view
// (src/top/live.ts); for scripts one snapshot through the output layer, or with -o jsonl a
// snapshot every interval (src/top/scripts.ts). Every refresh is GET /servers?include=status, 100
// servers a request, on an interval that keeps within half of the key's rate limit
// (src/top/budget.ts). Everything typed is checked before the first request.

const HELP = `
On a terminal: a full-screen view of every server (or those -s names): state, CPU, memory used
and limit, disk, network rates (from the counters of two refreshes), uptime and sparklines of CPU
and memory, with counts by state and totals on top. Keys: ↑/↓ (or j/k), PgUp/PgDn, Home/End
move; c, m, n, s sort by CPU, memory, name, state (again: reverse); / filters by name (enter
keeps, esc clears); enter opens a server: its stats every second and last lines from its console
socket (esc goes back and closes the socket); ? shows every key; q quits, Ctrl-C too (exit 130).

Each refresh reads the list with statuses, 100 servers a request (237 servers: 3 requests),
never one request per server. By default it refreshes as often as half of the key's rate limit
allows (X-RateLimit-Limit; 60 a minute if the service does not say), and not more often than
every 2 s; --interval asks for another pace, and one that would take more than half is
stretched, with a note. A server whose status the key may not see shows "no access", not
offline; a value the service did not send shows as – (null for scripts).

For scripts (stdout not a terminal, --once, or -o/--json/--jq/--columns/-q): one snapshot in the
chosen format, sorted by name (or --sort), network rates null (they need two refreshes), uptime as
the service sent it; -o jsonl without --once writes a snapshot every interval, one line per
server, until Ctrl-C. On the screen, uptime shows ? until two refreshes have shown its unit.

Examples:
  gsh top
  gsh top -s 'lobby-*' --interval 10s
  gsh top --once
  gsh top --once -o csv > fleet.csv
  gsh top --once --sort cpu -o csv
  gsh top --once -o json --jq '[.[] | select(.state == "running")] | length'
  gsh top --once --columns name,state,cpu_absolute
  gsh top -o jsonl --interval 30s >> fleet.log
  gsh top --dry-run`;

interface TopFlags {
  server?: string[];
  allServers?: boolean;
  interval?: string;
  once?: boolean;
  sort?: string;
}

/** The orders of the screen's keys (src/top/state.ts SORT_KEYS; a test checks they agree). */
export const SORT_KEYS = ['name', 'cpu', 'memory', 'state'] as const;

export function register(cmd: Command): void {
  cmd
    .option('-s, --server <id|name>', 'only these servers: repeat it, commas, a name glob, or - for stdin (default: every server)', collect)
    .option('--all-servers', 'every server the key can reach (the default)')
    .option('--interval <duration>', 'time between refreshes, e.g. 10s (default: as often as half of the rate limit allows, at least 2s); stretched if it would take more')
    .option('--once', 'print one snapshot and exit (the default when stdout is not a terminal)')
    .option('--sort <key>', `order of the rows: ${SORT_KEYS.join(', ')} (cpu and memory highest first; default name)`)
    .option('-q, --quiet', 'ids only, one per line (a snapshot)')
    .addHelpText('after', HELP)
    .action(async function (this: Command) {
      await withRuntime(this, (rt) => top(rt, this.opts<TopFlags & { quiet?: boolean }>()));
    });
}

/** The live view needs a terminal at both ends and no flag that shapes output for a script. */
function isLive(rt: Runtime, once: boolean, quiet: boolean): boolean {
  const g = rt.globals;
  const shaped = g.output !== undefined || g.json === true || g.jq !== undefined || g.columns !== undefined || g.header === false || quiet;
  return !once && !shaped && rt.io.stdoutTTY && rt.io.stdinTTY;
}

async function top(rt: Runtime, o: TopFlags & { quiet?: boolean }): Promise<number | void> {
  const [{ MIN_INTERVAL_MS }, { LIST_STATUS }] = await Promise.all([import('../top/budget.js'), import('../top/read.js')]);
  const live = isLive(rt, o.once === true, o.quiet === true);
  const streams = !live && o.once !== true && rt.format === 'jsonl' && rt.globals.jq === undefined && o.quiet !== true;
  if (o.sort !== undefined && !(SORT_KEYS as readonly string[]).includes(o.sort)) {
    throw new UsageError(`--sort must be one of ${SORT_KEYS.join(', ')} (got "${o.sort}")`);
  }
  const sort = o.sort as (typeof SORT_KEYS)[number] | undefined;
  let askedMs: number | undefined;
  if (o.interval !== undefined) {
    askedMs = parseDuration(o.interval, '--interval');
    if (askedMs < MIN_INTERVAL_MS) throw new UsageError(`--interval must be at least ${MIN_INTERVAL_MS / 1000}s (got ${o.interval})`);
    if (!live && !streams) throw new UsageError('--interval paces the live view and -o jsonl without --once; a snapshot is read once', 'Leave out --interval, or drop --once / use -o jsonl.');
  }
  const client = await rt.client();
  let only: Set<string> | undefined;
  if (o.server !== undefined || o.allServers) {
    const [{ resolveTargets, singleRef, targetRefs }, { stdinFor }, { serverIdOf }] = await Promise.all([import('../core/fleet/targets.js'), import('../core/flags/fields.js'), import('../core/fleet/server-cache.js')]);
    const refs = targetRefs(o.server, undefined, rt.env, o.allServers === true);
    // One plain reference resolves as every single-server command does (remembered, or one search).
    const single = singleRef(refs);
    if (single !== undefined) only = new Set([await serverIdOf(rt, client, single)]);
    else if (!refs.all) only = new Set((await resolveTargets(client, refs, await stdinFor(refs.refs, () => rt.ctx.stdin), rt.references)).map((t) => t.id));
  }
  const pace = askedMs === undefined ? 'as often as half of the key\'s X-RateLimit-Limit allows (at least every 2 s)' : `every ${askedMs / 1000} s (stretched if that would take more than half of the key's X-RateLimit-Limit)`;
  const then = [
    step('page', 'the rest of the list, 100 servers a request (⌈servers/100⌉ requests a refresh)'),
    ...(live
      ? [step('wait', `refresh ${pace} and redraw, until q or Ctrl-C`), step('stream', 'enter on a server: open its console socket (POST …/console/token) for its stats every second and its last lines; closed when left')]
      : streams ? [step('wait', `write a snapshot (one line per server) ${pace}, until Ctrl-C`)] : [step('local', 'print one snapshot')]),
  ];
  return rt.submit({ requests: [{ ...LIST_STATUS, query: { ...LIST_STATUS.query, limit: 100, offset: 0 } }], then }, async () => {
    if (live) return (await import('../top/live.js')).runLive(rt, { client, ...(only ? { only } : {}), ...(askedMs !== undefined ? { askedMs } : {}), ...(sort ? { sort } : {}) });
    const scripts = await import('../top/scripts.js');
    if (streams) return scripts.stream(rt, client, only, askedMs, sort);
    await scripts.snapshot(rt, client, only, sort);
  });
}

export const operations: OperationUses = { top: ['GET /servers', 'POST /servers/{server_id}/console/token'] };
