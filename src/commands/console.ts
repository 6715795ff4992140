import type { Command } from 'commander';
import { fleetFlags, fleetSteps, type RolloutFlags, rolloutOf, runsAsFleet } from '../core/fleet/rollout.js';
import { CHECKS } from '../core/flags/checks.js';
import { Exit, GshError, UsageError } from '../core/errors.js';
import { withIdempotencyKey } from '../core/wire/http.js';
import { type Plan, step, type Step } from '../core/plan.js';
import { type Runtime, withRuntime } from '../core/run/runtime.js';
import { door, fitWidth, term } from '../core/terminal/terminal-text.js';
import { attach, LINGER_MS, QUIET_MS } from '../console/attach.js';
import { displayLine } from '../console/display.js';
import { awaitAnswer, endedError, openSession } from '../console/exchange.js';
import { parseHistory, type Frame } from '../console/protocol.js';
import { parseStats, statsLine } from '../console/stats-view.js';
import { type ConsoleTarget, consoleTarget, planTarget, sessionSource } from '../console/target.js';
import { collect, stdinFor } from '../core/flags/fields.js';
import { fleetOptions, parallelOption, resolveFleet, runFleet } from '../core/fleet/fleet.js';
import { resolveTargets, singleRef, targetRefs, type TargetRefs } from '../core/fleet/targets.js';
import { onServers, SERVERS_HELP, type ServerFlags } from '../core/fleet/fleet-command.js';

// Hand-written console commands (issue 5): attach, send (with --expect), history and stats talk
// to the console socket (01-general-contract.md "Console socket"). The generated `console status|
// queue|storage|timer|eula|token` (src/operations/console.ts) are kept as they are. Each plans
// first (ARCHITECTURE.md "Plan, then execute"): everything typed is checked and -s resolved, then
// the plan holds the POSTs it will send and the socket work after them; --dry-run prints it, stops.

const SERVER_ARG = 'server id or name, instead of -s';
/** `--expect` waits this long unless the global --timeout says otherwise. */
const EXPECT_DEFAULT_MS = 30_000;
/** A reply to `send history` or `send stats` should come at once; this is for a node that never answers. */
const REPLY_TIMEOUT_MS = 30_000;
const RENEWAL = step('stream', 'renew the console session (POST …/console/token again) before its token expires, and reconnect after a dropped connection');

function intOption(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) throw new UsageError(`${name} must be a whole number from ${min} to ${max}`);
  return n;
}

function regexOption(name: string, value: string | undefined): RegExp | undefined {
  if (value === undefined) return undefined;
  try {
    return new RegExp(value);
  } catch (err) {
    throw new UsageError(`${name} is not a valid regular expression: ${(err as Error).message}`);
  }
}

/** What attach does once the session is open, as plan steps. */
function attachSteps(history: boolean, readOnly: boolean, stdinTTY: boolean): Step[] {
  const until = stdinTTY ? 'Ctrl-C or Ctrl-D' : readOnly ? 'Ctrl-C (standard input is not read)' : 'the end of standard input or Ctrl-C';
  const steps = [step('stream', `open the console socket${history ? ', replay recent output (send logs)' : ''} and stream output until ${until}`)];
  if (!readOnly && stdinTTY) steps.push(step('stream', 'send each line typed at the prompt as a console command (send command)'));
  if (!readOnly && !stdinTTY) {
    steps.push(step('stream', `send each line of standard input as a console command (send command); once all are written to the socket, show output until it is quiet for ${QUIET_MS / 1000} s (at most ${LINGER_MS / 1000} s) and detach`));
  }
  return [...steps, RENEWAL];
}

