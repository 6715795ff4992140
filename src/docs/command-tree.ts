import type { EventEmitter } from 'node:events';
import type { Command, Option } from 'commander';
import { leavesOf, type Leaf } from '../operations/leaves.js';
import { flagName } from '../core/flags/values.js';
import { accessText } from '../operations/access-text.js';
import type { Family, Field, Operation } from '../operations/types.js';

// The whole command tree as plain data, joined with the registry: one model that `gsh reference`,
// the completion scripts and the man pages all read, so they never disagree with each other or
// with what the commands accept. The tree is handed in (ARCHITECTURE.md "Layers": docs import
// only core and operations); `loadDocTree()` in program.ts builds it.

export interface DocOption {
  /** As declared, e.g. `-s, --server <id|name>`. */
  flags: string;
  /** `-s` and `--server`, whichever exist. */
  names: string[];
  takesValue: boolean;
  /** Must be given (or, for `--server`, come from GSH_SERVER) for the command to reach its operation. */
  required: boolean;
  /** Documented values (commander choices, or the registry's, which may be open). */
  choices: string[] | null;
  description: string;
}

export interface DocArgument {
  name: string;
  required: boolean;
  description: string;
}

export interface DocOperation {
  method: string;
  path: string;
}

export interface DocCommand {
  /** Command words after `gsh`; empty for the program itself. */
  words: string[];
  aliases: string[];
  summary: string;
  arguments: DocArgument[];
  options: DocOption[];
  children: DocCommand[];
  /** Leaves only: what the command calls, and what that needs. */
  operations: DocOperation[];
  scope: string | null;
  permission: string | null;
  example: string | null;
  /** Built by the registry builder from one operation (not a hand-written command). */
  generated: boolean;
  /** The help text shown after the options (examples, API lines, prose), as printed by --help. */
  helpAfter: string;
}

export interface DocTree {
  root: DocCommand;
  /** The program's own flags, accepted by every command. */
  globals: DocOption[];
}

/** What the tree is described from: all of it is built above docs and handed in. */
export interface TreeSources {
  /** The program with every command built. */
  program: Command;
  /** Every family of the registry. */
  families: readonly Family[];
  /** Hand-written command lines → the operations they declare ("METHOD /path"). */
  uses: ReadonlyMap<string, readonly string[]>;
  /** The registry leaf a generated command was built from; undefined for a hand-written one. */
  generatedLeaf(cmd: Command): Leaf | undefined;
}

export function describeTree({ program, families, uses, generatedLeaf }: TreeSources): DocTree {
  const registryLeaves = new Map<string, Leaf>();
  for (const family of families) for (const leaf of leavesOf(family)) registryLeaves.set(leaf.words.join(' '), leaf);
  const byId = new Map<string, Operation>();
  for (const family of families) for (const op of family.operations) byId.set(`${op.method} ${op.path}`, op);
  const ctx: Context = { registryLeaves, byId, uses, generatedLeaf };
  const root = describe(program, [], ctx);
  const unused = [...uses.keys()].filter((k) => !ctx.claimed?.has(k));
  if (unused.length) throw new Error(`declared operations for commands that do not exist: ${unused.join(', ')}`);
  return { root, globals: root.options };
}

/** Every leaf (a command without subcommands), depth first, in declaration order. */
export function leaves(node: DocCommand): DocCommand[] {
  return node.children.length === 0 ? [node] : node.children.flatMap(leaves);
}

interface Context {
  registryLeaves: Map<string, Leaf>;
  byId: Map<string, Operation>;
  uses: ReadonlyMap<string, readonly string[]>;
  generatedLeaf: TreeSources['generatedLeaf'];
  claimed?: Set<string>;
}

