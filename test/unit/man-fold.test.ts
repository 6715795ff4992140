import { beforeAll, describe, expect, it } from 'vitest';
import { type DocCommand, exampleLines } from '../../src/docs/command-tree.js';
import { loadDocTree } from '../../src/program.js';
import { foldHelp } from '../../src/docs/man-fold.js';

// Issue 15 item 1: man pages render within 80 columns because help text is folded into the 69
// columns of a literal block. Folding must lose nothing: the same words, and every example still
// the same command once its ` \` continuations are joined.

const COLUMNS = 69;
let helps: [string, string][];

beforeAll(async () => {
  const all: [string, string][] = [];
  const visit = (c: DocCommand): void => {
    if (c.helpAfter) all.push([['gsh', ...c.words].join(' '), c.helpAfter]);
    c.children.forEach(visit);
  };
  visit((await loadDocTree()).root);
  helps = all;
});

/** Words in any order (comments move), with paths broken after a `/` joined again. */
const words = (text: string): string[] =>
  text.replace(/\/\n\s*/g, '/').split(/\s+/).filter((w) => w !== '' && w !== '\\').sort();

/** Continuation lines joined back, and comments moved above a command dropped. */
function unfolded(lines: string[]): string {
  return lines.join('\n').replace(/ \\\n\s*/g, ' ').split('\n').filter((l) => !/^\s*# /.test(l)).join('\n');
}

const commands = (text: string): string[] =>
  exampleLines(text).map((l) => l.replace(/\s{2,}# .*$/, '').replace(/\s+/g, ' ')).filter((l) => !l.startsWith('# '));

describe('foldHelp', () => {
  it('fits every help text of the command tree into a literal block, losing no word', () => {
    expect(helps.length).toBeGreaterThan(100);
    let folded = 0;
    for (const [command, help] of helps) {
      const lines = foldHelp(help, COLUMNS);
      expect(lines.filter((l) => l.length > COLUMNS), command).toEqual([]);
      expect(words(lines.join('\n')), command).toEqual(words(help));
      expect(commands(unfolded(lines)), command).toEqual(commands(help));
      if (lines.join('\n') !== help) folded++;
    }
    expect(folded).toBeGreaterThan(20); // the test says little unless many texts needed folding
  });

  it('continues a long command with a backslash, keeping quoted words and flags with their values whole, the comment above', () => {
    const help = 'Example:\n  gsh advertisement posts create -s lobby -f title="Season 2 of the show" -f body=x  # posts it\n';
    expect(foldHelp(help, 40)).toEqual([
      'Example:',
      '  # posts it',
      '  gsh advertisement posts create \\',
      '      -s lobby \\',
      '      -f title="Season 2 of the show" \\',
      '      -f body=x',
      '',
    ]);
  });

  it('refills a paragraph at the margin, hangs a table row under its description and breaks a path after a slash', () => {
    const help = [
      'One two three four five six seven',
      'eight nine.',
      '  --flag X   the first words of a description',
      '             that goes on',
      '  DELETE /servers/{server_id}/databases/{database_id}',
    ].join('\n');
    expect(foldHelp(help, 30)).toEqual([
      'One two three four five six',
      'seven eight nine.',
      '  --flag X   the first words',
      '             of a description',
      '             that goes on',
      '  DELETE /servers/{server_id}/',
      '    databases/{database_id}',
    ]);
  });

  it('never splits a word of a command, even one too long for the line', () => {
    const help = 'Example:\n  gsh files pull --url https://example.com/a/very/long/path/to/plugin.jar\n';
    expect(foldHelp(help, 30)).toEqual([
      'Example:',
      '  gsh files pull \\',
      '      --url \\',
      '      https://example.com/a/very/long/path/to/plugin.jar',
      '',
    ]);
  });

  it('leaves text that fits as it was written', () => {
    const help = 'Short.\n  two  columns\n\nExample:\n  gsh version\n';
    expect(foldHelp(help, COLUMNS)).toEqual(help.split('\n'));
  });
});