function registerAttach(cmd: Command): void {
  cmd
    .command('attach')
    .description('Stream the live console; what you type is sent as a command')
    .argument('[server]', SERVER_ARG)
    .option('-s, --server <id|name>', 'server id or name (default: $GSH_SERVER); for several in one view: repeat it, commas, a name glob, or - for stdin', collect)
    .option('--all-servers', 'every server the key can reach, in one view')
    .option('--no-history', 'do not replay recent output first')
    .option('--read-only', 'never send anything; standard input is not read')
    .option('--broadcast', 'with several servers: send each typed or piped line to every one of them (without it, standard input is not read)')
    .option('--until <regex>', 'detach (exit 0) after printing the first console line that matches (with several servers: once one matched on each); exit 10 after --timeout (default 10m); implies --no-history')
    .option('--raw', 'console lines exactly as the server sent them, escape sequences and all, even to a terminal')
    .option('--until-any', 'with several servers and --until: detach after the first match on any of them')
    .addHelpText('after', `
Console output goes to stdout; status changes, node messages and progress go to stderr. On a
terminal you get a prompt with history, and Ctrl-C or Ctrl-D detaches. From a pipe each line is
sent as a command, and at the end of the input the command detaches (exit 0) once every line is
written to the socket and the console has been quiet for ${QUIET_MS / 1000} s (at most ${LINGER_MS / 1000} s); exit 1 if a
line could not be sent. With --read-only standard input is not read: output streams until
Ctrl-C. Detaching leaves the server running. The session is renewed before its token expires
and reconnects after a dropped connection, filling the gap from the console history; after
repeated failures it exits 9. A deleted server exits 5.
--json writes every socket event as one JSON object per line.
On a terminal a line's colours (SGR) are kept unless --color never; every other escape sequence
and control character is shown as text (^[…), so a line cannot set the title, write the
clipboard or move the cursor. --raw passes the lines through exactly as they came.

Several servers (-s 'lobby-*', -s a,b, --all-servers) stream in one view: each line starts with
the server's name (coloured per server on a terminal); --json / -o jsonl add server_id and
server_name to every event. Each server's session renews and reconnects on its own. Standard
input is read only with --broadcast, and each line then goes to every server.

Examples:
  gsh console attach lobby
  gsh console attach -s lobby --read-only --no-history | grep -i error
  echo "say restarting in 5 minutes" | gsh console attach -s lobby --no-history
  gsh console attach -s lobby --json | jq -c 'select(.event == "status")'
  gsh console attach lobby --until 'Done \\(' --timeout 2m     # wait for the server to be ready
  gsh console attach -s lobby --raw --read-only
  gsh console attach -s lobby --dry-run
  gsh console attach -s 'lobby-*' --no-history                 # every lobby in one view
  gsh console attach -s 'lobby-*' -o jsonl | jq -c 'select(.event == "console output") | [.server_name, .args[0]]'
  echo "save-all" | gsh console attach -s lobby-1,lobby-2 --broadcast --no-history
  gsh console attach -s 'lobby-*' --until 'Done \\(' --timeout 5m   # until each one is ready`)
    .action(async function (this: Command, server: string | undefined, flags: AttachFlags) {
      await withRuntime(this, async (rt) => {
        if (rt.globals.jq !== undefined) throw new UsageError('--jq needs a whole result; attach streams events', 'Pipe --json into jq instead: gsh console attach lobby --json | jq -c ….');
        const json = rt.format === 'json' || rt.format === 'jsonl';
        if (flags.raw && json) throw new UsageError('--raw shows console lines as they came; --json writes events as JSON', 'Choose one.');
        const re = regexOption('--until', flags.until);
        if (flags.untilAny && !re) throw new UsageError('--until-any goes with --until');
        if (flags.broadcast && flags.readOnly) throw new UsageError('--broadcast sends lines and --read-only never does; give one of them');
        const refs = targetRefs(flags.server, server, rt.env, flags.allServers === true);
        const single = singleRef(refs);
        if (single === undefined) return attachSeveral(rt, refs, flags, re);
        const t = await planTarget(rt, single);
        const readOnly = flags.readOnly === true;
        // Replayed history could hold an old match: --until watches new lines only.
        const history = flags.history && !re;
        const until = re ? [step('wait', `detach after the first console line matching /${re.source}/, or exit 10 after ${rt.waitLimitMs / 1000} s (--timeout)`)] : [];
        const plan = { requests: [t.token], then: [...attachSteps(history, readOnly, rt.io.stdinTTY), ...until] };
        return rt.submit(plan, () => attach({
          io: rt.io,
          signals: rt.ctx.signals,
          clock: rt.ctx.clock,
          label: t.label,
          fetchSession: sessionSource(t),
          history,
          readOnly,
          ...(re ? { until: { re, timeoutMs: rt.waitLimitMs } } : {}),
          json,
          color: rt.io.color,
          raw: flags.raw === true,
        }));
      });
    });
}

