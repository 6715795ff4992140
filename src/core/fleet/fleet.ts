import { ApiError, Exit, GshError, InterruptedError, ownError } from '../errors.js';
import type { SignalName } from '../run/context.js';
import { OutcomeTracker, settleOutcome, trackOutcomes } from '../outcome.js';
import { type ErrorObject, errorObject, serversArg } from '../terminal/report.js';
import type { Runtime } from '../run/runtime.js';
import type { Target } from './targets.js';
import { shellLine } from '../shell-words.js';
import { door, fitWidth, term, visible } from '../terminal/terminal-text.js';
import { allowedFailures } from './failure-budget.js';
import { type Rollout, type RolloutFlags, rolloutOf } from './rollout.js';
import { checkJournalFile, doneInJournal, journalCommand, JournalWriter, type ResultLine } from './journal.js';
import { shardOf } from './shards.js';
import { waveLengths } from './waves.js';

// Running one command on many servers (ARCHITECTURE.md "Many servers at once"): targets in parallel
// (--parallel, default 4), one result per target, exit 0 when all succeeded and 11 when some
// failed. Workers share the client, so they share its rate-limit budget (http.ts paces them).

export const DEFAULT_PARALLEL = 4;
export const MAX_PARALLEL = 32;

export interface TargetResult {
  /** null for a reference an interrupt kept from being resolved (see `reference`). */
  server_id: string | null;
  /** The reference as typed, when Ctrl-C came before it was resolved to a server. */
  reference?: string;
  server_name: string | null;
  ok: boolean;
  exit_code: number;
  data?: unknown;
  /** The error object of a single command's --json error (report.ts), plus `replay` where one applies. */
  error?: ErrorObject;
  /** Ctrl-C / SIGTERM stopped this target while it ran (its error says what its change did). */
  interrupted?: true;
  /** Ctrl-C / SIGTERM came before this target started: nothing was sent for it. */
  not_started?: true;
  /** Where a person must act (exit 7), and what to do: a script's fleet ends that target at once. */
  action_url?: string;
  hint?: string;
  /** --ready: the console line that matched, and seconds from the start of the wait to it. */
  ready?: { line: string; seconds: number };
}

/** What a target's work gives when its entry carries more than `data` (`ready`). */
export class EntryFields {
  constructor(readonly data: unknown, readonly fields: Pick<TargetResult, 'ready'>) {}
}

export interface FleetOptions {
  parallel: number;
  /** Waves, the failure budget, the shard, the journal (rollout.ts); none: one wave, no budget. */
  rollout?: Rollout;
  /** Each target sends a change (an interrupted or unstarted one reports `not_applied`, not nothing). */
  mutates?: boolean;
  /** The command that replays one target's change with its key. */
  replay?: (serverId: string, key: string) => string;
  /**
   * The command that runs the whole command on servers it did not start, or whose change was
   * not sent (issue 43 item 3): with the replays and the resumes, running every line printed
   * finishes the job, and no change acts twice.
   */
  rest?: (serverIds: readonly string[]) => string;
  /**
   * The results go to this instead of the output and stderr (`gsh top`'s actions: the screen is
   * taken); the exit code is the same.
   */
  silent?: (results: readonly TargetResult[]) => void;
  /**
   * The results printed the command's own way instead of a row per target (config apply: a row per
   * change); the notes on stderr (the failure budget's rest line, the interrupt's) are the fleet's.
   */
  show?: (results: readonly TargetResult[]) => Promise<void>;
  /**
   * A server the interrupt caught mid-way is finished by running the command there again (an
   * upload replaces what it sent; a wait of its own reads again), so `rest` names it too.
   */
  runsAgain?: boolean;
}

/** How long running targets get to wind down after Ctrl-C (their requests are cancelled at once). */
const WIND_DOWN_MS = 1000;

/**
 * --parallel and the rollout flags (rollout.ts), checked while planning. `idempotencyKey`
 * (--idempotency-key) is refused for commands that send a mutation per server: one key cannot
 * name several requests.
 */
export function fleetOptions(raw: RolloutFlags & { parallel?: string }, idempotencyKey?: string): FleetOptions {
  if (idempotencyKey !== undefined) {
    throw new GshError('--idempotency-key names one request; a command on several servers sends one per server', Exit.usage, 'Leave it out: each server gets its own key, kept across retries.');
  }
  return { parallel: parallelOption(raw.parallel), rollout: rolloutOf(raw) };
}

