import { ConsoleSession } from '../console/session.js';
import { parseHistory, type Frame } from '../console/protocol.js';
import { displayLine } from '../console/display.js';
import { consoleTarget, sessionSource } from '../console/target.js';
import { Exit, GshError, UsageError, WaitStoppedError } from '../core/errors.js';
import { waitCommand } from '../core/fleet/follow.js';
import type { ApiClient, RequestSpec } from '../core/wire/http.js';
import { step as planStep, type Step } from '../core/plan.js';
import type { Runtime } from '../core/run/runtime.js';
import type { SignalName } from '../core/run/context.js';
import { cannotTell, pollDelay, progressFor } from '../core/run/poll.js';
import { describeServerStatus, readServerStatus, serverStateReached, statusReadable, type ServerStatus } from '../core/fleet/wait.js';
import { initialState, type Observation, QUIET_RUNNING_MS, seenOf, step, type WaitState } from './ready-wait.js';

// Ready means ready (issue 31, item 2; issue 36, item 4): `--ready` on power start/restart and
// `gsh wait --ready` end when the console prints the line that says the game accepts players, not
// when the status says `running`, and as soon as that line arrives: the console socket
// (01-general-contract.md "Console socket") wakes the wait, which does not wait for its next status
// poll. The socket is opened before the power request, so no line of the new boot is missed.
// `gsh wait`, which comes later, reads the console history (`send history`, one reply): a server
// already running must have its line there (exit 12 at once otherwise, since it will not print it
// again). Without a pattern, the settings' done message is used (02-endpoints-part-a.md
// "Settings": `done_message`, the "startup-detection message"; the contract shows no other source,
// the startup resource carries the egg's startup command only), matched as plain text; a server
// without one exits 12 before anything is sent. A crash (`crash restart pending`) or the server
// stopping once its new boot began ends the wait at once with exit 13 and the last console lines,
// whether the socket's `status` event or a status poll saw it first; what counts as the new boot,
// with the socket and the polls in either order, is the state machine of ./ready-wait.ts (issue
// 43), which also says once when the server runs 60 s without its line. Every message names the
// pattern.

/** How many of the last console lines an early end shows. */
const LAST_LINES = 10;
/** Sleeps in short steps, so a finished wait leaves no timer behind. */
const STEP_MS = 250;
/** The console history `gsh wait --ready` reads: the contract's largest page of `send history`. */
const HISTORY_LINES = 1000;
/** How long the node may take to answer `send history`. */
const HISTORY_WAIT_MS = 5000;

/** What --ready waits for: a pattern typed, or the settings' done message read when it runs. */
export type ReadySpec = { re: RegExp } | { doneMessage: RequestSpec };

/**
 * `--ready [regex]`: true (no value) reads the done message; a value is a regular expression.
 * Checked while planning; undefined without the flag.
 */
export function planReady(flag: unknown, serverId: string): ReadySpec | undefined {
  if (flag === undefined || flag === false) return undefined;
  if (flag === true) return { doneMessage: { method: 'GET', path: `/servers/${encodeURIComponent(serverId)}/settings` } };
  try {
    return { re: new RegExp(String(flag)) };
  } catch (err) {
    throw new UsageError(`--ready is not a valid regular expression: ${(err as Error).message}`);
  }
}

/** The plan's part: the settings read (when it has one) and the step that follows the wait. */
export function readyPlan(spec: ReadySpec, rt: Runtime, opts: { replay?: boolean } = {}): { requests: RequestSpec[]; then: Step[]; before: Step } {
  const what = 're' in spec ? `a console line matching /${spec.re.source}/` : 'a console line containing the settings\' done_message (exit 12 at once if they hold none)';
  const history = opts.replay ? '; a server already running must have it in its console history (exit 12 at once otherwise)' : '';
  return {
    requests: 'doneMessage' in spec ? [spec.doneMessage] : [],
    before: planStep('stream', 'open the console socket (POST …/console/token) before the power request, so no line of the new boot is missed'),
    then: [planStep('wait', `poll the server status and wait for ${what}, ending as soon as the line arrives${history}; exit 13 (with the last console lines) at once if the server crashes, stops or goes offline first, 10 after ${rt.waitLimitMs / 1000} s (--timeout)`)],
  };
}

