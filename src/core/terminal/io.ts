import type { Env, InStream, OutStream } from './streams.js';
import { logStream, neutralise, terminalStream } from './terminal-text.js';

// Terminal facts decided in one place (ARCHITECTURE.md "Lessons from other CLIs": gh's iostreams).
// Commands never test isTTY themselves; they ask Streams.

/** What output code needs of a stream. */
export interface Writer {
  write(chunk: string | Uint8Array): unknown;
}

export interface Streams {
  /** On a terminal, every write is made safe to show (core/terminal/terminal-text.ts); on a pipe, the stream itself. */
  stdout: OutStream;
  /**
   * stdout for bytes as the service chose them (`gsh api`'s text body, a downloaded file): on a
   * terminal every escape sequence is shown as text, colours too, whatever --color (README
   * "Security": only `console attach` keeps a game's colours); on a pipe, the stream itself.
   */
  serviceStdout: OutStream;
  stderr: OutStream;
  /**
   * The streams unfiltered, for gsh's own drawing only (spinners, progress lines, prompts) and
   * `console attach --raw`: service text written here must pass visible() first.
   */
  rawStdout: OutStream;
  rawStderr: OutStream;
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
  env: Env;
}

/** `--color` (and `--no-color`, which is `--color never`). */
export const COLOR_WHEN = ['auto', 'always', 'never'] as const;
export type ColorWhen = (typeof COLOR_WHEN)[number];

/**
 * The one colour decision (gh's rules): `--color always|never` beats the environment; then
 * CLICOLOR_FORCE (not 0) or FORCE_COLOR (not 0/false) force colour even when piped; then NO_COLOR
 * (non-empty), CLICOLOR=0 and FORCE_COLOR=0 turn it off; otherwise a terminal (not TERM=dumb) has it.
 */
export function colorEnabled(env: Env, isTTY: boolean, when: ColorWhen = 'auto'): boolean {
  if (when !== 'auto') return when === 'always';
  const force = env.FORCE_COLOR;
  const forceOff = force === '0' || force === 'false';
  if ((env.CLICOLOR_FORCE && env.CLICOLOR_FORCE !== '0') || (force && !forceOff)) return true;
  if (env.NO_COLOR || env.CLICOLOR === '0' || forceOff) return false;
  return isTTY && env.TERM !== 'dumb';
}

/** commander's value of the global flag: `--color <when>`, or false from `--no-color`. */
export function colorWhen(flag: string | boolean | undefined): ColorWhen {
  if (flag === false) return 'never';
  return (COLOR_WHEN as readonly unknown[]).includes(flag) ? (flag as ColorWhen) : 'auto';
}

/** The colour flag as typed, read before commander parses (error lines of a run that failed to parse). */
export function colorWhenIn(argv: readonly string[]): ColorWhen {
  let when: ColorWhen = 'auto';
  for (let i = 0; i < argv.length && argv[i] !== '--'; i++) {
    const a = argv[i] as string;
    if (a === '--no-color') when = 'never';
    else if (a === '--color') when = colorWhen(argv[i + 1]);
    else if (a.startsWith('--color=')) when = colorWhen(a.slice('--color='.length));
  }
  return when;
}

/** The terminal facts of a context's streams, decided once per command. */
export function streamsFor(ctx: { stdin: InStream; stdout: OutStream; stderr: OutStream; env: Env }, opts: { color?: ColorWhen } = {}): Streams {
  const { env } = ctx;
  const stdoutTTY = ctx.stdout.isTTY === true;
  const stderrTTY = ctx.stderr.isTTY === true;
  const color = colorEnabled(env, stdoutTTY, opts.color);
  const colorErr = colorEnabled(env, stderrTTY, opts.color);
  return {
    stdout: stdoutTTY ? terminalStream(ctx.stdout, color) : ctx.stdout,
    serviceStdout: stdoutTTY ? terminalStream(ctx.stdout, false) : ctx.stdout,
    // stderr is a log too, a terminal or not: one rule for its lines (logStream: no line a CI runner obeys).
    stderr: errorStream(ctx.stderr, colorErr),
    rawStdout: ctx.stdout,
    rawStderr: ctx.stderr,
    // Getters: the real process.stdin is a stream built on first use, and most commands never read it.
    get stdin() {
      return ctx.stdin;
    },
    stdoutTTY,
    stderrTTY,
    get stdinTTY() {
      return ctx.stdin.isTTY === true;
    },
    color,
    colorErr,
    columns: ctx.stdout.columns || Number(env.COLUMNS) || 100,
    env,
  };
}

/**
 * A context's stream for a command that builds no Streams (completion, man, the sandbox's own
 * lines, commander's help and usage errors): on a terminal, through the sanitiser (colour kept
 * only when `keepSgr`); on a pipe, the stream itself, byte-exact (ARCHITECTURE.md "Doors").
 */
export function outputStream(stream: OutStream, keepSgr = false): OutStream {
  return stream.isTTY === true ? terminalStream(stream, keepSgr) : stream;
}

/**
 * A context's stderr (outputStream()'s rule on a terminal) with the rule for a log's lines on a
 * terminal and on a pipe alike (logStream(): no line starts with `::`, no bare CR).
 */
export function errorStream(stream: OutStream, keepSgr = false): OutStream {
  return stream.isTTY === true ? logStream(stream, (text) => neutralise(text, keepSgr)) : logStream(stream);
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
