import { ApiError, Exit, GshError, OutcomeUnknownError } from './errors.js';
import type { SignalName } from './context.js';
import type { Runtime } from './runtime.js';
import type { Target } from './targets.js';
import { visible } from './terminal-text.js';

// Running one command on many servers (DESIGN.md "Many servers at once"): targets in parallel
// (--parallel, default 4), one result per target, exit 0 when all succeeded and 11 when some
// failed. Workers share the client, so they share its rate-limit budget (http.ts paces them).

export const DEFAULT_PARALLEL = 4;
export const MAX_PARALLEL = 32;

export interface TargetResult {
  server_id: string;
  server_name: string | null;
  ok: boolean;
  exit_code: number;
  data?: unknown;
  error?: string;
  /** Set when the outcome is unknown: replaying with this key is safe for 24 hours. */
  idempotency_key?: string;
  /** Where a person must act (exit 7), and what to do: a script's fleet ends that target at once. */
  action_url?: string;
  hint?: string;
}

export interface FleetOptions {
  parallel: number;
  failFast: boolean;
}

/**
 * --parallel and --fail-fast, checked while planning. `idempotencyKey` (--idempotency-key) is
 * refused for commands that send a mutation per server: one key cannot name several requests.
 */
export function fleetOptions(raw: { parallel?: string; failFast?: boolean }, idempotencyKey?: string): FleetOptions {
  if (idempotencyKey !== undefined) {
    throw new GshError('--idempotency-key names one request; a command on several servers sends one per server', Exit.usage, 'Leave it out: each server gets its own key, kept across retries.');
  }
  const parallel = raw.parallel === undefined ? DEFAULT_PARALLEL : Number(raw.parallel);
  if (!Number.isInteger(parallel) || parallel < 1 || parallel > MAX_PARALLEL || !/^\d+$/.test(String(raw.parallel ?? parallel))) {
    throw new GshError(`--parallel takes a whole number from 1 to ${MAX_PARALLEL} (got "${raw.parallel}")`, Exit.usage);
  }
  return { parallel, failFast: raw.failFast === true };
}

const label = (t: Target) => (t.name ? `${t.name} (${t.id})` : t.id);

/**
 * Runs `work` for every target and prints one result per target: a table when asked for one,
 * else -o json (an array), -o jsonl (a line as each target finishes) or --jq over the array.
 * Ctrl-C (or SIGTERM) starts nothing new, prints what finished and what was still running, and
 * exits 130 (143). `work` calls release() once only waiting is left (--wait): its worker moves on.
 */
export async function runFleet(rt: Runtime, targets: readonly Target[], opts: FleetOptions, work: (t: Target, release: () => void) => Promise<unknown>): Promise<number> {
  const results: TargetResult[] = [];
  const running = new Set<Target>();
  let next = 0;
  let stop: 'failure' | 'interrupt' | undefined;
  const streamed = rt.format === 'jsonl' && rt.globals.jq === undefined;
  const progress = rt.io.stderrTTY && !streamed;
  const tick = () => {
    if (!progress) return;
    const failed = results.filter((r) => !r.ok).length;
    rt.io.rawStderr.write(`\r\x1b[2K${results.length}/${targets.length} done${failed ? `, ${failed} failed` : ''}${running.size ? `, running: ${visible([...running].map((t) => t.name ?? t.id).join(', '))}` : ''}`);
  };

  let exitOnStop: number = Exit.interrupted;
  const handlers: [SignalName, () => void][] = [];
  const interrupted = new Promise<void>((resolve) => {
    for (const [signal, code] of [['SIGINT', Exit.interrupted], ['SIGTERM', Exit.terminated]] as const) {
      const on = () => {
        stop = 'interrupt';
        exitOnStop = code;
        resolve();
      };
      handlers.push([signal, on]);
      rt.ctx.signals.on(signal, on);
    }
  });
  // A target whose work calls release() (its request sent, only waiting left) frees its worker
  // for the next target; it stays running until its work ends.
  const finishing: Promise<void>[] = [];
  const worker = async () => {
    while (next < targets.length && stop === undefined) {
      const target = targets[next++] as Target;
      running.add(target);
      tick();
      let release = () => {};
      const released = new Promise<void>((resolve) => (release = resolve));
      const finished = settle(target, (t) => work(t, release)).then((result) => {
        running.delete(target);
        results.push(result);
        if (streamed) rt.io.stdout.write(`${JSON.stringify(result)}\n`);
        if (!result.ok && opts.failFast) stop ??= 'failure';
        tick();
      });
      finishing.push(finished);
      await Promise.race([finished, released]);
    }
  };
  const all = async () => {
    await Promise.all(Array.from({ length: Math.min(opts.parallel, targets.length) }, worker));
    await Promise.all(finishing);
  };
  try {
    await Promise.race([all(), interrupted]);
  } finally {
    for (const [signal, on] of handlers) rt.ctx.signals.off(signal, on);
    if (progress) rt.io.rawStderr.write('\r\x1b[2K');
  }

  if (!streamed) await show(rt, results);
  const notStarted = targets.slice(next);
  if (stop === 'failure' && notStarted.length) rt.note(`--fail-fast: not started on ${notStarted.map(label).join(', ')}`);
  const failed = results.filter((r) => !r.ok);
  if (stop === 'interrupt') {
    rt.note(`Interrupted: ${results.length} of ${targets.length} finished.`);
    if (running.size) rt.note(`Still running when interrupted (the request may have been applied): ${[...running].map(label).join(', ')}`);
    if (notStarted.length) rt.note(`Not started: ${notStarted.map(label).join(', ')}`);
    return exitOnStop;
  }
  if (failed.length) {
    rt.note(`${failed.length} of ${targets.length} failed: ${failed.map((r) => r.server_name ?? r.server_id).join(', ')}`);
    return Exit.someFailed;
  }
  return Exit.ok;
}

async function settle(target: Target, work: (t: Target) => Promise<unknown>): Promise<TargetResult> {
  const base = { server_id: target.id, server_name: target.name ?? null };
  try {
    const data = await work(target);
    return { ...base, ok: true, exit_code: Exit.ok, ...(data === undefined ? {} : { data }) };
  } catch (err) {
    const exit = err instanceof GshError ? err.exitCode : Exit.error;
    const key = err instanceof OutcomeUnknownError ? { idempotency_key: err.idempotencyKey } : {};
    const person = err instanceof ApiError && err.actionUrl ? { action_url: err.actionUrl, ...(err.hint ? { hint: err.hint } : {}) } : {};
    return { ...base, ok: false, exit_code: exit, error: err instanceof Error ? err.message : String(err), ...key, ...person };
  }
}

async function show(rt: Runtime, results: TargetResult[]): Promise<void> {
  if (rt.format !== 'table' || rt.globals.jq !== undefined) return rt.out.show(results);
  const rows = results.map((r) => ({
    server: r.server_id,
    name: r.server_name ?? '',
    result: r.ok ? 'ok' : `failed (exit ${r.exit_code})`,
    detail: r.ok ? summary(r.data) : `${r.error ?? ''}${r.action_url ? ` (${r.action_url})` : ''}`,
  }));
  await rt.out.show(rows, { columns: ['server', 'name', 'result', 'detail'] });
}

/** One line about what a target answered: its state where it has one. */
function summary(data: unknown): string {
  if (data === null || typeof data !== 'object') return data === undefined ? '' : String(data);
  const d = data as Record<string, unknown>;
  const state = d.state ?? d.power_state ?? d.status;
  return typeof state === 'string' ? state : '';
}
