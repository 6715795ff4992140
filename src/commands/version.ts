import type { Command } from 'commander';
import { VERSION } from '../core/version.js';
import { offlineData } from './offline.js';
import type { OperationUses } from './hand-written.js';

// `gsh version`: what a bug report needs (gsh, Node.js, platform), beside `--version` (gsh's alone).

export function register(cmd: Command): void {
  cmd
    .addHelpText('after', `
Examples:
  gsh version
  gsh version -o json`)
    .action(async function (this: Command) {
      // Facts of the Node.js runtime itself, the same in every context.
      const info = { gsh: VERSION, node: process.versions.node, platform: `${process.platform}-${process.arch}` };
      await offlineData(this, 'print the versions of gsh and Node.js and the platform', async () => info, () =>
        `gsh ${info.gsh}\nnode ${info.node}\nplatform ${info.platform}\n`);
    });
}

export const operations: OperationUses = { version: [] };