/** What the wait looks for, as messages name it and as `--ready` takes it again. */
export interface ReadyPattern {
  match(line: string): boolean;
  /** `/Done \(/`, or the done message in quotes with where it came from. */
  shown: string;
  /** A regular expression for `--ready` that waits for the same line (resume lines). */
  regex: string;
}

/** How a ready wait ended: the last status, the line that matched, seconds from the wait's start to it. */
export interface ReadyEnd {
  final: ServerStatus;
  line: string;
  seconds: number;
}

/** Where a wait ends at the status alone, for a message that cannot wait on the console. */
export type StateOnly = string;

export interface ReadyWatch {
  /** The pattern this watch waits for. */
  readonly pattern: ReadyPattern;
  /** From now on, lines count and a stop or crash ends the wait (call it just before the request). */
  arm(): void;
  /**
   * Polls the status (`target`, usually running) and ends on the ready line, whichever comes
   * first: the line wakes the wait at once, and one more status read gives the final record.
   * Fails with 13 (crashed, stopped or went offline after it started), 12 (already running with
   * no ready line in the history, `replay` only), 10 (--timeout), 130/143 (Ctrl-C, SIGTERM).
   */
  until(target: { state: string; mustLeave?: string }): Promise<ReadyEnd>;
  close(): void;
}

/**
 * Opens the console of `serverId` and watches it. `replay`: also read the console history (for a
 * server that may have printed its line already). Reads the done message first when asked;
 * `stateOnly` says how to wait without a console line, for the message when there is none.
 */
