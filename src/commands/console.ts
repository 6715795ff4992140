import { type Command, Option } from 'commander';
import { CHECKS } from '../core/checks.js';
import { Exit, GshError, UsageError } from '../core/errors.js';
import type { ApiClient } from '../core/http.js';
import { type Runtime, withRuntime } from '../core/runtime.js';
import { resolveServer, serverFlag } from '../core/server-ref.js';
import { attach } from '../console/attach.js';
import { colorFor, displayLine, type ColorWhen } from '../console/display.js';
import { parseHistory, type ConsoleSessionInfo, type Frame } from '../console/protocol.js';
import { ConsoleSession } from '../console/session.js';
import { parseStats, statsLine } from '../console/stats-view.js';

// Hand-written console commands (issue 5): attach, send (with --expect), history and stats talk
// to the console socket (01-general-contract.md "Console socket"). The generated `console status|
// queue|storage|timer|eula|token` (src/operations/console.ts) are kept as they are.

const SERVER_HELP = 'server id or name (default: $GSH_SERVER)';
/** `--expect` waits this long unless the global --timeout says otherwise. */
const EXPECT_DEFAULT_MS = 30_000;
/** A reply to `send history` or `send stats` should come at once; this is for a node that never answers. */
const REPLY_TIMEOUT_MS = 30_000;

interface Target {
  rt: Runtime;
  client: ApiClient;
  serverId: string;
  label: string;
  fetchSession: () => Promise<ConsoleSessionInfo>;
}

async function target(rt: Runtime, server: string | undefined): Promise<Target> {
  const ref = serverFlag(server, rt.env);
  const client = await rt.client();
  const serverId = await resolveServer(client, ref);
  const fetchSession = async (): Promise<ConsoleSessionInfo> => {
    const res = await client.request<{ data?: Partial<ConsoleSessionInfo> }>({
      method: 'POST', path: `/servers/${encodeURIComponent(serverId)}/console/token`,
    });
    const data = res.body?.data;
    if (typeof data?.socket !== 'string' || typeof data.token !== 'string') {
      throw new GshError('the console session response has no socket or token', Exit.error);
    }
    return { socket: data.socket, token: data.token, ...(Array.isArray(data.permissions) ? { permissions: data.permissions } : {}) };
  };
  return { rt, client, serverId, label: ref === serverId ? serverId : `${ref} (${serverId})`, fetchSession };
}

/** A session for a one-shot exchange: frames go to `onFrame`; closed by the caller. */
async function openSession(t: Target, onFrame: (f: Frame) => void): Promise<ConsoleSession> {
  const session = new ConsoleSession({
    fetchSession: t.fetchSession,
    replay: false,
    onFrame,
    note: (m) => t.rt.note(m),
    warn: (m) => t.rt.warn(m),
  });
  await session.start();
  return session;
}

/** Settles with what `body` hands to settle, or fails on timeout (exit 10) or the session's end. */
function wait<T>(session: ConsoleSession, ms: number, what: string, body: (settle: (v: T) => void) => void): Promise<T> {
  const p = new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new GshError(`${what} within ${ms / 1000}s`, Exit.timedOut)), ms);
    const settle = (v: T) => {
      clearTimeout(timer);
      resolve(v);
    };
    session.done.then(
      (end) => {
        clearTimeout(timer);
        reject(end === 'deleted' ? new GshError('the server was deleted', Exit.notFound) : new GshError('the console session ended', Exit.error));
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
    body(settle);
  });
  // The caller may fail before awaiting it (a refused POST); closing the session must not then
  // surface as an unhandled rejection.
  p.catch(() => {});
  return p;
}

/** The runtime is closed however it ends, resolving -s included. */
async function withTarget(cmd: Command, server: string | undefined, fn: (t: Target) => Promise<void>): Promise<void> {
  await withRuntime(cmd, async (rt) => fn(await target(rt, server)));
}

function intOption(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) throw new UsageError(`${name} must be a whole number from ${min} to ${max}`);
  return n;
}

