import consoleFamily from '../operations/console.js';
import type { Leaf } from '../operations/leaves.js';
import type { SignalName } from '../core/run/context.js';
import { parseDuration } from '../core/flags/duration.js';
import { Exit, GshError, InterruptedError, UsageError } from '../core/errors.js';
import { StdinText } from '../core/flags/fields.js';
import { type RequestSpec, withIdempotencyKey } from '../core/wire/http.js';
import { OutcomeTracker, trackOutcomes } from '../core/outcome.js';
import { type Plan, step } from '../core/plan.js';
import type { RateLimitState } from '../core/request-spec.js';
import type { Runtime } from '../core/run/runtime.js';
import { type Checks, checkSteps, planChecks, runChecks } from './announce-checks.js';
import type { StageContext } from './feature.js';

// An announced power action (issue 31, item 1): `--announce 'Restart in {left}' --countdown
// 5m,1m,10s` sends the console command `say <message>` to every target at each point of the
// countdown, then lets the power request go. The command goes through the registry's `console
// send` operation (02-endpoints-part-a.md "Console": POST /servers/{server_id}/commands), planned
// like any request, so a dry run lists every one of them. All targets share one timeline: each
// point is sent to every server (--parallel at a time, the client pacing them to the rate limit)
// before the clock moves on. Ctrl-C or SIGTERM before the end sends nothing more but the
// cancellation message (--announce-cancel) and exits 130 (143): nothing is restarted.
// Before the first `say`, the checks of announce-checks.ts (issue 36, item 2) make sure the action
// can run and the times can be kept; a server whose action still fails after the countdown is
// told the cancellation message. The announcements are not the command's change: they are kept
// out of its outcome (core/outcome.ts), which is the action's alone.

/** One point of the countdown: the time left as typed (`5m`), in ms. */
export interface Point {
  left: string;
  ms: number;
}

export interface Announcement {
  points: Point[];
  /** Per point (same order), per target: the planned `say` request. */
  sends: RequestSpec[][];
  /** Per target: the planned `say` of --announce-cancel. */
  cancel?: RequestSpec[];
  targets: readonly { id: string; label: string }[];
  parallel: number;
  /** The action that follows (`restart`). */
  verb: string;
  /** What is checked before the first `say`. */
  checks?: Checks;
}

export interface AnnounceFlags {
  announce?: string;
  countdown?: string;
  announceCancel?: string;
  /** --ready and --wait, for the checks (what comes with the action at T-0). */
  ready?: unknown;
  wait?: unknown;
}

/** The longest countdown gsh accepts: a process sleeping longer belongs in a scheduler. */
const MAX_COUNTDOWN_MS = 24 * 3_600_000;
const MAX_POINTS = 50;
/** Sleeps in steps no longer than this, so an interrupted countdown leaves no long timer behind. */
const SLEEP_STEP_MS = 1000;

/** `5m,1m,10s` → points, longest first; each a duration, all different. */
export function parseCountdown(text: string): Point[] {
  const parts = text.split(',').map((p) => p.trim());
  if (parts.some((p) => p === '')) throw new UsageError(`--countdown takes durations separated by commas, such as 5m,1m,10s (got "${text}")`);
  if (parts.length > MAX_POINTS) throw new UsageError(`--countdown takes at most ${MAX_POINTS} points`);
  const points = parts.map((left) => ({ left, ms: parseDuration(left, '--countdown') }));
  if (points.some((p) => p.ms <= 0)) throw new UsageError('--countdown points must be longer than 0 (the action itself comes after the last one)');
  points.sort((a, b) => b.ms - a.ms);
  for (let i = 1; i < points.length; i++) {
    if (points[i]!.ms === points[i - 1]!.ms) throw new UsageError(`--countdown names the same time twice (${points[i - 1]!.left} and ${points[i]!.left})`);
  }
  if (points[0]!.ms > MAX_COUNTDOWN_MS) throw new UsageError('--countdown may last at most 24h');
  return points;
}

/** The message of one point: `{left}` becomes the time left as typed. */
export function message(template: string, left: string): string {
  return template.replaceAll('{left}', left);
}

/** `say <message>`, the console command every announcement sends. */
const say = (text: string) => `say ${text}`;

function consoleSendLeaf(): Leaf {
  const op = consoleFamily.operations.find((o) => o.method === 'POST' && o.path === '/servers/{server_id}/commands');
  if (!op) throw new Error('registry: no POST /servers/{server_id}/commands');
  return { op, words: op.command.split(' ') };
}

