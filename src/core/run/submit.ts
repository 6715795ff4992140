import { GshError, ownError } from '../errors.js';
import { OutcomeTracker, type RunOutcomes, settleOutcome } from '../outcome.js';
import type { Plan } from '../plan.js';
import type { RuntimeView } from './runtime-view.js';

// The one fork between planning and executing (ARCHITECTURE.md "Plan, then execute"): with
// --dry-run the plan is printed and nothing is sent; otherwise `execute` carries it out.

export async function submit(rt: RuntimeView & { readonly dryRun: boolean; readonly outcomes: RunOutcomes }, plan: Plan, execute: () => Promise<number | void>): Promise<number | void> {
  if (!rt.dryRun) {
    // A failure states what the command's change did (core/outcome.ts): what it sent, or
    // not_applied when it failed before sending the change its plan names.
    const tracker = new OutcomeTracker();
    try {
      return await rt.outcomes.track(tracker, execute);
    } catch (caught) {
      const err = ownError(caught);
      if (err instanceof GshError) settleOutcome(err, tracker, plan.requests.some((r) => r.method !== 'GET'));
      throw err;
    }
  }
  const { printPlan } = await import('./plan-output.js');
  await printPlan(rt, plan);
  return 0;
}
