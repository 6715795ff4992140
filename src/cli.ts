// Entry point (bin/gsh.js imports this), and the one file that touches `process`: it builds the
// real context, runs the command line in it and hands back the exit code. Startup is a feature:
// `--version` is answered by the launcher before this module loads; otherwise commander is loaded,
// and the word being run is registered alone, with the code of just that word (its registry
// families and hand-written module) imported and built; every top-level word, by name only, when
// argv runs none. Nothing heavy is imported at the top of this file.

import type { RunSeen } from './program.js';

/**
 * `gsh … | head` closes our stdout early: stop quietly, as other Unix tools do. Any other write
 * error (a full disk, `> /dev/full`, EIO) is one line and exit 1, never a stack trace.
 */
function onWriteError(stream: NodeJS.WriteStream, name: string): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    if (stream !== process.stderr) process.stderr.write(`gsh: cannot write to ${name}: ${err.code ?? err.message}\n`);
    process.exit(1);
  });
}

/** Anything unexpected that escapes a command: one line, exit 1; the stack only under --debug. */
function onInternalError(argv: readonly string[]): void {
  const report = (err: unknown) => {
    const e = err as Error;
    process.stderr.write(`gsh: internal error: ${String(e?.message ?? err)} (run with --debug and report it)\n`);
    if (argv.includes('--debug') && e?.stack) process.stderr.write(`${e.stack}\n`);
    process.exit(1);
  };
  process.on('uncaughtException', report);
  process.on('unhandledRejection', report);
}

/**
 * With FORCE_COLOR and NO_COLOR both set, Node prints "Warning: The 'NO_COLOR' env is ignored due
 * to the 'FORCE_COLOR' env being set" the first time its own colour check runs (undici's
 * `require('node:assert')` runs it), a line on stderr that is not gsh's. gsh decides colour from
 * the context's copy of the environment (core/terminal/io.ts colorEnabled, where FORCE_COLOR wins too), so
 * Node's own check, which ignores NO_COLOR then anyway, is left FORCE_COLOR alone.
 */
function withoutNodeColourWarning<T extends { env: Record<string, string | undefined> }>(ctx: T): T {
  if (process.env.FORCE_COLOR === undefined) return ctx;
  ctx.env = { ...process.env };
  delete process.env.NO_COLOR;
  delete process.env.NODE_DISABLE_COLORS;
  return ctx;
}

export interface MainOptions {
  /**
   * Handed what a run printed on stdout when that was commander's help alone (exit 0, nothing on
   * stderr): the launcher passes it for a plain help request, to print that help from its cache
   * next time. `gsh sandbox exec ls --help` is help-shaped but runs ls: nothing is handed.
   */
  keepOutput?(text: string): void;
}

export async function main(argv: string[] = process.argv.slice(2), options: MainOptions = {}): Promise<number> {
  onWriteError(process.stdout, 'standard output');
  onWriteError(process.stderr, 'standard error');
  onInternalError(argv);
  const [{ run }, { processContext }] = await Promise.all([import('./program.js'), import('./core/run/context.js')]);
  const ctx = withoutNodeColourWarning(processContext());
  if (!options.keepOutput) return run(argv, ctx);
  const stdout = recorded(ctx.stdout);
  const stderr = recorded(ctx.stderr);
  ctx.stdout = stdout.stream;
  ctx.stderr = stderr.stream;
  const seen: RunSeen = {};
  const code = await run(argv, ctx, seen);
  if (code === 0 && seen.helpShown && stderr.text() === '') options.keepOutput(stdout.text());
  return code;
}

/** The stream as it is, with what is written to it kept as text too. */
function recorded<T extends NodeJS.WritableStream>(stream: T): { stream: T; text(): string } {
  const chunks: string[] = [];
  const proxy = new Proxy(stream, {
    get(target, key) {
      if (key === 'write') {
        return (chunk: string | Uint8Array, ...rest: unknown[]) => {
          chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString());
          return (target.write as (...a: unknown[]) => boolean)(chunk, ...rest);
        };
      }
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { stream: proxy, text: () => chunks.join('') };
}
