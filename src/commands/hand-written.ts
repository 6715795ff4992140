import type { Command } from 'commander';
import type { DocTree } from '../docs/command-tree.js';

// What a hand-written command module is (ARCHITECTURE.md "Layers": src/commands/). Its own
// module, so the commands can name these types without importing the list of commands
// (`commands/index.ts`), which imports them.
//
// Operations a hand-written command calls: `gsh reference --json` maps every leaf command to the
// API operations it reaches. Generated leaves map to their registry operation by themselves (and a
// hand-written verb replacing a generated one inherits that operation). A module declares the rest
// with one export, keyed by the full command line, each value "METHOD /path" exactly as in the
// registry (a test checks both the keys and the operations):
//
//   export const operations: OperationUses = { 'auth login': ['GET /me'], 'auth profiles': [] };
//
// An empty list says the command reaches no fixed operation (offline, or any path like `gsh api`).
//
// A hand-written verb that takes the place of a generated one (same words) says so, so that a
// clash by accident fails when the tree is built instead of silently hiding a generated command:
//
//   export const replaces = ['files upload'];

/** Full command line (`console attach`) → the operations it calls (`POST /servers/{server_id}/console/token`). */
export type OperationUses = Readonly<Record<string, readonly string[]>>;

/**
 * What the program (the layer above) hands to every module's register(): the commands that
 * document the whole tree (reference, completion, man) get it from there, since building every
 * command is the program's work, not a command's.
 */
export interface FromProgram {
  /** Every command of gsh as documentation data (builds the whole tree; slow, call only when run). */
  docTree(): Promise<DocTree>;
}

export interface HandWrittenModule {
  register(cmd: Command, program: FromProgram): void | Promise<void>;
  operations?: OperationUses;
  /** Full command lines of generated leaves this module replaces on purpose. */
  replaces?: readonly string[];
}

export interface HandWritten {
  summary: string;
  load: () => Promise<HandWrittenModule>;
}