interface AttachFlags {
  server?: string[];
  allServers?: boolean;
  history: boolean;
  readOnly?: boolean;
  broadcast?: boolean;
  until?: string;
  untilAny?: boolean;
  raw?: boolean;
}

/** `console attach` on several servers: one view (console/multi.ts). */
async function attachSeveral(rt: Runtime, refs: TargetRefs, flags: AttachFlags, re: RegExp | undefined): Promise<number | void> {
  const client = await rt.client();
  const targets = await resolveTargets(client, refs, await stdinFor(refs.refs, () => rt.ctx.stdin), rt.references);
  const consoles = await Promise.all(targets.map((x) => consoleTarget(client, x.id, x.name ?? x.id)));
  const history = flags.history && !re;
  const broadcast = flags.broadcast === true;
  const names = targets.map((x) => x.name ?? x.id).join(', ');
  const readOnly = flags.readOnly === true;
  const input = broadcast ? 'send each typed or piped line to every server (send command)' : readOnly ? 'read-only: standard input is not read' : 'standard input is not read (--broadcast sends lines to every server)';
  const until = re ? [step('wait', `detach once a console line matched /${re.source}/ on ${flags.untilAny ? 'any server' : 'each server'}, or exit 10 after ${rt.waitLimitMs / 1000} s (--timeout)`)] : [];
  const plan = {
    requests: consoles.map((c) => c.token),
    then: [step('stream', `open the console socket of each of ${targets.length} servers (${names})${history ? ', replay recent output (send logs)' : ''} and stream their output in one view, each line after its server's name, until Ctrl-C`), step('stream', input), ...until, RENEWAL],
  };
  return rt.submit(plan, async () => {
    const { attachMany } = await import('../console/multi.js');
    return attachMany({
      io: rt.io,
      signals: rt.ctx.signals,
      clock: rt.ctx.clock,
      servers: consoles.map((c, i) => ({ id: c.serverId, name: targets[i]!.name ?? c.serverId, fetchSession: sessionSource(c) })),
      history,
      broadcast,
      readOnly,
      json: rt.format === 'json' || rt.format === 'jsonl',
      color: rt.io.color,
      raw: flags.raw === true,
      ...(re ? { until: { re, timeoutMs: rt.waitLimitMs, any: flags.untilAny === true } } : {}),
    });
  });
}

