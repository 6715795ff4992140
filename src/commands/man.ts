import { outputStream } from '../core/terminal/io.js';
import type { Command } from 'commander';
import { writeIntoDir } from './dir-output.js';
import { UsageError } from '../core/errors.js';
import type { FromProgram } from './hand-written.js';
import { offline } from './offline.js';

// `gsh man [command]`: prints a manual page (gsh.1, or gsh-<command>.1) generated from the command
// tree and help; `--dir` writes every page (`npm run generate` uses it for man/).

const HELP = `
Examples:
  $ gsh man servers | man -l -
  $ gsh man --dir ~/.local/share/man/man1

The same pages ship in the package's man/ folder.
`;

export function register(cmd: Command, program: FromProgram): void {
  cmd
    .argument('[command]', 'a top-level command such as servers (default: the gsh.1 overview)')
    .option('--dir <dir>', 'write every page into this directory (and remove gsh-*.1 pages of commands that no longer exist)')
    .addHelpText('after', HELP)
    .action(async function (this: Command, word: string | undefined) {
      const { dir } = this.opts<{ dir?: string }>();
      if (word && dir) throw new UsageError('--dir writes every page; give no command with it');
      await offline(this, dir ? `write every manual page into ${dir}` : `print the manual page ${word ? `gsh-${word}.1` : 'gsh.1'}`, async (ctx) => {
        const [tree, { manPages }] = await Promise.all([program.docTree(), import('../docs/man.js')]);
        const pages = manPages(tree);
        if (!dir) {
          const file = word ? `gsh-${word}.1` : 'gsh.1';
          const page = pages.get(file);
          if (!page) throw new UsageError(`no command named "${word}"`, 'See gsh --help for the commands.');
          outputStream(ctx.stdout).write(page);
          return;
        }
        writeIntoDir(dir, pages, (file) => /^gsh(-.*)?\.1$/.test(file) && !pages.has(file));
      });
    });
}
