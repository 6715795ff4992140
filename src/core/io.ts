import type { Context, InStream, OutStream } from './context.js';

// Terminal facts decided in one place (STYLE.md: gh's iostreams). Commands never test isTTY
// themselves; they ask Streams.

/** What output code needs of a stream. */
export interface Writer {
  write(chunk: string | Uint8Array): unknown;
}

export interface Streams {
  stdout: OutStream;
  stderr: OutStream;
  stdin: InStream;
  /** stdout is a terminal: tables, no TSV. */
  stdoutTTY: boolean;
  /** stderr is a terminal: spinners and prompts may draw there. */
  stderrTTY: boolean;
  stdinTTY: boolean;
  /** ANSI colour on stdout. */
  color: boolean;
  /** ANSI colour on stderr. */
  colorErr: boolean;
  columns: number;
  env: Context['env'];
}

/** NO_COLOR and --no-color turn colour off; FORCE_COLOR (not 0/false) forces it on; else a TTY decides. */
export function colorEnabled(env: Context['env'], isTTY: boolean, noColorFlag: boolean): boolean {
  if (noColorFlag) return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force !== '0' && force !== 'false';
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return isTTY && env.TERM !== 'dumb';
}

/** The terminal facts of a context's streams, decided once per command. */
export function streamsFor(ctx: Context, opts: { noColor?: boolean } = {}): Streams {
  const { env } = ctx;
  const stdoutTTY = ctx.stdout.isTTY === true;
  const stderrTTY = ctx.stderr.isTTY === true;
  return {
    stdout: ctx.stdout,
    stderr: ctx.stderr,
    // Getters: the real process.stdin is a stream built on first use, and most commands never read it.
    get stdin() {
      return ctx.stdin;
    },
    stdoutTTY,
    stderrTTY,
    get stdinTTY() {
      return ctx.stdin.isTTY === true;
    },
    color: colorEnabled(env, stdoutTTY, opts.noColor === true),
    colorErr: colorEnabled(env, stderrTTY, opts.noColor === true),
    columns: ctx.stdout.columns || Number(env.COLUMNS) || 100,
    env,
  };
}

/** Minimal ANSI styling for the hot paths that must not load chalk. */
export const ansi = {
  dim: (s: string, on: boolean) => (on ? `\x1b[2m${s}\x1b[22m` : s),
  bold: (s: string, on: boolean) => (on ? `\x1b[1m${s}\x1b[22m` : s),
  red: (s: string, on: boolean) => (on ? `\x1b[31m${s}\x1b[39m` : s),
  yellow: (s: string, on: boolean) => (on ? `\x1b[33m${s}\x1b[39m` : s),
  green: (s: string, on: boolean) => (on ? `\x1b[32m${s}\x1b[39m` : s),
  cyan: (s: string, on: boolean) => (on ? `\x1b[36m${s}\x1b[39m` : s),
};

// eslint-disable-next-line no-control-regex
const ANSI_RE = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)/g;

export function stripAnsi(s: string): string {
  return s.replace(ANSI_RE, '');
}
