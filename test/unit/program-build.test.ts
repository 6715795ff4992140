import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { wordsAfter } from '../../src/core/flags/argv.js';
import { buildFullProgram, buildProgram } from '../../src/program.js';

// Start-up builds only what the command line runs: the top-level word's branches that a word of
// argv names. Anything that needs the whole word (its help, a typo's suggestions, an alias) gets
// the whole word, as buildFullProgram does.

function names(program: Command, word: string): string[] {
  return program.commands.find((c) => c.name() === word)!.commands.map((c) => c.name()).sort();
}

describe('buildProgram', () => {
  it('builds only the branch being run', async () => {
    expect(names(await buildProgram(['servers', 'list', '--limit', '5']), 'servers')).toEqual(['list']);
    expect(names(await buildProgram(['--profile', 'p', 'servers', 'get', '-s', 'x']), 'servers')).toEqual(['get']);
    // Global flags that take a value, before the word (this once ran nothing: .id was taken for the word).
    expect(names(await buildProgram(['--jq', '.id', '--columns', 'id', 'servers', 'list']), 'servers')).toEqual(['list']);
  });

  it('builds the whole word for its help, a typo, an alias or a word after a value', async () => {
    const full = names(await buildFullProgram(), 'servers');
    expect(full.length).toBeGreaterThan(5);
    expect(names(await buildProgram(['servers', '--help']), 'servers')).toEqual(full);
    expect(names(await buildProgram(['servers', 'lst']), 'servers')).toEqual(full);
    expect(names(await buildProgram(['servers', 'ls']), 'servers')).toEqual(full);
    // The word finder does not know which flags of a leaf take a value (`-s get` names a server
    // called get): each branch a word names is built.
    expect(names(await buildProgram(['servers', '-s', 'get', 'list']), 'servers')).toEqual(['get', 'list']);
  });

  it('registers the word being run alone; every word by name when argv runs none or one gsh lacks', async () => {
    const all = (await buildFullProgram()).commands.map((c) => c.name()).sort();
    expect((await buildProgram(['servers', 'list'])).commands.map((c) => c.name())).toEqual(['servers']);
    expect((await buildProgram(['--json', 'help', 'power', 'restart'])).commands.map((c) => c.name())).toEqual(['power']);
    expect((await buildProgram([])).commands.map((c) => c.name()).sort()).toEqual(all);
    expect((await buildProgram(['--help'])).commands.map((c) => c.name()).sort()).toEqual(all);
    expect((await buildProgram(['serverz', 'list'])).commands.map((c) => c.name()).sort()).toEqual(all);
  });

  it("a group's help registers its generated verbs without their flags, and reads the same as the whole tree's", async () => {
    const group = (program: Command, ...path: string[]) => path.reduce((c, w) => c.commands.find((s) => s.name() === w)!, program);
    const full = await buildFullProgram();
    for (const path of [['servers'], ['files'], ['files', 'trash'], ['power']]) {
      const asked = await buildProgram([...path, '--help']);
      expect(group(asked, ...path).helpInformation(), path.join(' ')).toBe(group(full, ...path).helpInformation());
    }
    const listed = group(await buildProgram(['servers', '--help']), 'servers', 'list');
    expect(listed.options).toEqual([]);
    expect(group(await buildProgram(['servers', 'list', '--help']), 'servers', 'list').options.length).toBeGreaterThan(3);
    // Past `--` nothing is a help request: the verbs keep their flags.
    expect(group(await buildProgram(['servers', '--', '--help']), 'servers', 'list').options.length).toBeGreaterThan(3);
  });

  it('a hand-written verb being run needs no generated command beside it', async () => {
    const templates = (program: Command) => names(program.commands.find((c) => c.name() === 'init')!, 'templates');
    expect(templates(await buildProgram(['init', '--help']))).toContain('list'); // generated
    expect(templates(await buildProgram(['init', 'lint', 'a.yaml']))).not.toContain('list');
  });
});

describe('wordsAfter', () => {
  it('skips flags, the values of global flags and help', () => {
    expect(wordsAfter(['--profile', 'p', 'help', 'servers', 'list', '--limit', '5', '--', 'x'])).toEqual(['list', '5']);
    expect(wordsAfter(['--jq', '.id', '--columns', 'id', '--request-timeout', '5s', 'servers', 'list'])).toEqual(['list']);
  });
});
