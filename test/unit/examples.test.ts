import { readFileSync } from 'node:fs';
import type { Command, Option } from 'commander';
import { beforeAll, describe, expect, it } from 'vitest';
import { type DocCommand, exampleLines } from '../../src/docs/command-tree.js';
import { invocations, nodes, README, readmeLines } from '../helpers/examples.js';
import { buildFullProgram, loadDocTree } from '../../src/program.js';

// Issue 11 item 5: every example a person may copy — the `Example:`/`Examples:` sections of every
// help page, and every `gsh …` line of the README — names commands that exist, flags those commands
// take, values among a flag's choices, and as many arguments as the command accepts.

let program: Command;
let docs: DocCommand;
beforeAll(async () => {
  program = await buildFullProgram();
  docs = (await loadDocTree()).root;
});

const optionIn = (chain: Command[], flag: string): Option | undefined => {
  for (const c of [...chain].reverse()) {
    const o = c.options.find((x) => x.long === flag || x.short === flag);
    if (o) return o;
  }
  return undefined;
};

/**
 * What is wrong with `gsh <argv>` against the command tree, or undefined. `…` stands for text the
 * example leaves out, so nothing after it is checked.
 */
export function problemWith(root: Command, argv: readonly string[]): string | undefined {
  const chain = [root];
  let cmd = root;
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '…') return undefined;
    if (a === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    // A default subcommand runs when no other is named (`gsh wait -s lobby` is `gsh wait server -s lobby`).
    const fallback = (cmd as unknown as { _defaultCommandName?: string })._defaultCommandName;
    const named = a.startsWith('-') ? optionIn(chain, a.split('=')[0] as string) !== undefined : cmd.commands.some((c) => c.name() === a || c.aliases().includes(a));
    if (fallback && !named) {
      cmd = cmd.commands.find((c) => c.name() === fallback) as Command;
      chain.push(cmd);
    }
    // Commander gives every command -h, --help: it prints the help of the command named so far.
    if (a === '--help' || a === '-h') return undefined;
    if (a.startsWith('-') && a !== '-') {
      const [flag, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
      const o = optionIn(chain, flag as string);
      if (!o) return `unknown flag ${flag} for \`${chain.slice(1).map((c) => c.name()).join(' ') || 'gsh'}\``;
      if (o.required || o.optional) {
        const value = inline ?? (o.required || !(argv[i + 1] ?? '-').startsWith('-') ? argv[++i] : undefined);
        if (o.required && value === undefined) return `${flag} needs a value`;
        if (value !== undefined && value !== '…' && o.argChoices && !o.argChoices.includes(value)) {
          return `${flag} ${value}: not one of ${o.argChoices.join(', ')}`;
        }
      }
      continue;
    }
    const sub = positionals.length === 0 ? cmd.commands.find((c) => c.name() === a || c.aliases().includes(a)) : undefined;
    if (sub) {
      chain.push(sub);
      cmd = sub;
    } else if (cmd.commands.length > 0) {
      return `unknown command \`${a}\` under \`${chain.map((c) => c.name()).join(' ')}\``;
    } else positionals.push(a);
  }
  if (cmd.commands.length > 0 && chain.length > 1) return `\`${chain.map((c) => c.name()).join(' ')}\` needs a subcommand`;
  const args = cmd.registeredArguments;
  const required = args.filter((x) => x.required).length;
  const most = args.some((x) => x.variadic) ? Infinity : args.length;
  if (positionals.length > most) return `too many arguments for \`${chain.map((c) => c.name()).join(' ')}\` (${positionals.join(' ')})`;
  // `--help` and `--version` need nothing else; otherwise every required argument is there.
  if (positionals.length < required && !argv.some((a) => a === '--help' || a === '-h')) {
    return `missing argument <${args[positionals.length]?.name()}> for \`${chain.map((c) => c.name()).join(' ')}\``;
  }
  return undefined;
}