function registerSend(cmd: Command): void {
  fleetFlags(cmd
    .command('send')
    .description('Send one single-line console command; --expect waits for a matching output line')
    .argument('<command>', 'the command (one that starts with a dash goes after --)')
    .option('-s, --server <id|name>', 'server id or name (default: $GSH_SERVER); for several: repeat it, commas, a name glob, or - for stdin', collect)
    .option('--all-servers', 'send to every server the key can reach')
    .option('--parallel <n>', 'with several servers: how many at once (default 4, at most 32)')
    .option('--expect <regex>', 'wait for the first console line matching this and print it (exit 10 on --timeout, default 30s)')
    .addHelpText('after', `
Sends POST /servers/{id}/commands. With --expect, the console socket is opened first, so the
answer cannot be missed; lines are matched without ANSI colours. The global --timeout limits the
wait (default 30s here).

Examples:
  gsh console send -s lobby "say hello"
  gsh console send -s lobby "list" --expect 'players online' --timeout 10s
  gsh console send -s lobby -- "-weird command"
  gsh console send -s lobby "say hello" --dry-run
  gsh console send -s 'lobby-*' "say restarting in 5 minutes"`)
    .action(async function (this: Command, text: string, flags: RolloutFlags & { server?: string[]; expect?: string; allServers?: boolean; parallel?: string }) {
      await withRuntime(this, async (rt) => {
        const problem = CHECKS['single-line'](text);
        if (problem) throw new UsageError(`the command ${problem}`, 'Send one command per call.');
        const re = regexOption('--expect', flags.expect);
        const limit = rt.globals.timeout ? rt.waitLimitMs : EXPECT_DEFAULT_MS;
        const refs = targetRefs(flags.server, undefined, rt.env, flags.allServers === true);
        const single = singleRef(refs);
        if (single !== undefined && !runsAsFleet(rolloutOf(flags))) {
          parallelOption(flags.parallel);
          const t = await planTarget(rt, single);
          const s = await sending(rt, t, text, re, limit);
          return rt.submit(s.plan, async () => {
            const answer = await s.send();
            if (re) rt.io.stdout.write(`${displayLine(String(answer), rt.io.color)}\n`);
            else if (rt.format !== 'table') await rt.out.show(answer ?? null);
            else rt.note(`sent to ${t.label}`);
          });
        }
        // Several servers (ARCHITECTURE.md "Many servers at once"): one send and one result each.
        // Each send is a POST: one interrupted says whether it went out.
        const { restCommand, targetReplayCommand } = await import('../core/terminal/report.js');
        const opts = { ...fleetOptions(flags, rt.globals.idempotencyKey), mutates: true, replay: (id: string, key: string) => targetReplayCommand(rt.argv, id, key), rest: (ids: readonly string[]) => restCommand(rt.argv, ids) };
        const client = await rt.client();
        const stdin = await stdinFor(refs.refs, () => rt.ctx.stdin);
        const sends = new Map<string, Sending>();
        const targets = await resolveFleet(rt, refs.refs, opts, () => resolveTargets(client, refs, stdin, rt.references), async (resolved) => {
          for (const target of resolved) sends.set(target.id, await sending(rt, await consoleTarget(client, target.id, target.name ?? target.id), text, re, limit));
        });
        if (typeof targets === 'number') return targets;
        const plan = {
          requests: [...sends.values()].flatMap((x) => x.plan.requests),
          then: [...fleetSteps(targets, opts.parallel, opts.rollout), ...([...sends.values()][0]?.plan.then ?? [])],
        };
        return rt.submit(plan, () => runFleet(rt, targets, opts, (target) => (sends.get(target.id) as Sending).send()));
      });
    }));
}

interface Sending {
  plan: Plan;
  /** Sends the command; gives the API's answer, or with --expect the matching console line. */
  send(): Promise<unknown>;
}

/** One server's send: its requests for the plan, and the sending itself. */
async function sending(rt: Runtime, t: ConsoleTarget, text: string, re: RegExp | undefined, limit: number): Promise<Sending> {
  const post = await withIdempotencyKey({
    method: 'POST', path: `/servers/${encodeURIComponent(t.serverId)}/commands`, body: { command: text }, idempotencyKey: rt.globals.idempotencyKey,
  });
  if (!re) {
    return { plan: { requests: [post], then: [] }, send: async () => (await t.client.request<{ data?: unknown }>(post)).body?.data };
  }
  const plan = {
    requests: [t.token, post],
    then: [
      step('stream', 'open the console socket before the command is sent, so its answer cannot be missed'),
      step('wait', `print the first console line matching /${re.source}/, waiting at most ${limit / 1000} s (--timeout)`),
    ],
  };
  return {
    plan,
    send: async () => {
      let armed = false;
      let found: ((line: string) => void) | undefined;
      const session = await openSession(rt, t, (f) => {
        const line = f.event === 'console output' ? f.args?.[0] : undefined;
        if (armed && line !== undefined && re.test(displayLine(line, false))) found?.(line);
      });
      try {
        const matched = awaitAnswer<string>(session, limit, `no console line matched /${re.source}/`, (settle) => (found = settle));
        armed = true;
        await t.client.request(post);
        return await matched;
      } finally {
        session.close();
      }
    },
  };
}