/**
 * --parallel, checked whatever the number of targets: one server today is a glob tomorrow, and a
 * value that a fleet refuses is not accepted silently because only one server was named.
 */
export function parallelOption(value: string | undefined): number {
  if (value === undefined) return DEFAULT_PARALLEL;
  const parallel = Number(value);
  if (!/^\d+$/.test(value) || parallel < 1 || parallel > MAX_PARALLEL) {
    throw new GshError(`--parallel takes a whole number from 1 to ${MAX_PARALLEL} (got "${value}")`, Exit.usage);
  }
  return parallel;
}

const label = (t: Target) => (t.name ? `${t.name} (${t.id})` : t.id);

/**
 * Runs `work` for every target and prints one result per target: a table when asked for one,
 * else -o json (an array), -o jsonl (a line as each target finishes) or --jq over the array.
 * Ctrl-C (or SIGTERM) starts nothing new, prints what finished and what was still running, and
 * exits 130 (143). `work` calls release(resume) once only waiting is left (--wait): its worker
 * moves on, and `resume` (the `gsh wait` that picks the wait up) is what an interrupt names.
 */
export async function runFleet(rt: Runtime, targets: readonly Target[], opts: FleetOptions, work: (t: Target, release: (resume?: string) => void) => Promise<unknown>): Promise<number> {
  const results: TargetResult[] = [];
  const running = new Set<Target>();
  let next = 0;
  let stop: 'failure' | 'interrupt' | undefined;
  const streamed = rt.format === 'jsonl' && rt.globals.jq === undefined && !opts.silent && !opts.show;
  const progress = rt.io.stderrTTY && !streamed && !opts.silent;
  const tick = () => {
    if (!progress) return;
    const failed = results.filter((r) => !r.ok).length;
    // One line redrawn with \r: the names (the service's) are cut to what is left of the width, so it never wraps.
    const counts = term`${results.length}/${targets.length} done${failed ? term`, ${failed} failed` : term``}`;
    const names = running.size ? fitWidth(`, running: ${[...running].map((t) => t.name ?? t.id).join(', ')}`, Math.max(0, (rt.io.rawStderr.columns ?? rt.io.columns) - counts.length - 1)) : term``;
    door(rt.io.rawStderr).write(term`\r\x1b[2K${counts}${names}`);
  };

  let exitOnStop: number = Exit.interrupted;
  const handlers: [SignalName, () => void][] = [];
  const interrupted = new Promise<void>((resolve) => {
    for (const [signal, code] of [['SIGINT', Exit.interrupted], ['SIGTERM', Exit.terminated]] as const) {
      const on = () => {
        stop = 'interrupt';
        exitOnStop = code;
        pauseEnded.abort();
        rt.cancelAll(signal);
        resolve();
      };
      handlers.push([signal, on]);
      rt.ctx.signals.on(signal, on);
    }
  });
  const journalFile = opts.rollout?.journal ?? opts.rollout?.resume;
  const journal = journalFile === undefined ? undefined : new JournalWriter(journalFile, journalCommand(rt.argv), () => rt.ctx.clock.now(), (line) => rt.warn(line));
  journal?.start(targets);
  const emit = (result: TargetResult) => {
    results.push(result);
    // A target not started has nothing to journal: a resume runs it.
    if (!result.not_started) journal?.record(result);
    if (streamed) rt.io.stdout.write(`${JSON.stringify(result)}\n`);
  };
  const trackers = new Map<Target, OutcomeTracker>();
  /** Targets whose request was answered and which only wait now, with the command that resumes the wait. */
  const waiting = new Map<Target, string | undefined>();
  const rollout = opts.rollout;
  // The failure budget (failure-budget.ts): once more have failed than it allows, none starts.
  const allowed = rollout?.maxFail ? allowedFailures(rollout.maxFail, targets.length) : Infinity;
  let failures = 0;
  // Waves (waves.ts): the workers take targets up to the end of the current wave only.
  const waves = waveLengths(rollout?.batch, targets.length);
  let waveEnd = 0;
  // A target whose work calls release() (its request sent, only waiting left) frees its worker
  // for the next target; it stays running until its work ends.
  const finishing: Promise<void>[] = [];
  const worker = async () => {
    while (next < waveEnd && stop === undefined) {
      const target = targets[next++] as Target;
      running.add(target);
      tick();
      const tracker = new OutcomeTracker();
      trackers.set(target, tracker);
      let release = (_resume?: string) => {};
      const released = new Promise<void>((resolve) => (release = (resume) => {
        waiting.set(target, resume);
        resolve();
      }));
      const finished = settle(target, tracker, () => trackOutcomes(tracker, () => work(target, release)), opts).then((result) => {
        // A target still running after the wind-down was already listed as interrupted.
        if (!running.delete(target)) return;
        if (result.exit_code === Exit.interrupted || result.exit_code === Exit.terminated) result.interrupted = true;
        emit(result);
        if (!result.ok && !result.interrupted && ++failures > allowed) stop ??= 'failure';
        tick();
      });
      finishing.push(finished);
      await Promise.race([finished, released]);
    }
  };
  const pauseEnded = new AbortController();
  const workers = (async () => {
    for (const [i, length] of waves.entries()) {
      if (i > 0 && rollout?.pauseMs) {
        rt.note(`wave ${i} of ${waves.length} finished; wave ${i + 1} starts in ${rollout.pauseMs / 1000} s`);
        await rt.ctx.clock.sleep(rollout.pauseMs, pauseEnded.signal);
      }
      if (stop !== undefined) break;
      waveEnd += length;
      await Promise.all(Array.from({ length: Math.min(opts.parallel, length) }, worker));
      // Every target of the wave has finished, its wait included, before the next one starts.
      await Promise.all(finishing);
    }
    await Promise.all(finishing);
  })();
  try {
    await Promise.race([workers, interrupted]);
    // The interrupt cancelled every request under way (runtime.ts): the running targets end at
    // once, each saying what its change did. One that does not is listed from what it sent.
    if (stop === 'interrupt') {
      // The wind-down's pause ends with the workers, so no timer of it outlives the run.
      const ended = new AbortController();
      await Promise.race([workers.finally(() => ended.abort()), rt.ctx.clock.sleep(WIND_DOWN_MS, ended.signal)]);
    }
  } finally {
    for (const [signal, on] of handlers) rt.ctx.signals.off(signal, on);
    if (progress) door(rt.io.rawStderr).write(term`\r\x1b[2K`);
  }
  const notStarted = targets.slice(next);
  if (stop === 'failure') {
    for (const target of notStarted) emit(unstarted(target, opts, Exit.someFailed, 'not started: the failure budget was spent'));
    withRerun(results, opts);
  }
  if (stop === 'interrupt') {
    for (const target of [...running]) {
      running.delete(target);
      emit(stillRunning(target, trackers.get(target), opts, exitOnStop, waiting.has(target) ? { resume: waiting.get(target) } : undefined));
    }
    for (const target of notStarted) emit(unstarted(target, opts, exitOnStop));
    withRerun(results, opts);
  }

  if (opts.silent) {
    opts.silent(results);
    return stop === 'interrupt' ? exitOnStop : results.some((r) => !r.ok) ? Exit.someFailed : Exit.ok;
  }
  if (!streamed) await (opts.show ?? ((r) => show(rt, r)))(results);
  if (stop === 'failure' && notStarted.length) rt.note(`${failures} failed, more than ${budgetWords(rollout)} allows: not started on ${notStarted.map(label).join(', ')}${opts.rest ? `; run them with:\n  ${opts.rest(notStarted.map((t) => t.id))}` : ''}`);
  const failed = results.filter((r) => !r.ok && !r.interrupted && !r.not_started);
  if (stop === 'interrupt') {
    noteInterrupted(rt, results, targets.length, notStarted, opts);
    return exitOnStop;
  }
  if (failed.length) {
    rt.note(`${failed.length} of ${targets.length} failed: ${failed.map((r) => r.server_name ?? r.server_id).join(', ')}`);
    noteOutcomes(rt, failed);
    // A wait of its own (gsh wait) that stopped: the servers left, to pick up again.
    const left = resumeLines(failed.filter((r) => r.error?.step === undefined));
    if (left.length) rt.note(`Resume the waits left with:\n${left.map((l) => `  ${l}`).join('\n')}`);
    return Exit.someFailed;
  }
  return Exit.ok;
}

