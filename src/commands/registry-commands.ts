import { type Command, Option } from 'commander';
import type { Family, Field } from '../operations/types.js';
import { accessText } from '../operations/access-text.js';
import { type Leaf, leavesOf } from '../operations/leaves.js';

import { collect } from '../core/flags/fields.js';
import { flagName } from '../core/flags/values.js';
import { FORMATS } from '../core/terminal/output.js';
import { GLOBAL_FLAG_NAMES } from '../core/flags/global-flags.js';
import type { HelpLines } from '../leaf/feature.js';
import { FEATURES } from '../leaf/features/index.js';

// The one builder that turns registry data into commander commands
// (ARCHITECTURE.md "Lessons from other CLIs": stripe-cli's operation.go). Adding an endpoint is
// adding data; this file never names one, and names no operation feature either: each feature's
// module (src/leaf/features/) adds its arguments, flags and help lines.

const DEFAULT_ALIASES: Record<string, string> = { list: 'ls', delete: 'rm' };

/** Finds or makes the group command for `words` under `root` (e.g. `files` → `trash`). */
function group(root: Command, words: readonly string[]): Command {
  let cur = root;
  for (const w of words) {
    let next = cur.commands.find((c) => c.name() === w);
    if (!next) {
      next = cur.command(w);
      next.helpCommand(false);
    }
    cur = next;
  }
  return cur;
}

/**
 * Adds the families' commands under `top` (the command for the first word, already on the
 * program). A leaf a hand-written module already defined is left alone only if the module
 * declares it in `replaces`; an undeclared clash, or a declaration that replaces nothing, is a
 * bug in gsh and throws while the tree is built.
 */
export function addFamilyCommands(top: Command, families: readonly Family[], replaces: readonly string[] = [], words?: readonly string[], { listOnly = false } = {}): void {
  const unused = new Set(replaces);
  const leaves = families.flatMap(leavesOf).filter((leaf) => leaf.words[0] === top.name());
  const branches = onlyBranches(top, leaves, words);
  for (const leaf of leaves) {
    const rest = leaf.words.slice(1);
    if (branches && rest.length > 0 && !branches.has(rest[0]!)) continue;
    if (rest.length === 0) {
      configureLeaf(top, leaf);
      continue;
    }
    const parent = group(top, rest.slice(0, -1));
    const name = rest[rest.length - 1] as string;
    if (parent.commands.some((c) => c.name() === name)) {
      const line = leaf.words.join(' ');
      if (!replaces.includes(line)) {
        throw new Error(`hand-written \`${line}\` clashes with the generated command for ${leaf.op.method} ${leaf.op.path}; list it in its module's \`replaces\``);
      }
      unused.delete(line);
      continue;
    }
    const cmd = parent.command(name);
    // A group's help lists its verbs by name and summary alone: their flags are never read.
    if (listOnly) nameLeaf(cmd, leaf);
    else configureLeaf(cmd, leaf);
  }
  if (unused.size && !branches) throw new Error(`\`replaces\` names commands that replace no generated one: ${[...unused].join(', ')}`);
  describeGroups(top);
}

/**
 * The branches (second words) to build when argv runs one of them: building a word's every leaf
 * with commander is most of the start-up of `gsh servers list`. Any branch a word of argv names is
 * built (a word may be a value); everything is built when the first word names no branch (a typo
 * wants suggestions, a group wants its help) or when there are no words.
 */
function onlyBranches(top: Command, leaves: readonly Leaf[], words: readonly string[] | undefined): Set<string> | undefined {
  const first = words?.[0];
  if (first === undefined) return undefined;
  const named = leaves.some((leaf) => leaf.words[1] === first) || top.commands.some((c) => c.name() === first);
  return named ? new Set(words) : undefined;
}

/** A nested group without words of its own says which verbs it holds (`trash: list, delete, …`). */
function describeGroups(cmd: Command): void {
  for (const sub of cmd.commands) {
    if (sub.commands.length === 0) continue;
    describeGroups(sub);
    if (!sub.description()) sub.description(`${capitalize(sub.name())}: ${sub.commands.map((c) => c.name()).join(', ')}`);
  }
}