export async function watchReady(
  rt: Runtime,
  client: ApiClient,
  serverId: string,
  label: string,
  spec: ReadySpec,
  opts: { replay: boolean; stateOnly: StateOnly },
): Promise<ReadyWatch> {
  const pattern = await readyPattern(client, spec, label, opts.stateOnly);
  /** The `gsh wait` that picks this wait up, with the same pattern (resume lines). */
  const resume = waitCommand({ kind: 'server-state', serverId, state: 'running', ready: { pattern: pattern.regex } });
  const last: string[] = [];
  // With a replay the wait starts now: live lines count from the start.
  let armed = opts.replay;
  let matched: string | undefined;
  /** When the line came (the run's clock), and when until() began the wait. */
  let matchedAt: number | undefined;
  let waitedFrom: number | undefined;
  /** The console history (`replay`): undefined until the node answers. */
  let history: string[] | undefined;
  let stopped: GshError | undefined;
  let onStop: ((err: GshError) => void) | undefined;
  // Rung by every event a pause may be waiting for (a line, the history, a stop): it ends the
  // pause under way and clears its timer, so a wait that ends leaves none holding the process.
  let bell = new AbortController();
  const ring = () => {
    const rung = bell;
    bell = new AbortController();
    rung.abort();
  };
  const keep = (lines: readonly string[], older = false) => {
    if (older) last.unshift(...lines);
    else last.push(...lines);
    last.splice(0, Math.max(0, last.length - LAST_LINES));
  };
  const stop = (why: string) => {
    if (stopped || matched !== undefined) return;
    stopped = new GshError(`${label}: ${why} before it was ready (no console line matching ${pattern.shown} yet)${tail(last)}`, Exit.notReady);
    // An automatic restart may bring it up again: the wait to pick up carries the pattern.
    stopped.resume = resume;
    onStop?.(stopped);
    ring();
  };
  // The machine (ready-wait.ts): observations since arm() wait in `early` until until() knows
  // whether this is a restart, then every one goes through step() in the order it came.
  let machine: WaitState | undefined;
  let deadline = Infinity;
  const early: Observation[] = [];
  const feed = (o: Observation, line?: string) => {
    if (!armed) return;
    if (!machine) return void early.push(o);
    const { next, effect } = step(machine, o, rt.now(), deadline);
    machine = next;
    if (effect === 'notice') {
      rt.warn(
        `${label} has been running for ${QUIET_RUNNING_MS / 1000} s and printed no console line matching ${pattern.shown}; ` +
          `gsh goes on waiting until --timeout (${rt.waitLimitMs / 1000} s). If it prints another line when it is ready, ` +
          `give that line: --ready REGEX (or --ready alone: the settings' done_message)${tail(last)}`,
      );
    }
    if (effect !== 'end') return;
    if (next.end === 'ready') {
      matched = line ?? '';
      matchedAt = rt.now();
      ring();
    } else if (next.end === 'crashed') {
      stop(next.why ? `the server is ${next.why.seen === 'running-new' ? 'running' : next.why.seen}` : 'the server crashed (an automatic restart is pending)');
    }
  };
  const onFrame = (f: Frame) => {
    const arg = f.args?.[0];
    if (f.event === 'console output' && arg !== undefined) {
      const line = displayLine(arg, false);
      keep([line]);
      if (matched === undefined && !stopped) feed({ kind: 'line', matches: pattern.match(line) }, line);
    } else if (f.event === 'history output' && opts.replay && history === undefined) {
      history = (parseHistory(arg)?.data ?? []).map((l) => displayLine(l, false));
      keep(history, true);
      ring();
    } else if (f.event === 'status' && arg !== undefined) {
      feed({ kind: 'state', source: 'socket', seen: seenOf(arg) });
    } else if (f.event === 'crash restart pending' && arg !== 'false') {
      feed({ kind: 'crash restart pending' });
    }
  };
  const session = new ConsoleSession({
    fetchSession: sessionSource(await consoleTarget(client, serverId, label)),
    replay: false,
    onFrame,
    note: (m) => rt.note(m),
    warn: (m) => rt.warn(m),
  });
  await session.start();
  // One reply with the recent lines: unlike `send logs`, it says when the replay is complete.
  const asked = opts.replay && session.send('send history', ['', String(HISTORY_LINES)]);
  return {
    pattern,
    arm: () => void (armed = true),
    close: () => session.close(),
    until: async (target) => {
      armed = true;
      waitedFrom = rt.now();
      const reached = serverStateReached(target.state, target.mustLeave, () => rt.now());
      deadline = rt.now() + rt.waitLimitMs;
      machine = initialState(target.mustLeave !== undefined);
      for (const o of early.splice(0)) feed(o, o.kind === 'line' && o.matches ? last.findLast((l) => pattern.match(l)) : undefined);
      let first = opts.replay;
      let status: ServerStatus | undefined;
      let uptime: number | undefined;
      // A crash or stop, Ctrl-C or SIGTERM, or the session's end stops the wait at once.
      let fail!: (err: unknown) => void;
      const ended = new Promise<never>((_resolve, reject) => (fail = reject));
      ended.catch(() => {});
      onStop = fail;
      if (stopped) fail(stopped);
      session.done.then((end) => fail(endedError(end, label)), fail);
      const handlers = ([['SIGINT', Exit.interrupted], ['SIGTERM', Exit.terminated]] as const).map(([signal, code]): [SignalName, () => void] => [
        signal,
        () => fail(new WaitStoppedError(`interrupted while waiting for ${label} to print a console line matching ${pattern.shown}; the server goes on without gsh`, code, resume, { server: serverId, until: 'ready' })),
      ]);
      for (const [signal, on] of handlers) rt.ctx.signals.on(signal, on);
      let over = false;
      /** Sleeps up to `ms` in short steps, woken at once by the bell once `done` holds; each step is a clock observation. */
      const pause = async (ms: number, done: () => boolean) => {
        const end = rt.now() + ms;
        while (!over && !done() && rt.now() < end) {
          await rt.sleep(Math.min(STEP_MS, end - rt.now()), bell.signal);
          if (!over) feed({ kind: 'clock' });
        }
        if (over) throw new GshError('the wait is over', Exit.error);
      };
      /** `gsh wait --ready` on a server already up: its line is in the history, or it never comes. */
      const alreadyUp = async () => {
        if (asked) await pause(HISTORY_WAIT_MS, () => history !== undefined || matched !== undefined);
        matched ??= history?.findLast((line) => pattern.match(line));
        if (matched !== undefined) return;
        const seen = history === undefined ? 'the console node did not send its history (send history)' : `no line matching ${pattern.shown} is in the last ${history.length} lines of its console history`;
        throw new GshError(
          `${label} is already running, and ${seen}, so gsh cannot tell whether it is ready (its line may be older than the history)`,
          Exit.cannotTell,
          `If it is up, wait for the state only: ${opts.stateOnly}; or give a line it prints now: --ready REGEX.`,
        );
      };
      // Each status read is an observation too: a server seen stopping or offline after its new boot ends the wait.
      const read = async () => {
        const s = await readServerStatus(client, serverId);
        status = s;
        if (typeof s.state !== 'string') return s; // the loop says the status cannot tell
        const wentBack = typeof s.uptime === 'number' && uptime !== undefined && s.uptime < uptime;
        if (typeof s.uptime === 'number') uptime = s.uptime;
        // A restart's `running` proves the new run once it left running, stayed unseen long enough, or its uptime went back.
        const fresh = s.state === 'running' && (wentBack || (target.mustLeave !== undefined && reached(s)));
        feed({ kind: 'state', source: 'poll', seen: fresh ? 'running-new' : seenOf(s.state) });
        if (stopped) throw stopped;
        if (first) {
          first = false;
          // Lines in the history count only for a server already up: otherwise they may be an older boot's.
          if (s.state === 'running') await alreadyUp();
        }
        return s;
      };
      const poll = async (): Promise<ServerStatus> => {
        const progress = await progressFor(rt, `server ${label}`);
        try {
          for (let polls = 0, firstRead = true; ; firstRead = false) {
            const s = await read();
            if (firstRead && typeof s.state !== 'string') throw cannotTell(`server ${label}`, s, statusReadable(serverId));
            progress.update(`server ${label}: ${describeServerStatus(s)}`);
            if (matched !== undefined) return s;
            feed({ kind: 'clock' });
            if (machine?.end === 'timed out') throw timedOut();
            await pause(Math.min(pollDelay(polls++), Math.max(0, deadline - rt.now())), () => matched !== undefined);
          }
        } finally {
          progress.stop();
        }
      };
      const timedOut = () => {
        const check = 're' in spec ? 'check the pattern given to --ready' : `check the settings' done_message (gsh settings get -s ${serverId})`;
        const err = new GshError(
          `${label} printed no console line matching ${pattern.shown} within ${rt.waitLimitMs / 1000} s (last status: ${status ? describeServerStatus(status) : 'none'})${tail(last)}`,
          Exit.timedOut,
          `Raise --timeout, or ${check}. Resume with:\n  ${resume}`,
        );
        err.resume = resume;
        return err;
      };
      try {
        const final = await Promise.race([poll(), ended]);
        // A line already in the history (gsh wait on a server up): 0 s into the wait.
        const seconds = Math.max(0, ((matchedAt ?? waitedFrom) - waitedFrom) / 1000);
        return { final, line: matched as string, seconds: Math.round(seconds * 100) / 100 };
      } finally {
        over = true;
        ring();
        for (const [signal, on] of handlers) rt.ctx.signals.off(signal, on);
      }
    },
  };
}