function describe(cmd: Command, words: string[], ctx: Context): DocCommand {
  const children = cmd.commands.map((c) => describe(c, [...words, c.name()], ctx));
  const line = words.join(' ');
  const leaf = words.length > 0 && children.length === 0 ? leafOperations(line, ctx) : undefined;
  // Registry fields describe a command's flags only where the builder made them from it.
  const generated = ctx.generatedLeaf(cmd);
  const fields = generated ? fieldsByFlag(generated) : new Map<string, Field>();
  // -s is required unless the server may be given as the argument instead.
  const serverFlagRequired = (leaf?.ops ?? []).some((op) => op.path.includes('{server_id}')) && !cmd.registeredArguments.some((a) => a.name() === 'server');
  return {
    words,
    aliases: cmd.aliases(),
    summary: cmd.description(),
    arguments: cmd.registeredArguments.map((a) => ({ name: a.name(), required: a.required, description: a.description })),
    options: cmd.options.filter((o) => !o.hidden).map((o) => describeOption(o, fields, serverFlagRequired)),
    children,
    operations: (leaf?.ops ?? []).map((op) => ({ method: op.method, path: op.path })),
    scope: joined(leaf?.ops.map((op) => accessText(op).scope)),
    permission: joined(leaf?.ops.map((op) => accessText(op).permission)),
    // A hand-written command's own help shows how it is called; the registry's example may not.
    example: (generated ? undefined : exampleLines(helpAfter(cmd))[0]) ?? leaf?.registry?.op.example ?? null,
    generated: generated !== undefined,
    helpAfter: helpAfter(cmd),
  };
}

/** A declaration wins; otherwise the registry leaf of the same words (generated, or replaced by hand). */
function leafOperations(line: string, ctx: Context): { ops: Operation[]; registry?: Leaf } {
  const registry = ctx.registryLeaves.get(line);
  const declared = ctx.uses.get(line);
  if (!declared) return { ops: registry ? [registry.op] : [], registry };
  (ctx.claimed ??= new Set()).add(line);
  const ops = declared.map((id) => {
    const op = ctx.byId.get(id);
    if (!op) throw new Error(`${line}: declares "${id}", which is not an operation of the registry`);
    return op;
  });
  return { ops, registry };
}

function fieldsByFlag({ op }: Leaf): Map<string, Field> {
  const map = new Map<string, Field>();
  for (const f of [...(op.query ?? []), ...(op.body ?? [])]) map.set(`--${flagName(f)}${f.secret ? '-file' : ''}`, f);
  return map;
}

function describeOption(o: Option, fields: Map<string, Field>, serverFlagRequired: boolean): DocOption {
  const field = o.long ? fields.get(o.long) : undefined;
  const choices = o.argChoices ?? (field?.choices ? [...field.choices] : undefined);
  return {
    flags: o.flags,
    names: [o.short, o.long].filter((n): n is string => n !== undefined),
    takesValue: o.required || o.optional,
    required: o.mandatory || field?.required === true || (serverFlagRequired && o.long === '--server'),
    choices: choices ?? null,
    description: o.description,
  };
}

function joined(values: (string | undefined)[] | undefined): string | null {
  const distinct = [...new Set((values ?? []).filter((v): v is string => Boolean(v)))];
  return distinct.length ? distinct.join('; ') : null;
}

/** Lines of the `Example:`/`Examples:` sections of a help text (each up to the next blank line), without `$ `. */
export function exampleLines(text: string): string[] {
  const out: string[] = [];
  let inside = false;
  for (const line of text.split('\n')) {
    if (/^Examples?:\s*$/.test(line)) inside = true;
    else if (line.trim() === '') inside = false;
    else if (inside) out.push(line.trim().replace(/^\$ /, ''));
  }
  return out;
}

/**
 * The text `addHelpText('after', …)` contributes, captured the way --help prints it: commander
 * emits an `afterHelp` event (a Command is an EventEmitter; its typings leave that out).
 */
function helpAfter(cmd: Command): string {
  let text = '';
  (cmd as unknown as EventEmitter).emit('afterHelp', { error: false, command: cmd, write: (s: string) => (text += s) });
  return text.replace(/^\n+/, '').replace(/\s+$/, '');
}