function registerAttach(cmd: Command): void {
  cmd
    .command('attach')
    .description('Stream the live console; what you type is sent as a command')
    .option('-s, --server <id|name>', SERVER_HELP)
    .option('--no-history', 'do not replay recent output first')
    .option('--read-only', 'never send anything typed')
    .addOption(new Option('--color <when>', 'ANSI colours in console lines').choices(['auto', 'always', 'never']).default('auto'))
    .addHelpText('after', `
Console output goes to stdout; status changes, node messages and progress go to stderr. On a
terminal you get a prompt with history; from a pipe each line is sent (the end of the input stops
sending, not streaming). Ctrl-C or Ctrl-D detaches; the server keeps running. The session is
renewed before its token expires and reconnects after a dropped connection, filling the gap
from the console history; after repeated failures it exits 9. A deleted server exits 5.
--json writes every socket event as one JSON object per line.

Examples:
  gsh console attach -s lobby
  gsh console attach -s lobby --read-only --no-history | grep -i error
  echo "say restarting in 5 minutes" | gsh console attach -s lobby --no-history
  gsh console attach -s lobby --json | jq -c 'select(.event == "status")'`)
    .action(async function (this: Command, flags: { server?: string; history: boolean; readOnly?: boolean; color: ColorWhen }) {
      await withTarget(this, flags.server, async (t) => {
        process.exitCode = await attach({
          io: t.rt.io,
          label: t.label,
          fetchSession: t.fetchSession,
          history: flags.history,
          readOnly: flags.readOnly === true,
          json: t.rt.format === 'json' || t.rt.format === 'jsonl',
          color: colorFor(flags.color, t.rt.io.color),
        });
      });
    });
}

function registerSend(cmd: Command): void {
  cmd
    .command('send')
    .description('Send one single-line console command; --expect waits for a matching output line')
    .argument('<command>', 'the command (one that starts with a dash goes after --)')
    .option('-s, --server <id|name>', SERVER_HELP)
    .option('--expect <regex>', 'wait for the first console line matching this and print it (exit 10 on --timeout, default 30s)')
    .addHelpText('after', `
Sends POST /servers/{id}/commands. With --expect, the console socket is opened first, so the
answer cannot be missed; lines are matched without ANSI colours. The global --timeout limits the
wait (default 30s here).

Examples:
  gsh console send -s lobby "say hello"
  gsh console send -s lobby "list" --expect 'players online' --timeout 10s
  gsh console send -s lobby -- "-weird command"`)
    .action(async function (this: Command, text: string, flags: { server?: string; expect?: string }) {
      const problem = CHECKS['single-line'](text);
      if (problem) throw new UsageError(`the command ${problem}`, 'Send one command per call.');
      let pattern: RegExp | undefined;
      if (flags.expect !== undefined) {
        try {
          pattern = new RegExp(flags.expect);
        } catch (err) {
          throw new UsageError(`--expect is not a valid regular expression: ${(err as Error).message}`);
        }
      }
      await withTarget(this, flags.server, async (t) => {
        const post = () => t.client.request<{ data?: unknown }>({
          method: 'POST', path: `/servers/${encodeURIComponent(t.serverId)}/commands`, body: { command: text },
        });
        if (!pattern) {
          const res = await post();
          if (t.rt.format !== 'table') await t.rt.out.show(res.body?.data ?? null);
          else t.rt.note(`sent to ${t.label}`);
          return;
        }
        const re = pattern;
        const limit = t.rt.globals.timeout ? t.rt.waitLimitMs : EXPECT_DEFAULT_MS;
        let armed = false;
        let found: ((line: string) => void) | undefined;
        const session = await openSession(t, (f) => {
          const line = f.event === 'console output' ? f.args?.[0] : undefined;
          if (armed && line !== undefined && re.test(displayLine(line, false))) found?.(line);
        });
        try {
          const matched = wait<string>(session, limit, `no console line matched /${re.source}/`, (settle) => (found = settle));
          armed = true;
          await post();
          const line = await matched;
          t.rt.io.stdout.write(`${displayLine(line, t.rt.io.color)}\n`);
        } finally {
          session.close();
        }
      });
    });
}