/**
 * A fleet's targets resolved (`resolve`), narrowed to the rollout's shard, and each planned
 * (`plan`), nothing sent yet. Ctrl-C / SIGTERM there ends the run with every target listed as not
 * started (by the reference typed when not yet resolved): then the exit code comes back instead
 * of the targets.
 */
export async function resolveFleet(rt: Runtime, refs: readonly string[], opts: Pick<FleetOptions, 'mutates' | 'rest' | 'runsAgain' | 'rollout'>, resolve: () => Promise<Target[]>, plan: (targets: Target[]) => Promise<void> = async () => {}): Promise<Target[] | number> {
  let targets: Target[] | undefined;
  const select = await rolloutSelection(rt, opts);
  try {
    targets = select(await resolve());
    await plan(targets);
    return targets;
  } catch (caught) {
    const err = ownError(caught);
    if (err instanceof InterruptedError) return interruptedBeforeStart(rt, err, targets, refs, opts);
    throw err;
  }
}

/**
 * What the rollout does to a selection, made ready before any request: the journals checked and
 * the one resumed read, the rate share set on the client (a shard's listing is its traffic too);
 * then the returned function narrows the resolved targets to the shard and to those the journal
 * does not show done. Commands that resolve their own way (config apply: the servers the files
 * manage) use it as resolveFleet() does.
 */
