import type { Command } from 'commander';
import type { Context } from '../core/context.js';
import { step } from '../core/plan.js';
import { contextOf, rootOf, setExitCode } from '../core/run-state.js';

/**
 * Runs a command that never calls the API (lint, schema, completion, man, reference). With
 * --dry-run it says what it would do and does nothing, like every other command; otherwise its
 * exit code becomes the run's. The runtime (and the HTTP client it loads) is imported only for
 * the dry run, so these commands start fast.
 */
export async function offline(cmd: Command, description: string, run: (ctx: Context) => Promise<number | void> | number | void): Promise<void> {
  if (rootOf(cmd).opts<{ dryRun?: boolean }>().dryRun) {
    const { withRuntime } = await import('../core/runtime.js');
    await withRuntime(cmd, (rt) => rt.submit({ requests: [], then: [step('local', description)] }, async () => undefined));
    return;
  }
  setExitCode(cmd, (await run(contextOf(cmd))) ?? 0);
}
