import { UsageError } from '../errors.js';
import type { Runtime } from './runtime.js';
import { visible } from '../terminal/terminal-text.js';

// Destructive operations (ARCHITECTURE.md "Command grammar": --yes confirms): on a terminal we ask;
// anywhere else we refuse without --yes, so a script never deletes by accident.
export async function confirmDestructive(rt: Runtime, question: string): Promise<void> {
  if (rt.globals.yes) return;
  if (!rt.interactive) {
    throw new UsageError(`${question}: refusing without --yes when not interactive`, 'Re-run with --yes to confirm.');
  }
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: rt.io.stdin, output: rt.io.rawStderr });
  try {
    const answer = await rl.question(`${visible(question)}? [y/N] `);
    if (!/^y(es)?$/i.test(answer.trim())) throw new UsageError('cancelled');
  } finally {
    rl.close();
  }
}