export async function rolloutSelection(rt: Runtime, opts: Pick<FleetOptions, 'rollout' | 'runsAgain'>): Promise<<T extends Target>(targets: T[]) => T[]> {
  const rollout = opts.rollout;
  if (rollout?.journal !== undefined) checkJournalFile(rollout.journal, '--journal');
  let done = rollout?.resume === undefined ? undefined : (checkJournalFile(rollout.resume, '--resume'), doneInJournal(rollout.resume, journalCommand(rt.argv)));
  // A command that finishes a server by running again there (fleet-command.ts, config apply): only
  // a success is done; a server that failed or was stopped after sending runs again.
  if (done && opts.runsAgain) done = new Map([...done].filter(([, r]) => r.ok));
  if (rollout && rollout.rateShare < 1) (await rt.client()).rateShare = rollout.rateShare;
  return <T extends Target>(resolved: T[]): T[] => {
    let targets = rollout?.shard ? shardOf(resolved, rollout.shard) : resolved;
    if (done) targets = notDone(rt, targets, done, rollout?.resume as string);
    return targets;
  };
}

/** The targets the resumed journal does not show done; those it does are named, with their own way on. */
function notDone<T extends Target>(rt: Runtime, targets: T[], done: ReadonlyMap<string, ResultLine>, file: string): T[] {
  const skipped = targets.filter((t) => done.has(t.id));
  if (skipped.length) {
    rt.note(`--resume ${file}: ${skipped.length} of ${targets.length} done already (${skipped.map(label).join(', ')}); running the other ${targets.length - skipped.length}`);
    // Sent before and may have acted, but not finished: the journal's own line finishes it, not the command again.
    const open = skipped.map((t) => done.get(t.id) as ResultLine).filter((r) => !r.ok);
    const lines = [...resumeLines(open.map((r) => ({ error: { resume: r.resume } }) as unknown as TargetResult)), ...open.flatMap((r) => (r.resume === undefined && r.replay !== undefined ? [r.replay] : []))];
    if (open.length) rt.note(`Sent before, not finished (${open.map((r) => r.server_name ?? r.server_id).join(', ')})${lines.length ? `; finish with:\n${lines.map((l) => `  ${l}`).join('\n')}` : ''}`);
  }
  return targets.filter((t) => !done.has(t.id));
}

async function interruptedBeforeStart(rt: Runtime, err: InterruptedError, known: readonly Target[] | undefined, refs: readonly string[], opts: Pick<FleetOptions, 'mutates' | 'rest' | 'runsAgain'>): Promise<number> {
  return listNotStarted(rt, known, refs, opts, err.exitCode, known ? 'before any server was started' : 'while resolving the servers');
}

