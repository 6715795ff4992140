import { readFileSync } from 'node:fs';
import { parse, type ParseEntry } from 'shell-quote';
import type { DocCommand } from '../../src/docs/command-tree.js';

// What a person may copy: the `gsh …` lines of the README and of every help page, and the argv of
// each gsh a shell line runs. test/unit/examples.test.ts checks them against the command tree;
// test/e2e/examples-run.test.ts runs them against a sandbox (issue 37 item 2).

/** The README's file. */
export const README = new URL('../../README.md', import.meta.url);

/** Every command of the documented tree, depth first. */
export function* nodes(node: DocCommand): Generator<DocCommand> {
  yield node;
  for (const c of node.children) yield* nodes(c);
}

/** The argv of every `gsh` invocation in a shell line (pipes, `&&`, `;` and `$(…)` split it). */
export function invocations(line: string): string[][] {
  const found: string[][] = [];
  // A command substitution is a command of its own, quoted or not; its output is one word here.
  const flat = line.replace(/\$\(([^()]*)\)/g, (_, inner: string) => {
    found.push(...invocations(inner));
    return 'WORD';
  });
  const tokens: ParseEntry[] = parse(flat, (name) => `$${name}`);
  let current: string[] | undefined;
  let atStart = true;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as ParseEntry;
    if (typeof t !== 'string') {
      if ('comment' in t) break;
      if ('pattern' in t) current?.push(t.pattern); // a glob is a word
      else if (/^[<>]|^\d>/.test(t.op)) i++; // a redirection takes the next word, a file name
      else {
        current = undefined; // `|`, `&&`, `;`, `(` start a new command
        atStart = true;
      }
      continue;
    }
    if (atStart && /^[A-Z_][A-Z0-9_]*=/.test(t)) continue; // VAR=value before a command
    if (atStart) {
      atStart = false;
      if (t === 'gsh') found.push((current = []));
      continue;
    }
    current?.push(t);
  }
  return found;
}

/** Lines of the README a reader would copy: fenced shell blocks, `run:` lines of YAML blocks, and inline `gsh …` code. */
export function readmeLines(): string[] {
  const readme = readFileSync(README, 'utf8');
  const lines: string[] = [];
  let fence: string | undefined;
  for (const line of readme.split('\n')) {
    const open = /^```(\w*)/.exec(line);
    if (open) {
      fence = fence === undefined ? open[1] : undefined;
      continue;
    }
    if (fence === undefined) {
      // Inline spans that read as a command, not a synopsis with <placeholders> or [options].
      for (const m of line.matchAll(/`(gsh [^`]*)`/g)) if (!/[<[]/.test(m[1] as string)) lines.push(`${m[1]} # inline`);
    } else if (fence === 'yaml' || fence === 'yml') {
      const run = /^\s*-?\s*(?:run|entry):\s*(.*gsh .*)$/.exec(line);
      if (run) lines.push(run[1] as string);
    } else if (fence !== 'json') lines.push(line);
  }
  return lines.filter((l) => /\bgsh\b/.test(l));
}


/** The fenced blocks of the README with the heading they sit under, in order. */
export function readmeBlocks(): { heading: string; lang: string; text: string }[] {
  const blocks: { heading: string; lang: string; text: string }[] = [];
  let heading = '';
  let open: { heading: string; lang: string; lines: string[] } | undefined;
  for (const line of readFileSync(README, 'utf8').split('\n')) {
    const fence = /^```(\w*)/.exec(line);
    if (fence && !open) open = { heading, lang: fence[1] ?? '', lines: [] };
    else if (fence && open) {
      blocks.push({ heading: open.heading, lang: open.lang, text: open.lines.join('\n') });
      open = undefined;
    } else if (open) open.lines.push(line);
    else if (/^#+ /.test(line)) heading = line.replace(/^#+ /, '');
  }
  return blocks;
}