/**
 * Checks the flags and plans every `say` request (none is sent). Undefined without --announce;
 * --countdown and --announce-cancel need it, and it needs --countdown.
 */
export async function planAnnouncement(
  rt: Runtime,
  flags: AnnounceFlags,
  targets: readonly { id: string; label: string }[],
  parallel: number,
  verb: string,
  planLeaf: StageContext['planLeaf'],
  /** The verb takes --ready (its checks include the done message). */
  readyVerb = false,
): Promise<Announcement | undefined> {
  if (flags.announce === undefined) {
    if (flags.countdown !== undefined || flags.announceCancel !== undefined) throw new UsageError('--countdown and --announce-cancel go with --announce');
    return undefined;
  }
  if (flags.countdown === undefined) throw new UsageError('--announce needs --countdown (e.g. --countdown 5m,1m,10s)');
  if (flags.announce.trim() === '') throw new UsageError('--announce needs a message');
  const points = parseCountdown(flags.countdown);
  const leaf = consoleSendLeaf();
  // Each message is checked by the registry field's own check (one line) while planning.
  const plan = async (text: string, id: string) => {
    try {
      const { spec } = await planLeaf(leaf, { command: say(text) }, { id, stdin: new StdinText(undefined) });
      // --idempotency-key names the power request: each announcement has a key of its own.
      return withIdempotencyKey({ ...spec, idempotencyKey: undefined });
    } catch (err) {
      throw err instanceof UsageError ? new UsageError(`the announcement ${JSON.stringify(text)}: ${err.message.replace(/^--command /, '')}`) : err;
    }
  };
  const sends: RequestSpec[][] = [];
  for (const p of points) sends.push(await Promise.all(targets.map((t) => plan(message(flags.announce as string, p.left), t.id))));
  // Sent after Ctrl-C by design: the requests the interrupt cancels are the countdown's, not this.
  const cancel = flags.announceCancel === undefined ? undefined : await Promise.all(targets.map(async (t) => ({ ...(await plan(flags.announceCancel as string, t.id)), afterInterrupt: true })));
  const a: Announcement = { points, sends, targets, parallel, verb, ...(cancel ? { cancel } : {}) };
  // The listing that found the targets (a fleet's) holds their records: the checks read no other.
  const { listedServers } = await import('../core/fleet/targets.js');
  return { ...a, checks: planChecks(a, flags, readyVerb, listedServers(await rt.client())) };
}

/**
 * The plan with the checks' reads and the announcements first, and the checks and the whole
 * timeline among its steps. `known`: the key's budget as the client last saw it, if it did.
 */
export function withAnnouncement(plan: Plan, a: Announcement | undefined, known?: RateLimitState): Plan {
  if (!a) return plan;
  const { verb } = a;
  const total = a.points[0]!.ms;
  const on = a.targets.length === 1 ? a.targets[0]!.label : `each of ${a.targets.length} servers`;
  const timeline = a.points.map((p, i) => {
    // A point `left` before T-0 comes `total - left` after the start (issue 37: it printed the previous point's `left`).
    const after = i === 0 ? 'at once' : `${formatMs(total - p.ms)} after the start, ${formatMs(a.points[i - 1]!.ms - p.ms)} after the previous one`;
    const sent = a.sends[i]![0]!.body as { command?: string } | undefined;
    return step('wait', `T-${p.left} (${after}): send ${JSON.stringify(sent?.command ?? '')} to ${on}`);
  });
  const last = a.points[a.points.length - 1]!;
  const cancel = a.cancel ? JSON.stringify((a.cancel[0]!.body as { command?: string }).command ?? '') : undefined;
  return {
    requests: [...(a.checks?.reads ?? []), ...a.sends.flat(), ...plan.requests],
    then: [
      ...(a.checks ? checkSteps(a, a.checks, known) : []),
      ...timeline,
      step('wait', `T-0 (${formatMs(total)} after the start, ${last.left} after the last announcement): send the ${verb} request${a.targets.length === 1 ? '' : 's'}`),
      step('local', cancel ? `a server whose ${verb} is refused after the countdown is sent ${cancel}` : `a server whose ${verb} is refused after the countdown is told nothing more (no --announce-cancel)`),
      step('local', `Ctrl-C before T-0 sends nothing more${cancel ? ` but ${cancel}` : ''}: no ${verb} is sent, exit 130`),
      ...plan.then,
    ],
  };
}