/**
 * Ctrl-C / SIGTERM before any target started (while resolving, planning, or during an announced
 * action's checks and countdown): every target listed as not started, in the output format asked
 * for, and the one command that runs them all (the same command line, when the servers were not
 * yet resolved). `when` ends "Interrupted …".
 */
export async function listNotStarted(rt: Runtime, known: readonly Target[] | undefined, refs: readonly string[], opts: Pick<FleetOptions, 'mutates' | 'rest' | 'runsAgain'>, code: number, when: string, sent = 'nothing was sent'): Promise<number> {
  const results = known
    ? known.map((t) => unstarted(t, opts, code))
    : refs.filter((ref) => ref !== '-').map((ref): TargetResult => ({ ...unstarted({ id: ref }, opts, code), server_id: null, reference: ref }));
  const again = known ? opts.rest?.(known.map((t) => t.id)) : rt.argv.length ? shellLine(['gsh', ...rt.argv]) : undefined;
  if (known) withRerun(results, opts);
  else if (again) for (const r of results) if (r.error) r.error.rerun = again;
  if (rt.format === 'jsonl' && rt.globals.jq === undefined) for (const r of results) rt.io.stdout.write(`${JSON.stringify(r)}\n`);
  else await show(rt, results);
  const named = known ? known.map(label) : refs.filter((ref) => ref !== '-');
  rt.note(`Interrupted ${when}: ${sent}.${named.length ? `\nNot started: ${named.join(', ')}` : ''}${again ? `\nRun them with:\n  ${again}` : ''}`);
  return code;
}

/**
 * Whether the rest command finishes a target: not started, or interrupted without its change
 * sent (or, for a read, without a wait to resume), or interrupted at all when the command
 * `runsAgain`.
 */
function unsent(r: TargetResult, opts: Pick<FleetOptions, 'runsAgain'>): boolean {
  if (r.ok || r.server_id === null) return false;
  if (r.not_started) return true;
  if (r.interrupted !== true) return false;
  const e = r.error;
  return opts.runsAgain === true || (e?.resume === undefined && e?.replay === undefined && e?.outcome !== 'unknown' && e?.outcome !== 'applied');
}

/** Each target the rest command finishes gets its own line (`error.rerun`). */
function withRerun(results: readonly TargetResult[], opts: Pick<FleetOptions, 'rest' | 'runsAgain'>): void {
  if (!opts.rest) return;
  for (const r of results) if (unsent(r, opts) && r.error) r.error.rerun = opts.rest([r.server_id as string]);
}

async function settle(target: Target, tracker: OutcomeTracker, work: () => Promise<unknown>, opts: FleetOptions): Promise<TargetResult> {
  const base = { server_id: target.id, server_name: target.name ?? null };
  try {
    const done = await work();
    const [data, fields] = done instanceof EntryFields ? [done.data, done.fields] : [done, {}];
    return { ...base, ok: true, exit_code: Exit.ok, ...fields, ...(data === undefined ? {} : { data }) };
  } catch (caught) {
    const err = ownError(caught);
    const exit = err instanceof GshError ? err.exitCode : Exit.error;
    if (err instanceof GshError) settleOutcome(err, tracker, opts.mutates === true);
    const error = errorObject(err);
    withReplay(error, target, opts);
    const person = err instanceof ApiError && err.actionUrl ? { action_url: err.actionUrl, ...(err.hint ? { hint: err.hint } : {}) } : {};
    return { ...base, ok: false, exit_code: exit, error, ...person };
  }
}

/** The replay command of a target whose change may have acted (not of one whose wait failed: that resumes). */
function withReplay(error: ErrorObject, target: Target, opts: FleetOptions): void {
  if (!opts.replay || error.idempotency_key === null || error.step !== undefined) return;
  if (error.outcome === 'unknown' || error.outcome === 'applied') error.replay = opts.replay(target.id, error.idempotency_key);
}

/**
 * A target that had not ended when the wind-down did: what it sent says what its change did; one
 * that was only waiting says so, with the `gsh wait` that resumes it.
 */
