import type { Command } from 'commander';
import type { Context } from './context.js';

// One run of the program: the context it runs in and the exit code its action returned. Kept
// apart from runtime.ts (which loads the HTTP client) so offline commands such as `init lint`
// reach their context without paying for it.

interface RunState {
  ctx: Context;
  /** The command line as typed (replay commands repeat it). */
  argv: readonly string[];
  exitCode?: number;
}

const runs = new WeakMap<Command, RunState>();

/** Ties a program to the context it runs in; actions find it from any subcommand. */
export function bindRun(program: Command, ctx: Context, argv: readonly string[] = []): { exitCode(): number | undefined } {
  const state: RunState = { ctx, argv };
  runs.set(program, state);
  return { exitCode: () => state.exitCode };
}

export function rootOf(cmd: Command): Command {
  let root = cmd;
  while (root.parent) root = root.parent;
  return root;
}

function runOf(cmd: Command): RunState {
  const state = runs.get(rootOf(cmd));
  if (!state) throw new Error('command run outside run(argv, ctx)');
  return state;
}

export function contextOf(cmd: Command): Context {
  return runOf(cmd).ctx;
}

export function argvOf(cmd: Command): readonly string[] {
  return runOf(cmd).argv;
}

/** The exit code run() returns for this command line. */
export function setExitCode(cmd: Command, code: number): void {
  runOf(cmd).exitCode = code;
}
