import type { Command } from 'commander';
import { step } from '../core/plan.js';
import { withRuntime } from '../core/run/runtime.js';
import type { OperationUses } from './hand-written.js';

// `gsh cache` (README "Remembered servers"): what gsh remembers between runs to send fewer
// requests, and how to forget it. Nothing here talks to the service.

export function register(cmd: Command): void {
  cmd
    .command('clear')
    .description('Forget every remembered server (ids that names and ids resolved to), for every profile')
    .addHelpText('after', '\nThe next command that names a server looks it up again (one GET /servers).\n\nExample:\n  gsh cache clear\n')
    .action(async function (this: Command) {
      await withRuntime(this, async (rt) => {
        const { cachePath, clearCache } = await import('../core/fleet/server-cache.js');
        return rt.submit({ requests: [], then: [step('local', `remove ${cachePath(rt.env)}`)] }, async () => {
          rt.note(clearCache(rt.env) ? `Removed ${cachePath(rt.env)}` : `Nothing remembered (${cachePath(rt.env)} does not exist)`);
        });
      });
    });

  cmd
    .command('path')
    .description('Print where remembered servers are kept')
    .addHelpText('after', '\nExample:\n  gsh cache path\n')
    .action(async function (this: Command) {
      await withRuntime(this, async (rt) => {
        const { cachePath } = await import('../core/fleet/server-cache.js');
        rt.io.stdout.write(`${cachePath(rt.env)}\n`);
      });
    });
}

export const operations: OperationUses = { 'cache clear': [], 'cache path': [] };