function stillRunning(target: Target, tracker: OutcomeTracker | undefined, opts: FleetOptions, exit: number, waited?: { resume: string | undefined }): TargetResult {
  const last = tracker?.last;
  const how = exit === Exit.terminated ? 'terminated (SIGTERM)' : 'interrupted';
  const error: ErrorObject = {
    message: waited ? `${how} while waiting; the work goes on without gsh` : `${how} while running`,
    code: null, status: null, request_id: null, exit_code: exit,
    outcome: last?.outcome ?? (opts.mutates ? 'not_applied' : null),
    idempotency_key: last?.idempotencyKey ?? null,
    ...(waited ? { step: 'wait' } : {}),
    ...(waited?.resume ? { resume: waited.resume } : {}),
  };
  withReplay(error, target, opts);
  return { server_id: target.id, server_name: target.name ?? null, ok: false, exit_code: exit, interrupted: true, error };
}

/** The failure budget as typed: --fail-fast, or --max-fail's value. */
function budgetWords(r: Rollout | undefined): string {
  const m = r?.maxFail;
  if (!m) return 'the budget';
  return 'count' in m ? (m.count === 0 ? '--fail-fast (--max-fail 0)' : `--max-fail ${m.count}`) : `--max-fail ${m.percent}%`;
}

function unstarted(target: Target, opts: Pick<FleetOptions, 'mutates'>, exit: number, message = 'not started: interrupted first'): TargetResult {
  const error: ErrorObject = {
    message, code: null, status: null, request_id: null, exit_code: exit,
    outcome: opts.mutates ? 'not_applied' : null, idempotency_key: null,
  };
  return { server_id: target.id, server_name: target.name ?? null, ok: false, exit_code: exit, not_started: true, error };
}

/**
 * After Ctrl-C: what finished, the `gsh wait` that resumes the waits the interrupt stopped (one
 * line per kind of wait, its servers comma-joined), changes that may have acted with their replay,
 * and the targets not started.
 */
function noteInterrupted(rt: Runtime, results: TargetResult[], total: number, notStarted: readonly Target[], opts: Pick<FleetOptions, 'rest' | 'runsAgain'>): void {
  const finished = results.filter((r) => !r.interrupted && !r.not_started).length;
  // What finished may have failed (issue 50 item 8): each failure named, with what to do about it.
  const failed = results.filter((r) => !r.ok && !r.interrupted && !r.not_started);
  rt.note(`Interrupted: ${finished} of ${total} finished${failed.length ? `, ${failed.length} of them failed` : ''}.`);
  if (failed.length) rt.note(`Failed before the interrupt:\n${failed.map(failureLine).join('\n')}`);
  const stopped = results.filter((r) => r.interrupted);
  const waits = stopped.filter((r) => r.error?.resume !== undefined);
  // A wait of its own (gsh wait) sent nothing: only a change that was applied says so.
  const applied = waits.filter((r) => r.error?.outcome === 'applied');
  const onlyWaited = waits.filter((r) => r.error?.outcome !== 'applied');
  if (applied.length) rt.note(`Applied, wait stopped; resume with:\n${resumeLines(applied).map((l) => `  ${l}`).join('\n')}`);
  if (onlyWaited.length) rt.note(`Wait stopped; resume with:\n${resumeLines(onlyWaited).map((l) => `  ${l}`).join('\n')}`);
  noteOutcomes(rt, stopped.filter((r) => r.error?.resume === undefined));
  if (notStarted.length) rt.note(`Not started: ${notStarted.map(label).join(', ')}`);
  const rest = results.filter((r) => unsent(r, opts));
  if (rest.length && opts.rest) {
    const interrupted = rest.filter((r) => !r.not_started);
    const caught = opts.runsAgain ? 'Not finished' : 'Not sent';
    rt.note(`${interrupted.length ? `${caught}: ${interrupted.map((r) => r.server_name ?? r.server_id).join(', ')}\n` : ''}Run the servers not started${interrupted.length ? ` or ${caught.toLowerCase()}` : ''} with:\n  ${opts.rest(rest.map((r) => r.server_id as string))}`);
  }
}

/** One failed target in a summary: its name, exit code and message, then its hint or the URL where a person must act. */
function failureLine(r: TargetResult): string {
  const hint = r.hint ?? (typeof r.error?.hint === 'string' ? r.error.hint : undefined);
  return `  ${r.server_name ?? r.server_id}: exit ${r.exit_code}${r.error?.code ? ` (${r.error.code})` : ''}: ${r.error?.message ?? ''}${r.action_url ? ` ${r.action_url}` : ''}${hint ? `\n    ${hint.split('\n').join('\n    ')}` : ''}`;
}

