import { bashScript } from './completion-bash.js';
import { completionData } from './completion-data.js';
import { fishScript } from './completion-fish.js';
import { zshScript } from './completion-zsh.js';
import type { DocTree } from './command-tree.js';
import { manPages } from './man.js';

// The committed generated files (ARCHITECTURE.md "Stack and distribution": completions/ and man/),
// produced from one tree by the same code as `gsh completion`, `gsh man` and the staleness test.

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** Where each script lives in completions/: the name each shell's loader looks for. */
export const COMPLETION_FILES: Record<Shell, string> = { bash: 'gsh.bash', zsh: '_gsh', fish: 'gsh.fish' };

export function completionScript(shell: Shell, tree: DocTree): string {
  const data = completionData(tree);
  return { bash: bashScript, zsh: zshScript, fish: fishScript }[shell](data);
}

/** Repository-relative path → content, for every file of completions/ and man/. */
export function generatedFiles(tree: DocTree): Map<string, string> {
  const files = new Map<string, string>();
  for (const shell of SHELLS) files.set(`completions/${COMPLETION_FILES[shell]}`, completionScript(shell, tree));
  for (const [file, page] of manPages(tree)) files.set(`man/${file}`, page);
  return files;
}
