import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, Dispatcher } from 'undici';
import type { Clock } from '../../src/core/run/context.js';
import { run } from '../../src/program.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { runEnv } from '../e2e/helpers.js';
import { testContext } from './context.js';
import { FULL } from './full-run.js';

// Every moment, deterministically (ARCHITECTURE.md "Tests", "Every step"): a run of gsh in-process whose every step is a point
// where Ctrl-C or SIGTERM can be delivered. A step is a request about to be sent, an answer
// arrived whole but not yet handed to gsh, and a pause begun on the run's clock. Requests go
// through a dispatcher that holds each one at those two points; pauses through a virtual clock
// that also moves the sandbox's simulated time (a sandbox started with `manualTime`), so power
// transitions and rate-limit windows happen at the same step of every run. One run counts the
// steps; then one run per step delivers the signal there, as its own turn of the event loop,
// while gsh is held at that point (every step in a full run; a sample run, `npm test`, signals at
// every pause and a seeded part of the requests' steps: stepsToSignal).

export type StepKind = 'send' | 'answer' | 'sleep';

export interface Step {
  kind: StepKind;
  /** `GET /api/v2/servers/…` or the pause's length. */
  what: string;
}

export interface SteppedResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  steps: Step[];
  /** The step the signal was delivered at (undefined: the run ended first, or none was asked for). */
  delivered?: Step;
}

/** The virtual time a sandbox (manualTime, `now`) and each run's clock share; it only moves forward. */
export class VirtualTime {
  now = Date.UTC(2026, 0, 1);
  private sandbox: Sandbox | undefined;

  attach(sandbox: Sandbox): void {
    this.sandbox = sandbox;
  }

  /** Moves time to `t`, running the sandbox's transitions that fall due on the way. */
  moveTo(t: number): void {
    if (t <= this.now) return;
    this.sandbox?.extensions.context.clock.advance(t - this.now);
    this.now = t;
  }
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface SteppedOptions {
  /** Deliver the signal at this step (1-based). */
  at?: number;
  signal?: 'SIGINT' | 'SIGTERM';
}

/**
 * Runs `argv` in-process with `env`, every request and pause a step (see above). `time` moves
 * by each pause's length, so --timeout, backoff and Retry-After pass as the run asks.
 */
export async function runStepped(argv: string[], env: Record<string, string | undefined>, time: VirtualTime, opts: SteppedOptions = {}): Promise<SteppedResult> {
  const steps: Step[] = [];
  const configDir = mkdtempSync(join(tmpdir(), 'gsh-steps-'));
  const agent = new Agent({ connections: 16 });
  let delivered: Step | undefined;
  const ctx = testContext({
    env: runEnv({ ...env, GSH_CONFIG_DIR: configDir }),
  });
  /** One step: the signal comes here when it is the one asked for, in a turn of its own. */
  const step = async (kind: StepKind, what: string) => {
    steps.push({ kind, what });
    if (steps.length !== opts.at) return;
    await turn();
    delivered = { kind, what };
    ctx.signals.emit(opts.signal ?? 'SIGINT');
    await turn();
  };
  const clock: Clock = {
    now: () => time.now,
    sleep: async (ms, signal) => {
      await step('sleep', `${ms} ms`);
      if (signal?.aborted) return;
      const due = time.now + ms;
      await turn();
      time.moveTo(due);
    },
  };
  ctx.clock = clock;
  ctx.dispatcher = steppingDispatcher(agent, step);
  const exitBefore = process.exitCode;
  // What src/cli.ts does with a promise nobody handles: the real process prints an internal error.
  const escaped: string[] = [];
  const onEscape = (err: unknown) => void escaped.push(`gsh: internal error: ${String((err as Error)?.message ?? err)} (run with --debug and report it)\n`);
  process.on('unhandledRejection', onEscape);
  try {
    const exitCode = await run(argv, ctx);
    // Rejections are found unhandled once the turn that dropped them is over.
    await turn();
    await turn();
    return { exitCode, stdout: ctx.stdout.text(), stderr: ctx.stderr.text() + escaped.join(''), steps, ...(delivered ? { delivered } : {}) };
  } finally {
    process.off('unhandledRejection', onEscape);
    process.exitCode = exitBefore;
    await agent.close();
    rmSync(configDir, { recursive: true, force: true });
  }
}

/**
 * A dispatcher that holds each request at two steps: before it is sent, and once its answer has
 * arrived whole, before gsh reads its end. undici's abort (the run's signal) works as on the wire.
 */
function steppingDispatcher(inner: Dispatcher, step: (kind: StepKind, what: string) => Promise<void>): Dispatcher {
  class Stepping extends Dispatcher {
    override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
      const what = `${opts.method} ${opts.path}`;
      const h = handler as unknown as Record<string, (...args: unknown[]) => unknown>;
      const held = new Proxy(h, {
        get(target, prop) {
          if (prop === 'onComplete') return (trailers: unknown) => void step('answer', what).then(() => target.onComplete?.(trailers));
          const v = target[prop as string];
          return typeof v === 'function' ? v.bind(target) : v;
        },
      });
      void step('send', what).then(() => inner.dispatch(opts, held as unknown as Dispatcher.DispatchHandler));
      return true;
    }
    override close(): Promise<void> {
      return Promise.resolve();
    }
    override destroy(): Promise<void> {
      return Promise.resolve();
    }
  }
  return new Stepping();
}

/** Of the requests' steps, the part a sample run signals at (a third). */
const SAMPLE_SHARE = 1 / 3;

/**
 * The steps a signal is delivered at (1-based): every one in a full run (test/helpers/full-run.ts);
 * in a sample run every pause, the first and the last step, and a seeded third of the requests'
 * steps (the seed is the command line, so a run signals at the same steps everywhere). Every pause:
 * the runs the tests look for among all (stopped in a wait, a countdown, the pause between waves)
 * are stopped in one.
 */
export function stepsToSignal(steps: readonly Step[], seed: string): number[] {
  const all = steps.map((_, i) => i + 1);
  if (FULL) return all;
  let h = 2166136261;
  for (const c of seed) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  const random = mulberry32(h >>> 0);
  return all.filter((k) => {
    const draw = random();
    return steps[k - 1]!.kind === 'sleep' || k === 1 || k === steps.length || draw < SAMPLE_SHARE;
  });
}

/** mulberry32: small, fast, good enough to spread the sample. */
function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Counts the steps of `argv` (no signal; `counted` sees that run), then runs it once per step of
 * stepsToSignal with the signal delivered there (`signal(k)`, default SIGINT) and hands each run to `check`.
 * `before` sets the scene before every run.
 */
export async function everyStep(
  argv: string[],
  env: Record<string, string | undefined>,
  time: VirtualTime,
  each: { before?: () => void; counted?: (r: SteppedResult) => void; check: (r: SteppedResult, k: number) => void; signal?: (k: number) => 'SIGINT' | 'SIGTERM' },
): Promise<{ steps: Step[]; runs: SteppedResult[] }> {
  each.before?.();
  const counted = await runStepped(argv, env, time);
  each.counted?.(counted);
  const runs: SteppedResult[] = [];
  for (const k of stepsToSignal(counted.steps, argv.join(' '))) {
    each.before?.();
    const r = await runStepped(argv, env, time, { at: k, signal: each.signal?.(k) ?? 'SIGINT' });
    each.check(r, k);
    runs.push(r);
  }
  return { steps: counted.steps, runs };
}