function registerHistory(cmd: Command): void {
  fleetFlags(cmd
    .command('history')
    .description('Page through the console history (newest page first, then --cursor for the next)')
    .argument('[server]', SERVER_ARG)
    .option('-s, --server <id|name>', SERVERS_HELP, collect)
    .option('--all-servers', 'every server the key can reach')
    .option('--cursor <cursor>', 'the cursor printed with the previous page')
    .option('--limit <n>', 'lines per page, 1 to 1000 (default: the node’s, 200)')
    .addHelpText('after', `
Lines go to stdout; when there is more, the command for the next page goes to stderr.
--json prints the page as the node sent it: {data, cursor, has_more}.

Examples:
  gsh console history -s lobby --limit 50
  gsh console history -s lobby --cursor 1234 --json`)
    .action(async function (this: Command, server: string | undefined, flags: ServerFlags & { cursor?: string; limit?: string }) {
      await withRuntime(this, async (rt) => {
        const limit = intOption('--limit', flags.limit, 1, 1000);
        const args = historyArgs(flags.cursor, limit);
        const asked = ['send history', ...args.map((a) => JSON.stringify(a))].join(' ');
        return onServers(rt, { server: flags.server, positional: server, allServers: flags.allServers, rollout: flags, mutates: false }, async (client, target) => {
          const t = await consoleTarget(client, target.id, target.name !== undefined ? `${target.name} (${target.id})` : target.id);
          const page = async () => {
            let reply: ((f: Frame) => void) | undefined;
            const session = await openSession(rt, t, (f) => {
              if (f.event === 'history output' || f.event === 'daemon error') reply?.(f);
            });
            try {
              const frame = awaitAnswer<Frame>(session, REPLY_TIMEOUT_MS, 'the console node did not answer send history', (settle) => (reply = settle));
              session.send('send history', args);
              const f = await frame;
              if (f.event === 'daemon error') throw new GshError(`the console node refused: ${f.args?.[0] ?? ''}`, Exit.error);
              const got = parseHistory(f.args?.[0]);
              if (!got) throw new GshError('the console node sent a history page that is not {data, cursor, has_more}', Exit.error);
              return got;
            } finally {
              session.close();
            }
          };
          return {
            plan: { requests: [t.token], then: [step('stream', `open the console socket, ask for one page (${asked}) and print it`)] },
            alone: async () => {
              const got = await page();
              if (rt.format !== 'table') return void (await rt.out.show(got));
              rt.io.stdout.write(got.data.map((l) => `${displayLine(l, rt.io.color)}\n`).join(''));
              if (got.has_more && got.cursor !== undefined) {
                rt.note(`more: gsh console history -s ${t.serverId} --cursor ${got.cursor}${limit ? ` --limit ${limit}` : ''}`);
              }
            },
            // One of several: the page is this server's result (-o json shows its lines; the table, how many).
            inFleet: async () => {
              const got = await page();
              return { summary: `${got.data.length} lines${got.has_more ? ', more before them' : ''}`, ...got };
            },
          };
        });
      });
    }));
}

/** `send history` args: optional cursor, optional page length; an empty cursor means none. */
export function historyArgs(cursor: string | undefined, limit: number | undefined): string[] {
  if (limit !== undefined) return [cursor ?? '', String(limit)];
  return cursor !== undefined ? [cursor] : [];
}