function registerHistory(cmd: Command): void {
  cmd
    .command('history')
    .description('Page through the console history (newest page first, then --cursor for the next)')
    .option('-s, --server <id|name>', SERVER_HELP)
    .option('--cursor <cursor>', 'the cursor printed with the previous page')
    .option('--limit <n>', 'lines per page, 1 to 1000 (default: the node’s, 200)')
    .addHelpText('after', `
Lines go to stdout; when there is more, the command for the next page goes to stderr.
--json prints the page as the node sent it: {data, cursor, has_more}.

Examples:
  gsh console history -s lobby --limit 50
  gsh console history -s lobby --cursor 1234 --json`)
    .action(async function (this: Command, flags: { server?: string; cursor?: string; limit?: string }) {
      const limit = intOption('--limit', flags.limit, 1, 1000);
      await withTarget(this, flags.server, async (t) => {
        let reply: ((f: Frame) => void) | undefined;
        const session = await openSession(t, (f) => {
          if (f.event === 'history output' || f.event === 'daemon error') reply?.(f);
        });
        try {
          const frame = wait<Frame>(session, REPLY_TIMEOUT_MS, 'the console node did not answer send history', (settle) => (reply = settle));
          session.send('send history', ...historyArgs(flags.cursor, limit));
          const f = await frame;
          if (f.event === 'daemon error') throw new GshError(`the console node refused: ${f.args?.[0] ?? ''}`, Exit.error);
          const page = parseHistory(f.args?.[0]);
          if (!page) throw new GshError('the console node sent a history page that is not {data, cursor, has_more}', Exit.error);
          if (t.rt.format !== 'table') return void (await t.rt.out.show(page));
          t.rt.io.stdout.write(page.data.map((l) => `${displayLine(l, t.rt.io.color)}\n`).join(''));
          if (page.has_more && page.cursor !== undefined) {
            t.rt.note(`more: gsh console history -s ${t.serverId} --cursor ${page.cursor}${limit ? ` --limit ${limit}` : ''}`);
          }
        } finally {
          session.close();
        }
      });
    });
}

/** `send history` args: optional cursor, optional page length; an empty cursor means none. */
export function historyArgs(cursor: string | undefined, limit: number | undefined): string[] {
  if (limit !== undefined) return [cursor ?? '', String(limit)];
  return cursor !== undefined ? [cursor] : [];
}

function registerStats(cmd: Command): void {
  cmd
    .command('stats')
    .description('Resource usage from the console socket; --watch keeps it live')
    .option('-s, --server <id|name>', SERVER_HELP)
    .option('--watch', 'keep showing each update (one live line on a terminal) until Ctrl-C')
    .addHelpText('after', `
Examples:
  gsh console stats -s lobby
  gsh console stats -s lobby --watch
  gsh console stats -s lobby --watch --json     # one JSON object per update`)
    .action(async function (this: Command, flags: { server?: string; watch?: boolean }) {
      await withTarget(this, flags.server, async (t) => {
        const { io } = t.rt;
        let onStats: ((arg: string | undefined) => void) | undefined;
        const session = await openSession(t, (f) => {
          if (f.event === 'stats') onStats?.(f.args?.[0]);
        });
        try {
          if (!flags.watch) {
            const arg = wait<string | undefined>(session, REPLY_TIMEOUT_MS, 'the console node sent no stats', (settle) => (onStats = settle));
            session.send('send stats');
            const stats = parseStats(await arg);
            if (!stats) throw new GshError('the console node sent stats that are not a JSON object', Exit.error);
            await t.rt.out.show(stats);
            return;
          }
          const live = io.stdoutTTY && t.rt.format === 'table';
          onStats = (arg) => {
            const stats = parseStats(arg);
            if (!stats) return;
            if (t.rt.format !== 'table') io.stdout.write(`${JSON.stringify(stats)}\n`);
            else io.stdout.write(live ? `\r\x1b[2K${statsLine(stats)}` : `${statsLine(stats)}\n`);
          };
          session.send('send stats');
          let onSigint: (() => void) | undefined;
          const interrupted = new Promise<number>((resolve) => process.once('SIGINT', (onSigint = () => resolve(Exit.interrupted))));
          const ended = session.done.then((end) => {
            throw new GshError(end === 'deleted' ? 'the server was deleted' : 'the console session ended', end === 'deleted' ? Exit.notFound : Exit.error);
          });
          ended.catch(() => {});
          try {
            process.exitCode = await Promise.race([interrupted, ended]);
          } finally {
            if (onSigint) process.off('SIGINT', onSigint);
            if (live) io.stdout.write('\n');
          }
        } finally {
          session.close();
        }
      });
    });
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
