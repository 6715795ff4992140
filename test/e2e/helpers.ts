import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type Options, type Result } from 'execa';
import type { Clock } from '../../src/core/run/context.js';
import { type ServerRecord, startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { until } from '../console/in-process.js';
import { assertNoNodeWarning, fastClock, testContext, type TestContext, type TestContextOptions, withoutNodeWarnings } from '../helpers/context.js';
import { run } from '../../src/program.js';

// The e2e harness: a real sandbox on a loopback port (real HTTP), a temporary config dir per test
// file, and nothing left running afterwards. `gsh()` runs the command line in this process through
// run(argv, ctx) (ARCHITECTURE.md "Plan, then execute"): stdout and stderr captured, stdin from
// `input`, and an environment made only of env()'s values (plus PATH and HOME), never the runner's
// own. `gshProcess()` runs the built bin/gsh.js with execa, for the few tests that need a real
// process (a pty, signals, the launcher, a closed pipe, the --version fast path): see
// binary.test.ts.

export const GSH = fileURLToPath(new URL('../../bin/gsh.js', import.meta.url));

/** What gsh() resolves to: the parts of execa's Result the tests read. */
export interface GshResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** stdout as bytes (execa's `encoding: 'buffer'`). */
  stdoutBytes: Buffer;
  /** The run outlived `timeout` and was sent SIGINT and SIGTERM (execa's timedOut). */
  timedOut: boolean;
  ctx: TestContext;
}

export interface GshOptions {
  env?: Record<string, string | undefined>;
  /** Standard input's whole content (execa's `input`); without it stdin is empty and ended. */
  input?: string | Buffer;
  /** Milliseconds before the run is sent SIGINT and SIGTERM on its signals (default 60 s). */
  timeout?: number;
  /** Terminal facts of the run's streams (default: none is a terminal). */
  tty?: TestContextOptions['tty'];
  /** The run's clock (default: setup's, else the real one). */
  clock?: Clock;
}

/** What gshProcess() resolves to: text stdout and stderr (no encoding or line options are passed). */
export type ProcessResult = Result<{}>;

export interface E2E {
  sandbox: Sandbox;
  configDir: string;
  /** Environment for the CLI: base URL and all-scopes key unless overridden. */
  env(extra?: Record<string, string | undefined>): Record<string, string | undefined>;
  /** Runs gsh in-process against the sandbox. */
  gsh(args: string[], opts?: GshOptions): Promise<GshResult>;
  /** Runs the built bin/gsh.js as a subprocess (only where a real process is the point). */
  gshProcess(args: string[], opts?: Options & { env?: Record<string, string | undefined> }): Promise<ProcessResult>;
  close(): Promise<void>;
}

/** env() for an in-process run: only the given values (undefined removes one), PATH and HOME kept. */
export function runEnv(env: Record<string, string | undefined>): Record<string, string> {
  const all: Record<string, string | undefined> = { PATH: process.env.PATH, HOME: process.env.HOME, ...env };
  return Object.fromEntries(Object.entries(all).filter((e): e is [string, string] => e[1] !== undefined));
}

/** Runs one command line in-process (the harness behind E2E.gsh, usable without a sandbox). */
export async function gshInProcess(args: string[], env: Record<string, string | undefined>, opts: Omit<GshOptions, 'env'> = {}): Promise<GshResult> {
  const ctx = testContext({
    env: runEnv(env),
    ...(opts.input !== undefined ? { stdin: opts.input } : {}),
    ...(opts.tty ? { tty: opts.tty } : {}),
    ...(opts.clock ? { clock: opts.clock } : {}),
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ctx.signals.emit('SIGINT');
    ctx.signals.emit('SIGTERM');
  }, opts.timeout ?? 60_000);
  // jq's WebAssembly runtime sets process.exitCode when an expression fails to compile, and
  // commander's `help` exits with process.exitCode: runs in one worker must not see each other's.
  const exitCodeBefore = process.exitCode;
  try {
    const exitCode = await withoutNodeWarnings(args, () => run(args, ctx));
    // Like execa, one final newline is stripped from the text (not from the bytes).
    return { exitCode, stdout: stripFinalNewline(ctx.stdout.text()), stderr: stripFinalNewline(ctx.stderr.text()), stdoutBytes: ctx.stdout.bytes(), timedOut, ctx };
  } finally {
    clearTimeout(timer);
    process.exitCode = exitCodeBefore;
  }
}

function stripFinalNewline(text: string): string {
  return text.replace(/\r?\n$/, '');
}

/** Runs the built binary with exactly `env` added to the runner's environment. */
export async function gshProcess(args: string[], env: Record<string, string | undefined>, opts: Options = {}): Promise<ProcessResult> {
  const r = (await execa(process.execPath, [GSH, ...args], { reject: false, timeout: 60_000, ...opts, env, extendEnv: true })) as unknown as ProcessResult;
  if (typeof r.stderr === 'string') assertNoNodeWarning(args, r.stderr);
  return r;
}

export interface SetupOptions extends SandboxOptions {
  /**
   * The clock of each run: 'real' (default); 'fast': pauses (polls, retry backoff) last the
   * sandbox's timeScale of their length while the run's now() moves on by all of it (fastClock);
   * a number: the same at that scale.
   */
  clock?: 'real' | 'fast' | number;
}

/**
 * The sandbox mode of this pass: the `strict` vitest project sets GSH_TEST_SANDBOX=strict, so the
 * same end-to-end files run against a sandbox that serves only what the contract shows.
 */
export const STRICT = process.env.GSH_TEST_SANDBOX === 'strict';

export async function setup(opts: SetupOptions = {}): Promise<E2E> {
  const { clock: clockKind, ...sandboxOpts } = opts;
  const timeScale = sandboxOpts.timeScale ?? 0.05;
  const sandbox = await startSandbox({ strict: STRICT, ...sandboxOpts, timeScale });
  // One clock per run: a fast clock's skipped time belongs to the run that paused.
  const scale = clockKind === 'fast' ? timeScale : typeof clockKind === 'number' ? clockKind : undefined;
  const clockOf = (): Clock | undefined => (scale !== undefined ? fastClock(scale) : undefined);
  const configDir = mkdtempSync(join(tmpdir(), 'gsh-e2e-'));
  const env = (extra: Record<string, string | undefined> = {}) => ({
    GSH_BASE_URL: sandbox.baseUrl,
    GSH_API_KEY: sandbox.keys.all,
    GSH_CONFIG_DIR: configDir,
    GSH_PROFILE: undefined,
    GSH_SERVER: undefined,
    GSH_TOKEN: undefined,
    NO_COLOR: '1',
    // A runner's own colour forcing would beat NO_COLOR in subprocess runs (core/terminal/io.ts).
    FORCE_COLOR: undefined,
    CLICOLOR_FORCE: undefined,
    CLICOLOR: undefined,
    CI: undefined,
    ...extra,
  });
  return {
    sandbox,
    configDir,
    env,
    gsh: (args, o = {}) => {
      const clock = clockOf();
      return gshInProcess(args, env(o.env ?? {}), { ...(clock ? { clock } : {}), ...o });
    },
    gshProcess: (args, o = {}) => gshProcess(args, env(o.env ?? {}), o),
    close: async () => {
      await sandbox.close();
      rmSync(configDir, { recursive: true, force: true });
    },
  };
}

/** Starts `s` in the sandbox unless it runs already, and waits until it does (a failure after 10 s). */
export async function ensureRunning(sandbox: Sandbox, s: ServerRecord): Promise<ServerRecord> {
  if (s.state !== 'running') sandbox.extensions.context.lifecycle.power(s, 'start');
  await until(() => (s.state as string) === 'running', 10_000, `server ${s.name} to run`);
  return s;
}

/** Servers as a printed line names them (core/terminal/report.ts serversArg): one id as it is, several as `id:…` each. */
export const idList = (ids: readonly (string | null)[]): string => (ids.length < 2 ? ids.join(',') : ids.map((id) => `id:${id}`).join(','));