function endedError(end: 'detached' | 'deleted', label: string): GshError {
  return end === 'deleted' ? new GshError(`server ${label} was deleted`, Exit.notFound) : new GshError('the console session ended', Exit.error);
}

function tail(lines: readonly string[]): string {
  return lines.length ? `; its last console lines:\n  ${lines.join('\n  ')}` : '';
}

/**
 * The pattern of a spec: the regular expression typed, or the settings' done message matched as
 * plain text. Settings without one leave nothing to wait for: exit 12 at once, before anything is
 * sent, naming where gsh looked and how to wait otherwise (`stateOnly`). Also checked before an
 * announcement (leaf/announce-checks.ts).
 */
export async function readyPattern(client: ApiClient, spec: ReadySpec, label: string, stateOnly: StateOnly): Promise<ReadyPattern> {
  if ('re' in spec) return { match: (line) => spec.re.test(line), shown: `/${spec.re.source}/`, regex: spec.re.source };
  const settings = (await client.request<{ data?: { done_message?: unknown } }>(spec.doneMessage)).body?.data;
  const done = settings?.done_message;
  if (typeof done !== 'string' || done === '') {
    throw new GshError(
      `cannot tell when ${label} is ready: no --ready REGEX was given, and its settings (GET ${spec.doneMessage.path}) hold no done_message, the startup-detection message to wait for`,
      Exit.cannotTell,
      `Give the line to wait for: --ready REGEX (for example --ready 'Done \\('); or wait for the state only: ${stateOnly}.`,
    );
  }
  return { match: (line) => line.includes(done), shown: `"${done}" (the settings' done_message)`, regex: done.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&') };
}

