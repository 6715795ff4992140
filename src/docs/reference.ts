import { type DocCommand, type DocTree, leaves } from './command-tree.js';

// `gsh reference`: the command tree joined with the registry, as JSON for tools (one entry per
// leaf command) and as text for reading.

export interface ReferenceEntry {
  command: string;
  summary: string;
  operations: { method: string; path: string }[];
  scope: string | null;
  permission: string | null;
  arguments: { name: string; required: boolean }[];
  options: { flags: string; required: boolean; choices: string[] | null }[];
  /** A full invocation from the registry, where there is one. */
  example: string | null;
}

/**
 * Generated commands come first: where a hand-written convenience (files put) shares an
 * operation with the generated command (files upload), a tool that takes the first command
 * naming an operation gets the one whose arguments are only the operation's own.
 */
export function referenceEntries(tree: DocTree): ReferenceEntry[] {
  const all = leaves(tree.root);
  return [...all.filter((c) => c.generated), ...all.filter((c) => !c.generated)].map((c) => ({
    command: c.words.join(' '),
    summary: c.summary,
    operations: c.operations,
    scope: c.scope,
    permission: c.permission,
    arguments: c.arguments.map(({ name, required }) => ({ name, required })),
    options: c.options.map(({ flags, required, choices }) => ({ flags, required, choices })),
    example: c.example,
  }));
}

export function formatReference(tree: DocTree): string {
  const out = ['Global flags (every command):', ...tree.globals.map((o) => `  ${optionText(o)}`), ''];
  for (const c of leaves(tree.root)) out.push(...leafText(c), '');
  return `${out.join('\n').trimEnd()}\n`;
}

function leafText(c: DocCommand): string[] {
  const args = c.arguments.map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`));
  const lines = [`gsh ${[...c.words, ...args].join(' ')}`, `  ${c.summary}`];
  for (const op of c.operations) lines.push(`  API: ${op.method} ${op.path}`);
  if (c.scope) lines.push(`  scope: ${c.scope}`);
  if (c.permission) lines.push(`  permission: ${c.permission}`);
  for (const o of c.options) lines.push(`  ${optionText(o)}`);
  return lines;
}

function optionText(o: { flags: string; required: boolean; choices: string[] | null; description: string }): string {
  const notes = [o.required ? 'required' : '', o.choices ? `one of ${o.choices.join(', ')}` : ''].filter(Boolean);
  return `${o.flags}  ${o.description}${notes.length ? ` [${notes.join('; ')}]` : ''}`;
}
