import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { handWritten } from '../../src/commands/index.js';
import { addFamilyCommands } from '../../src/commands/registry-commands.js';
import { buildFullProgram } from '../../src/program.js';
import { loadFamilies, topWords } from '../../src/operations/index.js';

// Issue 11 item 5: a hand-written command that takes a generated one's place is declared as such;
// an undeclared clash, or a declaration that replaces nothing, throws while the tree is built.
async function consoleWord(): Promise<{ top: Command; families: Awaited<ReturnType<typeof loadFamilies>> }> {
  const top = new Command('console');
  top.command('send').description('hand-written');
  return { top, families: await loadFamilies(topWords.console!.families) };
}

describe('hand-written commands that replace generated ones', () => {
  it('an undeclared clash throws, naming the command and the operation it hides', async () => {
    const { top, families } = await consoleWord();
    expect(() => addFamilyCommands(top, families)).toThrow(/hand-written `console send` clashes with the generated command for POST \/servers\/\{server_id\}\/commands/);
  });

  it('a declared replacement keeps the hand-written command and adds the other generated ones', async () => {
    const { top, families } = await consoleWord();
    addFamilyCommands(top, families, ['console send']);
    expect(top.commands.filter((c) => c.name() === 'send').map((c) => c.description())).toEqual(['hand-written']);
    expect(top.commands.length).toBeGreaterThan(1);
  });

  it('a declaration that replaces nothing throws', async () => {
    const { top, families } = await consoleWord();
    expect(() => addFamilyCommands(top, families, ['console send', 'console nope'])).toThrow(/replace no generated one: console nope/);
  });

  it('the whole tree builds: every hand-written module declares exactly what it replaces', async () => {
    const program = await buildFullProgram();
    for (const word of Object.keys(handWritten)) expect(program.commands.some((c) => c.name() === word), word).toBe(true);
  });
});
