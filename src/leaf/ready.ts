import { ConsoleSession } from '../console/session.js';
import type { Frame } from '../console/protocol.js';
import { displayLine } from '../console/display.js';
import { consoleTarget, sessionSource } from '../console/target.js';
import { Exit, GshError, UsageError, WaitStoppedError } from '../core/errors.js';
import { type ReadyCondition, waitCommand } from '../core/follow.js';
import type { ApiClient, RequestSpec } from '../core/http.js';
import { step, type Step } from '../core/plan.js';
import type { Runtime } from '../core/runtime.js';
import type { SignalName } from '../core/context.js';

// Ready means ready (issue 31, item 2): `--ready` on power start/restart and `gsh wait --ready`
// end when the console prints the line that says the game accepts players, not when the status
// says `running`. The console socket (01-general-contract.md "Console socket") is opened before
// the power request, so no line of the new boot is missed; `gsh wait`, which comes later, replays
// the recent output (`send logs`) for the same reason. Without a pattern, the settings' done
// message is used (02-endpoints-part-a.md "Settings": `done_message`, "startup-detection
// message"), matched as plain text. A crash (`crash restart pending`) or the server stopping
// (`status` stopping/offline) once it has started ends the wait early: exit 13, with the last
// console lines.

/** How many of the last console lines an early end shows. */
const LAST_LINES = 10;
/** Sleeps in short steps, so a finished wait leaves no timer behind. */
const STEP_MS = 250;

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
export function readyPlan(spec: ReadySpec, rt: Runtime): { requests: RequestSpec[]; then: Step[]; before: Step } {
  const what = 're' in spec ? `a console line matching /${spec.re.source}/` : 'a console line containing the settings\' done_message';
  return {
    requests: 'doneMessage' in spec ? [spec.doneMessage] : [],
    before: step('stream', 'open the console socket (POST …/console/token) before the power request, so no line of the new boot is missed'),
    then: [step('wait', `once the server is running, wait for ${what}; exit 13 (with the last console lines) if it crashes or stops first, 10 after ${rt.waitLimitMs / 1000} s (--timeout)`)],
  };
}

export interface ReadyWatch {
  /** From now on, lines count and a stop or crash ends the wait (call it just before the request). */
  arm(): void;
  /**
   * Runs the state wait (`running`), ended early by a crash or a stop, then waits for the line.
   * Fails with 13 (crashed or stopped), 10 (--timeout), 130/143 (Ctrl-C, SIGTERM). The state
   * wait sleeps with `sleep`, which throws once the watch is over, so no poll outlives it.
   */
  until<T>(stateWait: (sleep: (ms: number) => Promise<void>) => Promise<T>): Promise<{ final: T; line: string }>;
  close(): void;
}

/**
 * Opens the console of `serverId` and watches it. `replay`: start from the recent output (for a
 * server that may have printed its line already). Reads the done message first when asked.
 */
export async function watchReady(
  rt: Runtime,
  client: ApiClient,
  serverId: string,
  label: string,
  spec: ReadySpec,
  opts: { replay: boolean },
): Promise<ReadyWatch> {
  const match = 're' in spec ? (line: string) => spec.re.test(line) : await doneMessageMatcher(client, spec.doneMessage, label);
  const last: string[] = [];
  // A replay is the recent output of the boot being waited for: its lines count from the start.
  let armed = opts.replay;
  let booted = false;
  let matched: string | undefined;
  let stopped: GshError | undefined;
  let onStop: ((err: GshError) => void) | undefined;
  const stop = (why: string) => {
    if (stopped || matched !== undefined) return;
    stopped = new GshError(`${label}: ${why} before it was ready${tail(last)}`, Exit.notReady);
    onStop?.(stopped);
  };
  const onFrame = (f: Frame) => {
    const arg = f.args?.[0];
    if (f.event === 'console output' && arg !== undefined) {
      const line = displayLine(arg, false);
      last.push(line);
      if (last.length > LAST_LINES) last.shift();
      if (armed && matched === undefined && match(line)) matched = line;
    } else if (armed && f.event === 'status') {
      // A `running` status alone proves nothing: the node may repeat the state it had before a restart.
      if (arg === 'starting') booted = true;
      else if (booted && (arg === 'stopping' || arg === 'offline')) stop(`the server is ${arg}`);
    } else if (armed && f.event === 'crash restart pending' && arg !== 'false') {
      stop('the server crashed (an automatic restart is pending)');
    }
  };
  const session = new ConsoleSession({
    fetchSession: sessionSource(await consoleTarget(client, serverId, label)),
    replay: opts.replay,
    onFrame,
    note: (m) => rt.note(m),
    warn: (m) => rt.warn(m),
  });
  await session.start();
  return {
    arm: () => void (armed = true),
    close: () => session.close(),
    until: async (stateWait) => {
      armed = true;
      // --timeout bounds the whole wait: the state's part and the console's.
      const deadline = rt.now() + rt.waitLimitMs;
      // A crash or stop, Ctrl-C or SIGTERM, or the session's end stops either part at once.
      let fail!: (err: unknown) => void;
      const ended = new Promise<never>((_resolve, reject) => (fail = reject));
      ended.catch(() => {});
      onStop = fail;
      if (stopped) fail(stopped);
      session.done.then((end) => fail(endedError(end, label)), fail);
      const handlers = ([['SIGINT', Exit.interrupted], ['SIGTERM', Exit.terminated]] as const).map(([signal, code]): [SignalName, () => void] => [
        signal,
        () => fail(new WaitStoppedError(`interrupted while waiting for ${label} to be ready; the server goes on without gsh`, code, waitCommand({ kind: 'server-state', serverId, state: 'running', ready: readyCondition(spec) }), { server: serverId, until: 'ready' })),
      ]);
      for (const [signal, on] of handlers) rt.ctx.signals.on(signal, on);
      let over = false;
      const sleep = async (ms: number) => {
        if (!over) await rt.sleep(ms);
        if (over) throw new GshError('the wait is over', Exit.error);
      };
      const line = async () => {
        while (matched === undefined && !over) {
          if (rt.now() >= deadline) throw new GshError(`${label} is running but printed no ready line within ${rt.waitLimitMs / 1000} s${tail(last)}`, Exit.timedOut, 'Raise --timeout, or check the pattern given to --ready.');
          await rt.sleep(Math.min(STEP_MS, deadline - rt.now()));
        }
        return matched as string;
      };
      try {
        const final = await Promise.race([stateWait(sleep), ended]);
        // The state wait saw `running`: from here a stop is a stop, whatever the socket said.
        booted = true;
        return { final, line: await Promise.race([line(), ended]) };
      } finally {
        over = true;
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

/** The done message, matched as plain text; a server without one cannot be waited on this way. */
async function doneMessageMatcher(client: ApiClient, spec: RequestSpec, label: string): Promise<(line: string) => boolean> {
  const settings = (await client.request<{ data?: { done_message?: unknown } }>(spec)).body?.data;
  const done = settings?.done_message;
  if (typeof done !== 'string' || done === '') {
    throw new GshError(`the settings of ${label} name no done_message to wait for`, Exit.error, 'Give the line to wait for: --ready REGEX.');
  }
  return (line) => line.includes(done);
}

/** What a resume line names for `spec` (core/follow.ts waitCommand): the pattern, or none for the done message. */
export function readyCondition(spec: ReadySpec): ReadyCondition {
  return 're' in spec ? { pattern: spec.re.source } : {};
}