/**
 * The `gsh wait` lines that resume the waits of `results` (those left, no other server): lines
 * that differ only in the server (`gsh wait -s ID …`, same conditions) become one line for all
 * of their servers, in the order they came.
 */
function resumeLines(results: readonly TargetResult[]): string[] {
  const grouped = new Map<string, string[]>();
  for (const r of results) {
    const resume = r.error?.resume;
    if (typeof resume !== 'string') continue;
    const m = /^gsh wait -s ([\w.:@-]+)( .+)$/.exec(resume);
    if (m) grouped.set(`gsh wait -s \0${m[2]}`, [...(grouped.get(`gsh wait -s \0${m[2]}`) ?? []), m[1] as string]);
    else grouped.set(resume, []);
  }
  return [...grouped].map(([line, ids]) => line.replace('\0', serversArg(ids)));
}

/** Targets whose change may have acted: say so, with each one's replay command. */
function noteOutcomes(rt: Runtime, results: TargetResult[]): void {
  // A change of its own key: a target of several changes (config apply) names each with its key itself.
  const open = results.filter((r) => r.error?.step === undefined && r.error?.idempotency_key !== null && (r.error?.outcome === 'unknown' || r.error?.outcome === 'applied'));
  const lines = open.map((r) => `  ${r.server_name ?? r.server_id}: ${r.error?.outcome === 'applied' ? 'applied' : 'may have been applied'} (Idempotency-Key ${r.error?.idempotency_key})${typeof r.error?.replay === 'string' ? `; replay safely within 24 hours:\n    ${r.error.replay}` : ''}`);
  if (lines.length) rt.note(`Changes that may have acted (a replay with the key answers with the first outcome instead of acting twice):\n${lines.join('\n')}`);
  const waits = results.filter((r) => r.error?.step !== undefined && r.error.outcome === 'applied');
  const resumes = resumeLines(waits);
  if (waits.length) rt.note(`Applied, then the ${waits[0]?.error?.step} failed: ${waits.map((r) => r.server_name ?? r.server_id).join(', ')}${resumes.length ? `; resume with:\n${resumes.map((l) => `  ${l}`).join('\n')}` : ''}`);
  // A wait that would stop the same way again (a backup whose records show no state): each
  // server's own line instead (error.forward, core/errors.ts), one a line, each ending with the work done.
  const forward = waits.filter((r) => typeof r.error?.forward === 'string');
  if (forward.length) rt.note(`A wait would stop the same way again; run instead, one line per server:\n${forward.map((r) => `  ${String(r.error?.forward)}`).join('\n')}`);
}

async function show(rt: Runtime, results: readonly TargetResult[]): Promise<void> {
  if (rt.format !== 'table' || rt.globals.jq !== undefined) return rt.out.show(results);
  const rows = results.map((r) => ({
    server: r.server_id ?? r.reference ?? '',
    name: r.server_name ?? '',
    result: r.ok ? 'ok' : r.not_started ? 'not started' : r.interrupted ? `interrupted (${r.error?.outcome ?? 'exit ' + r.exit_code})` : `failed (exit ${r.exit_code}${r.error?.outcome && r.error.outcome !== 'not_applied' ? `, ${r.error.outcome}` : ''})`,
    detail: r.ok ? summary(r.data) : `${r.error?.step ? `${r.error.step}: ` : ''}${r.error?.message ?? ''}${r.action_url ? ` (${r.action_url})` : ''}`,
  }));
  await rt.out.show(rows, { columns: ['server', 'name', 'result', 'detail'] });
}

/** One line about what a target answered: its state where it has one. */
function summary(data: unknown): string {
  if (data === null || typeof data !== 'object') return data === undefined ? '' : String(data);
  const d = data as Record<string, unknown>;
  const state = d.state ?? d.power_state ?? d.status;
  if (typeof state === 'string') return state;
  // A hand-written command's own line about its work (core/fleet/fleet-command.ts: files put, files get).
  return typeof d.summary === 'string' ? d.summary : '';
}