/** The leaf each generated command was built from (hand-written commands are not in it). */
export const generatedLeaves = new WeakMap<Command, Leaf>();

/** What a group's help shows of a leaf: its name's aliases and its summary. */
function nameLeaf(cmd: Command, leaf: Leaf): void {
  const { op, verb } = leaf;
  const last = leaf.words[leaf.words.length - 1] as string;
  const aliases = [...(op.aliases ?? []), ...(DEFAULT_ALIASES[last] ? [DEFAULT_ALIASES[last] as string] : [])];
  if (aliases.length) cmd.aliases(aliases);
  cmd.description(verb ? `${capitalize(verb)}: ${op.summary}` : op.summary);
}

function configureLeaf(cmd: Command, leaf: Leaf): void {
  generatedLeaves.set(cmd, leaf);
  const { op } = leaf;
  nameLeaf(cmd, leaf);
  // The names no declared field may take: the global flags and every feature's.
  const taken = new Set([...GLOBAL_FLAG_NAMES, ...FEATURES.flatMap((f) => f.reserves?.(op) ?? [])]);
  for (const f of FEATURES) f.flags?.({ cmd, leaf, addField: (field) => addFieldOption(cmd, field, leaf, taken) });

  // Made when help is shown: a command being run never prints it.
  cmd.addHelpText('after', () => helpFooter(leaf));
  cmd.action(async function action(this: Command) {
    const { runOperation } = await import('../leaf/run.js');
    await runOperation(leaf, this);
  });
}

function addFieldOption(cmd: Command, f: Field, leaf: Leaf, taken: ReadonlySet<string>): void {
  const flag = flagName(f);
  if (taken.has(flag)) {
    throw new Error(`registry: ${leaf.op.method} ${leaf.op.path} field ${f.name} shadows the --${flag} flag; give it a "flag"`);
  }
  const extras = [
    f.required ? 'required' : '',
    f.default !== undefined ? `default ${String(f.default)}` : '',
    f.min !== undefined || f.max !== undefined ? `${f.clamp ? 'clamped to' : 'range'} ${f.min ?? ''}..${f.max ?? ''}` : '',
    f.maxItems !== undefined ? `at most ${f.maxItems}` : '',
  ].filter(Boolean);
  const desc = `${f.description}${extras.length ? ` (${extras.join('; ')})` : ''}`;
  if (f.type === 'boolean') {
    cmd.addOption(new Option(`--${flag}`, desc));
    if (f.sends === undefined) cmd.addOption(new Option(`--no-${flag}`, `send ${f.name}=false`).hideHelp());
    return;
  }
  if (f.secret) {
    // Secrets never travel on argv: the flag names a file (or - for stdin) holding the value.
    cmd.addOption(new Option(`--${flag}-file <file>`, `${desc}; read from a file, or - for stdin`));
    return;
  }
  const valueName = f.type === 'string[]' ? 'items' : f.type === 'integer' || f.type === 'number' ? 'n' : f.type === 'text-file' ? 'file' : 'value';
  const opt = new Option(`--${flag} <${valueName}>`, desc);
  if (f.choices && !f.open) opt.choices(f.choices as string[]);
  if (f.type === 'string[]') opt.argParser(collect).default(undefined);
  cmd.addOption(opt);
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function helpFooter(leaf: Leaf): string {
  const { op } = leaf;
  const help: HelpLines[] = FEATURES.map((f) => f.help?.(leaf) ?? {});
  const example = help.reduce<string>((e, h) => h.example ?? e, op.example);
  const lines = ['', 'Example:', `  ${example}`, ...help.flatMap((h) => h.examples ?? []), '', 'API:'];
  lines.push(`  ${op.method} ${op.path}${help.map((h) => h.request ?? '').join('')}`);
  lines.push(...help.flatMap((h) => h.api ?? []));
  if (op.auth === 'none') lines.push('  no credential needed');
  const { scope, permission } = accessText(op);
  if (scope) lines.push(`  scope: ${scope}`);
  if (permission) lines.push(`  server permission: ${permission}`);
  lines.push(...help.flatMap((h) => h.notes ?? []));
  lines.push(`  output: -o ${FORMATS.join('|')}`);
  return `${lines.join('\n')}\n`;
}
