import { UsageError } from '../errors.js';
import type { Runtime } from './runtime.js';
import { visible } from '../terminal/terminal-text.js';

// Destructive operations (ARCHITECTURE.md "Command grammar": --yes confirms): on a terminal we ask
// (through the person door, core/person/ask.ts); anywhere else we refuse without --yes, so a
// script never deletes by accident. `question` is whole ("Delete server x (id)? This cannot be
// undone."); its service text passes visible().
export async function confirmDestructive(rt: Runtime, question: string): Promise<void> {
  if (rt.globals.yes) return;
  if (!rt.interactive) {
    throw new UsageError(`${question.replace(/\?.*$/s, '')}: refusing without --yes when not interactive`, 'Re-run with --yes to confirm.');
  }
  const { askYesNo } = await import('../person/ask.js');
  if (!(await askYesNo(rt, visible(question.endsWith('?') || question.endsWith('.') ? question : `${question}?`)))) throw new UsageError('cancelled');
}