describe('the checker', () => {
  it('finds each gsh in a pipeline, after env assignments and inside $(…)', () => {
    expect(invocations(`GSH_SERVER=x gsh servers list -q | grep eu- | gsh power restart -s - --wait # note`)).toEqual([
      ['servers', 'list', '-q'], ['power', 'restart', '-s', '-', '--wait'],
    ]);
    expect(invocations(`echo "$(gsh auth token)" && gsh auth status`)).toEqual([['auth', 'token'], ['auth', 'status']]);
  });

  it('fails an unknown command, flag or choice and a wrong number of arguments', () => {
    expect(problemWith(program, ['serverz', 'list'])).toMatch(/unknown command `serverz`/);
    expect(problemWith(program, ['servers', 'list', '--nope'])).toMatch(/unknown flag --nope/);
    expect(problemWith(program, ['servers', 'list', '-o', 'xml'])).toMatch(/not one of/);
    expect(problemWith(program, ['console', 'send', '-s', 'lobby', '--command', 'x'])).toMatch(/unknown flag --command/);
    expect(problemWith(program, ['auth', 'switch'])).toMatch(/missing argument/);
    expect(problemWith(program, ['auth', 'switch', 'a', 'b'])).toMatch(/too many arguments/);
    expect(problemWith(program, ['power', 'restart', '-s', 'lobby', '--wait', '-o', 'json'])).toBeUndefined();
  });
});

describe('examples', () => {
  it('every Example: line of every help page, and every example of `gsh reference`, runs against the command tree', () => {
    const bad: string[] = [];
    let checked = 0;
    for (const node of nodes(docs)) {
      for (const line of [...exampleLines(node.helpAfter), ...(node.example ? [node.example] : [])]) {
        for (const argv of invocations(line)) {
          checked++;
          const problem = problemWith(program, argv);
          if (problem) bad.push(`${line}\n    ${problem}`);
        }
      }
    }
    expect(bad, bad.join('\n')).toEqual([]);
    expect(checked).toBeGreaterThan(600); // every registry leaf shows one in help and one in the reference
  });

  it('every gsh line of the README runs against the command tree', () => {
    const bad: string[] = [];
    let checked = 0;
    for (const line of readmeLines()) {
      for (const argv of invocations(line)) {
        checked++;
        const problem = problemWith(program, argv);
        // Prose may name a command (`gsh sandbox`, `gsh files get`) without running it.
        if (line.endsWith('# inline') && /needs a subcommand|^missing argument/.test(problem ?? '')) continue;
        if (problem) bad.push(`${line}\n    ${problem}`);
      }
    }
    expect(bad, bad.join('\n')).toEqual([]);
    expect(checked).toBeGreaterThan(50);
  });
});

describe('exit codes in the README', () => {
  // Issue 37 item 2: a code named next to what it means agrees with the "Exit codes" table (the
  // Maintenance script once said a crash was 12; it is 13). A clause (split at , ; ( ) and
  // sentence ends) that names a crash, a timeout or a wait that cannot tell, and an exit code,
  // names that meaning's code.
  const readme = readFileSync(README, 'utf8');
  const table = new Map([...readme.matchAll(/^\| (\d+) \| (.*) \|$/gm)].map((m) => [Number(m[1]), m[2] as string]));
  const MEANINGS: ReadonlyArray<[RegExp, number]> = [
    [/crash/i, 13],
    [/timed out|times out|runs out|(?<![-\w])timeout(?!s)/i, 10],
    [/cannot tell|do(?:es)? not say|nothing says/i, 12],
  ];

  /** Every clause naming one of MEANINGS with codes that do not include its code. */
  function mismatches(text: string): string[] {
    const found: string[] = [];
    for (const [i, line] of text.split('\n').entries()) {
      if (/^\| \d+ \|/.test(line)) continue;
      for (const clause of line.split(/[;,()]|\.\s/)) {
        const codes = [...clause.matchAll(/(?:\bexits? |^\s*|\s)(\d{1,3})(?=[ :]|$)/g)].map((m) => Number(m[1])).filter((n) => table.has(n));
        for (const [meaning, code] of MEANINGS) {
          if (codes.length > 0 && meaning.test(clause) && !codes.includes(code)) found.push(`line ${i + 1}: "${clause.trim()}" names ${codes.join(', ')}; the table says ${code}`);
        }
      }
    }
    return found;
  }

  it('the table has the codes the checks name', () => {
    expect(table.get(13)).toMatch(/crashed/);
    expect(table.get(10)).toMatch(/timed out/);
    expect(table.get(12)).toMatch(/cannot tell/);
  });

  it('finds a wrong code', () => {
    expect(mismatches('exit $status      # 0: ready; 11: some are not (12 crashed or stopped, 10 timed out)')).toHaveLength(1);
    expect(mismatches('gsh console send -s lobby "list" --timeout 30s   # exit 10 on timeout')).toEqual([]);
  });

  it('every code named in the README agrees with the table', () => {
    const bad = mismatches(readme);
    expect(bad, bad.join('\n')).toEqual([]);
  });
});
