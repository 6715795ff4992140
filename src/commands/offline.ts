import type { Command } from 'commander';
import type { Context } from '../core/run/context.js';
import { UsageError } from '../core/errors.js';
import { step } from '../core/plan.js';
import { contextOf, rootOf, setExitCode } from '../core/run/run-state.js';

/**
 * Runs a command that never calls the API (lint, schema, completion, man, reference). With
 * --dry-run it says what it would do and does nothing, like every other command; otherwise its
 * exit code becomes the run's. The runtime (and the HTTP client it loads) is imported only for
 * the dry run, so these commands start fast.
 */
export async function offline(cmd: Command, description: string, run: (ctx: Context) => Promise<number | void> | number | void): Promise<void> {
  const globals = rootOf(cmd).opts<{ dryRun?: boolean; jq?: string }>();
  if (globals.jq !== undefined) {
    throw new UsageError(`--jq does not apply to \`gsh ${cmd.parent?.parent ? `${cmd.parent.name()} ` : ''}${cmd.name()}\`: it prints text or a report of its own`, 'Where the command has a JSON format, pipe that into jq.');
  }
  if (globals.dryRun) {
    const { withRuntime } = await import('../core/run/runtime.js');
    await withRuntime(cmd, (rt) => rt.submit({ requests: [], then: [step('local', description)] }, async () => undefined));
    return;
  }
  setExitCode(cmd, (await run(contextOf(cmd))) ?? 0);
}

/**
 * An offline command whose result is data (reference, schema): printed by `text` by default, and
 * through the runtime's output (-o, --jq) when a format is asked for.
 */
export async function offlineData(cmd: Command, description: string, produce: () => Promise<unknown>, text: (data: unknown) => string): Promise<void> {
  const globals = rootOf(cmd).opts<{ dryRun?: boolean; jq?: string; output?: string; json?: boolean }>();
  if (globals.dryRun || globals.jq !== undefined || globals.output !== undefined || globals.json) {
    const { withRuntime } = await import('../core/run/runtime.js');
    await withRuntime(cmd, async (rt) => rt.submit({ requests: [], then: [step('local', description)] }, async () => rt.out.show(await produce())));
    return;
  }
  contextOf(cmd).stdout.write(text(await produce()));
}