function formatMs(ms: number): string {
  const parts: string[] = [];
  let rest = ms;
  for (const [unit, size] of [['h', 3_600_000], ['m', 60_000], ['s', 1000]] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  if (rest > 0 || parts.length === 0) parts.push(`${rest}ms`);
  return parts.join('');
}

/**
 * Runs the countdown: each point's `say` to every target, then a wait to the next point and to
 * T-0. Gives undefined when T-0 is reached (the caller then acts), or the exit code of an
 * interruption (130, 143) after the cancellation was announced.
 */
export async function runAnnouncement(rt: Runtime, a: Announcement): Promise<number | undefined> {
  if (a.checks) await runChecks(rt, a, a.checks, await rt.client());
  // The says are not the command's change: a failure later reports the action's outcome alone.
  return trackOutcomes(new OutcomeTracker(), () => countdown(rt, a));
}

async function countdown(rt: Runtime, a: Announcement): Promise<number | undefined> {
  let stopped: number | undefined;
  const handlers: [SignalName, () => void][] = [
    ['SIGINT', () => (stopped ??= Exit.interrupted)],
    ['SIGTERM', () => (stopped ??= Exit.terminated)],
  ];
  for (const [signal, on] of handlers) rt.ctx.signals.on(signal, on);
  try {
    const start = rt.now();
    const end = start + a.points[0]!.ms;
    for (const [i, p] of a.points.entries()) {
      await sleepUntil(rt, end - p.ms, () => stopped !== undefined);
      if (stopped !== undefined) break;
      await sendAll(rt, a, a.sends[i]!, `T-${p.left}`);
    }
    await sleepUntil(rt, end, () => stopped !== undefined);
    if (stopped === undefined) return undefined;
    rt.note(`Interrupted during the countdown: no ${a.verb} was sent.`);
    if (a.cancel) await sendAll(rt, a, a.cancel, 'cancellation');
    return stopped;
  } finally {
    for (const [signal, on] of handlers) rt.ctx.signals.off(signal, on);
  }
}

async function sleepUntil(rt: Runtime, at: number, stop: () => boolean): Promise<void> {
  for (let now = rt.now(); now < at && !stop(); now = rt.now()) {
    try {
      await rt.sleep(Math.min(SLEEP_STEP_MS, at - now));
    } catch (err) {
      // The run's Ctrl-C / SIGTERM ends the pause at once; the countdown's own handlers saw it.
      if (err instanceof InterruptedError) return;
      throw err;
    }
  }
}

/**
 * After the countdown, the action failed on `targetId`: unless it may have acted (an outcome of
 * applied or unknown), its players are told the cancellation message, as after Ctrl-C.
 */
export async function cancelAfterFailure(rt: Runtime, a: Announcement, targetId: string, err: unknown): Promise<void> {
  const outcome = err instanceof GshError ? err.outcome : undefined;
  const i = a.targets.findIndex((t) => t.id === targetId);
  if (outcome === 'applied' || outcome === 'unknown' || i < 0) return;
  const target = a.targets[i]!;
  if (!a.cancel) {
    rt.warn(`${target.label}: the ${a.verb} failed after the players were told of it; no --announce-cancel message to tell them`);
    return;
  }
  await trackOutcomes(new OutcomeTracker(), () => sendAll(rt, a, [a.cancel![i]!], `${a.verb} failed, cancellation`, [target]));
}

/**
 * One point's requests, --parallel at a time. A server that refuses the command (offline, a 409)
 * is warned about and does not stop the others or the countdown: the action still goes to it.
 */
async function sendAll(rt: Runtime, a: Announcement, specs: readonly RequestSpec[], what: string, targets = a.targets): Promise<void> {
  const client = await rt.client();
  let next = 0;
  let sent = 0;
  const worker = async () => {
    while (next < specs.length) {
      const i = next++;
      try {
        await client.request(specs[i]!);
        sent++;
      } catch (err) {
        rt.warn(`${what}: could not announce on ${targets[i]!.label}: ${(err as Error).message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(a.parallel, specs.length) }, worker));
  const command = (specs[0]?.body as { command?: string } | undefined)?.command ?? '';
  rt.note(`${what}: sent ${JSON.stringify(command)} to ${sent} of ${specs.length} server${specs.length === 1 ? '' : 's'}`);
}
