import { EventEmitter } from 'node:events';
import { PassThrough, Writable } from 'node:stream';
import type { Context, Clock } from '../../src/core/run/context.js';
import type { InStream, OutStream } from '../../src/core/terminal/streams.js';
import { realClock } from '../../src/core/run/context.js';
import { fileStore } from '../../src/core/auth/store.js';
import { run } from '../../src/program.js';

// A context for running gsh in-process (ARCHITECTURE.md "Plan, then execute"): captured stdout and
// stderr with the terminal facts a test chooses, stdin from a string (or left open), an env of the
// test's own, the real or a fake clock, and signals the test can raise.

export interface Captured extends Writable {
  isTTY?: boolean;
  columns?: number;
  text(): string;
  bytes(): Buffer;
}

export function capture(opts: { isTTY?: boolean; columns?: number } = {}): Captured {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
      done();
    },
  }) as Captured;
  stream.isTTY = opts.isTTY ?? false;
  if (opts.columns !== undefined) stream.columns = opts.columns;
  stream.bytes = () => Buffer.concat(chunks);
  stream.text = () => Buffer.concat(chunks).toString('utf8');
  return stream;
}

/**
 * A clock for runs against a sandbox sped up by its timeScale: each pause lasts `scale` of its
 * length in real time, and now() then moves on by the whole length, so the run sees the time it
 * waited pass (a --timeout still runs out after polls that add up to it). Time the run did not
 * spend pausing passes at the real rate. Make one per run.
 */
export function fastClock(scale: number): Clock {
  let skipped = 0;
  return {
    now: () => Date.now() + skipped,
    sleep: (ms) => {
      const real = Math.max(0, Math.round(ms * scale));
      return new Promise((resolve) => setTimeout(() => {
        skipped += Math.max(0, ms - real);
        resolve();
      }, real));
    },
  };
}

/**
 * A virtual clock whose pauses listen to their signal, as the real clock's do (core/run/context.ts
 * realClock): time moves by each pause's length after `realMs` of real time, so pauses that wait
 * out one window end together, and Ctrl-C ends a pause at once.
 */
export function listeningClock(start = Date.now(), realMs = 100): Clock {
  let now = start;
  return {
    now: () => now,
    sleep: (ms, signal) =>
      new Promise((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(() => {
          now += ms;
          done();
        }, realMs);
        signal?.addEventListener('abort', done, { once: true });
      }),
  };
}

/**
 * A clock that only moves when someone sleeps on it, for sharing between a sandbox (its
 * rate-limit windows: `startSandbox({ now: virtual.now })`) and gsh: waiting for a window to
 * reset passes at once in real time.
 */
export function virtualClock(): Clock {
  let now = Date.now();
  return {
    now: () => now,
    sleep: async (ms) => {
      now += ms;
      await new Promise((r) => setTimeout(r, 1));
    },
  };
}

export interface TestContextOptions {
  env?: Record<string, string | undefined>;
  /** Standard input's whole content; undefined leaves an empty, ended stdin. */
  stdin?: string | Buffer;
  /** Keep stdin open (the test writes to `ctx.stdin` and ends it). */
  stdinOpen?: boolean;
  tty?: { stdin?: boolean; stdout?: boolean; stderr?: boolean; columns?: number };
  clock?: Clock;
  dispatcher?: Context['dispatcher'];
}

export interface TestContext extends Context {
  stdin: PassThrough & InStream;
  stdout: Captured & OutStream;
  stderr: Captured & OutStream;
  signals: EventEmitter;
}

export function testContext(opts: TestContextOptions = {}): TestContext {
  const env = { ...opts.env };
  const stdin = new PassThrough() as PassThrough & InStream;
  stdin.isTTY = opts.tty?.stdin ?? false;
  if (!opts.stdinOpen) stdin.end(opts.stdin ?? '');
  const columns = opts.tty?.columns;
  return {
    stdin,
    stdout: capture({ isTTY: opts.tty?.stdout ?? false, ...(columns !== undefined ? { columns } : {}) }),
    stderr: capture({ isTTY: opts.tty?.stderr ?? false, ...(columns !== undefined ? { columns } : {}) }),
    env,
    clock: opts.clock ?? realClock,
    ...(opts.dispatcher ? { dispatcher: opts.dispatcher } : {}),
    store: fileStore(env),
    signals: new EventEmitter(),
  };
}

export interface RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  ctx: TestContext;
}

/** Runs one command line in-process and returns what it printed. */
export async function runGsh(argv: string[], opts: TestContextOptions | TestContext = {}): Promise<RunResult> {
  const ctx = 'signals' in opts ? (opts as TestContext) : testContext(opts as TestContextOptions);
  const exitCode = await withoutNodeWarnings(argv, () => run(argv, ctx));
  return { exitCode, stdout: ctx.stdout.text(), stderr: ctx.stderr.text(), ctx };
}

/**
 * A line Node itself writes on stderr: `(node:123) MaxListenersExceededWarning: …`,
 * `(node:123) [DEP0040] DeprecationWarning: …`, `ExperimentalWarning`, a plain `Warning:`.
 */
export const NODE_WARNING = /^\(node:\d+\) (?:\[\w+\] )?\w*Warning: .*$/m;

/** Fails the test when `stderr` of a real gsh process holds a line of Node's own (issue 37 item 3). */
export function assertNoNodeWarning(argv: readonly string[], stderr: string): void {
  const line = NODE_WARNING.exec(stderr)?.[0];
  if (line) throw new Error(`gsh ${argv.join(' ')} printed a Node warning on stderr: ${line}`);
}

/** The warnings of the runs under way; one process listener feeds them all (runs may overlap). */
const collecting = new Set<string[]>();
const onWarning = (w: Error) => {
  for (const seen of collecting) seen.push(`(node:${process.pid}) ${w.name}: ${w.message}`);
};

/**
 * Runs `work` (a gsh run in this process) and fails the test when Node emitted a warning
 * meanwhile, which the real process would print on stderr: stderr is gsh's own (issue 37 item 3).
 */
export async function withoutNodeWarnings<T>(argv: readonly string[], work: () => Promise<T>): Promise<T> {
  const seen: string[] = [];
  if (collecting.size === 0) process.on('warning', onWarning);
  collecting.add(seen);
  try {
    const result = await work();
    // process.emitWarning() emits on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
    assertNoNodeWarning(argv, seen.join('\n'));
    return result;
  } finally {
    collecting.delete(seen);
    if (collecting.size === 0) process.off('warning', onWarning);
  }
}