function registerStats(cmd: Command): void {
  fleetFlags(cmd
    .command('stats')
    .description('Resource usage from the console socket; --watch keeps it live')
    .argument('[server]', SERVER_ARG)
    .option('-s, --server <id|name>', SERVERS_HELP, collect)
    .option('--all-servers', 'every server the key can reach')
    .option('--watch', 'keep showing each update (one live line on a terminal) until Ctrl-C (one server; several: gsh top)')
    .addHelpText('after', `
Examples:
  gsh console stats -s lobby
  gsh console stats -s lobby --watch
  gsh console stats -s lobby --watch --json     # one JSON object per update`)
    .action(async function (this: Command, server: string | undefined, flags: ServerFlags & { watch?: boolean }) {
      await withRuntime(this, async (rt) => {
        if (flags.watch && rt.globals.jq !== undefined) throw new UsageError('--jq needs a whole result; --watch streams updates', 'Pipe --json into jq instead.');
        const several = () => {
          if (flags.watch) throw new UsageError('--watch follows one server\'s stats', 'For several servers\' usage live, use gsh top -s SERVERS; without --watch, each server\'s stats are read once.');
        };
        return onServers(rt, { server: flags.server, positional: server, allServers: flags.allServers, rollout: flags, mutates: false, several }, async (client, target) => {
          const t = await consoleTarget(client, target.id, target.name !== undefined ? `${target.name} (${target.id})` : target.id);
          const then = flags.watch
            ? [step('stream', 'open the console socket, ask for stats (send stats) and show every update until Ctrl-C'), RENEWAL]
            : [step('stream', 'open the console socket, ask for stats (send stats) and print the answer')];
          const once = async () => {
            let onStats: ((arg: string | undefined) => void) | undefined;
            const session = await openSession(rt, t, (f) => {
              if (f.event === 'stats') onStats?.(f.args?.[0]);
            });
            try {
              const arg = awaitAnswer<string | undefined>(session, REPLY_TIMEOUT_MS, 'the console node sent no stats', (settle) => (onStats = settle));
              session.send('send stats');
              const stats = parseStats(await arg);
              if (!stats) throw new GshError('the console node sent stats that are not a JSON object', Exit.error);
              return stats;
            } finally {
              session.close();
            }
          };
          return { plan: { requests: [t.token], then }, alone: () => statsAlone(rt, t, flags.watch === true, once), inFleet: once };
        });
      });
    }));
}

/** `console stats` on one server: the answer once, or with --watch every update until Ctrl-C. */
async function statsAlone(rt: Runtime, t: ConsoleTarget, watch: boolean, once: () => Promise<Record<string, unknown>>): Promise<number | void> {
  if (!watch) return void (await rt.out.show(await once()));
  const { io } = rt;
  let onStats: ((arg: string | undefined) => void) | undefined;
  const session = await openSession(rt, t, (f) => {
    if (f.event === 'stats') onStats?.(f.args?.[0]);
  });
  try {
    const live = io.stdoutTTY && rt.format === 'table';
    onStats = (arg) => {
      const stats = parseStats(arg);
      if (!stats) return;
      if (rt.format !== 'table') io.stdout.write(`${JSON.stringify(stats)}\n`);
      else if (live) door(io.rawStdout).write(term`\r\x1b[2K${fitWidth(statsLine(stats), Math.max(0, io.columns - 1))}`);
      else io.stdout.write(`${statsLine(stats)}\n`);
    };
    session.send('send stats');
    let onSigint!: () => void;
    const interrupted = new Promise<number>((resolve) => rt.ctx.signals.on('SIGINT', (onSigint = () => resolve(Exit.interrupted))));
    const ended = session.done.then((end) => Promise.reject(endedError(end)));
    ended.catch(() => {});
    try {
      return await Promise.race([interrupted, ended]);
    } finally {
      rt.ctx.signals.off('SIGINT', onSigint);
      if (live) io.stdout.write('\n');
    }
  } finally {
    session.close();
  }
}

export function register(cmd: Command): void {
  registerAttach(cmd);
  registerSend(cmd);
  registerHistory(cmd);
  registerStats(cmd);
}

/** The operations each hand-written console command calls (read by `gsh reference`). */
export const operations: Readonly<Record<string, readonly string[]>> = {
  'console attach': ['POST /servers/{server_id}/console/token'],
  'console send': ['POST /servers/{server_id}/commands', 'POST /servers/{server_id}/console/token'],
  'console history': ['POST /servers/{server_id}/console/token'],
  'console stats': ['POST /servers/{server_id}/console/token'],
};

/** `console send` takes the place of the generated command for POST /servers/{server_id}/commands. */
export const replaces = ['console send'];
