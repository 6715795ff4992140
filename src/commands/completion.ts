import { outputStream } from '../core/terminal/io.js';
import { Argument, type Command } from 'commander';
import { writeIntoDir } from './dir-output.js';
import { UsageError } from '../core/errors.js';
import type { FromProgram } from './hand-written.js';
import { offline } from './offline.js';

// `gsh completion bash|zsh|fish`: prints the completion script, generated from the command tree.
// `--dir` writes all three under the names each shell looks for (`npm run generate` uses it for
// completions/).

const HELP = `
The scripts hold the whole command tree as data: command words, flags and documented values
(signals, output formats, choices of the API such as event names and sources) complete without
starting gsh. Only -s/--server <TAB> asks the API for your server names (one request with a 2 s
budget, cached for a minute in the config dir, silent when it fails).

Install:
  bash  source <(gsh completion bash)          in ~/.bashrc, or save it as
        ~/.local/share/bash-completion/completions/gsh
  zsh   gsh completion zsh > "\${fpath[1]}/_gsh"  then restart zsh (compinit loads it), or
        source <(gsh completion zsh)          after compinit in ~/.zshrc
  fish  gsh completion fish > ~/.config/fish/completions/gsh.fish

The same scripts ship in the package's completions/ folder.
`;

export function register(cmd: Command, program: FromProgram): void {
  cmd
    .addArgument(new Argument('[shell]', 'bash, zsh or fish').choices(['bash', 'zsh', 'fish']))
    .option('--dir <dir>', 'write all three scripts into this directory instead (gsh.bash, _gsh, gsh.fish)')
    .addHelpText('after', HELP)
    .action(async function (this: Command, shell: 'bash' | 'zsh' | 'fish' | undefined) {
      const { dir } = this.opts<{ dir?: string }>();
      if (!shell && !dir) throw new UsageError('name a shell: bash, zsh or fish', 'For example: gsh completion bash');
      await offline(this, dir ? `write the ${shell ?? 'bash, zsh and fish'} completion scripts into ${dir}` : `print the ${shell} completion script`, async (ctx) => {
        const [tree, { completionScript, COMPLETION_FILES, SHELLS }] = await Promise.all([program.docTree(), import('../docs/generated-files.js')]);
        if (!dir) {
          outputStream(ctx.stdout).write(completionScript(shell as 'bash', tree));
          return;
        }
        writeIntoDir(dir, (shell ? [shell] : SHELLS).map((s) => [COMPLETION_FILES[s], completionScript(s, tree)]));
      });
    });
}
