import type { DocCommand, DocOption, DocTree } from './command-tree.js';

// What a completion script needs to know, flattened from the command tree: per command path, its
// subcommands and flags; which flags take a value; the documented values of each flag. The three
// shell renderers embed this as static data, so completing starts nothing (server names after -s
// are the exception: the scripts run `gsh __complete servers`, src/commands/complete.ts).

export interface CompletionWord {
  word: string;
  description: string;
}

export interface CompletionNode {
  /** Command words after `gsh`, joined by one space; '' for the program. */
  path: string;
  subcommands: CompletionWord[];
  /** The command's own flags (the program's flags are in `globals`). */
  flags: CompletionWord[];
  /** Flags of `flags` that take a value. */
  valued: string[];
  /** Flag (every spelling) → documented values. */
  choices: Map<string, string[]>;
}

export interface CompletionData {
  nodes: CompletionNode[];
  /** `servers ls` → `servers list`: the path an alias stands for. */
  aliases: Map<string, string>;
  globals: Omit<CompletionNode, 'path' | 'subcommands'>;
}

export function completionData(tree: DocTree): CompletionData {
  const nodes: CompletionNode[] = [];
  const aliases = new Map<string, string>();
  const visit = (c: DocCommand): void => {
    const path = c.words.join(' ');
    const subcommands: CompletionWord[] = [];
    for (const child of c.children) {
      const name = child.words[child.words.length - 1] as string;
      subcommands.push({ word: name, description: child.summary });
      for (const alias of child.aliases) {
        subcommands.push({ word: alias, description: `alias of ${name}` });
        aliases.set(join(path, alias), join(path, name));
      }
    }
    nodes.push({ path, subcommands, ...flagsOf(c.words.length === 0 ? [] : c.options) });
    c.children.forEach(visit);
  };
  visit(tree.root);
  const globals = flagsOf(tree.globals);
  // Commander gives every command -h, --help without listing it among the options.
  globals.flags.push({ word: '-h', description: 'show help' }, { word: '--help', description: 'show help' });
  return { nodes, aliases, globals };
}

function flagsOf(options: DocOption[]): Omit<CompletionNode, 'path' | 'subcommands'> {
  const flags: CompletionWord[] = [];
  const valued: string[] = [];
  const choices = new Map<string, string[]>();
  for (const o of options) {
    for (const name of o.names) {
      flags.push({ word: name, description: o.description });
      if (o.takesValue) valued.push(name);
      if (o.choices) choices.set(name, o.choices);
    }
  }
  return { flags, valued, choices };
}

function join(path: string, word: string): string {
  return path ? `${path} ${word}` : word;
}

/** A shell word in single quotes (bash, zsh): `it's` → `'it'\''s'`. */
export function quote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** One line of text for a description: control characters and runs of space collapsed. */
export function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}
