import { Exit } from '../core/errors.js';
import type { Runtime } from '../core/run/runtime.js';
import { type ApiClient, withIdempotencyKey } from '../core/wire/http.js';
import type { PendingAction, TopState } from './state.js';

// Acting from `gsh top` (README "gsh top"): the marked servers (or the selected one) restarted,
// started or stopped after the confirmation line showed the equivalent command, through the fleet
// runner that command uses (core/fleet/fleet.ts: the client's rate budget, each server its own
// Idempotency-Key, one outcome per server); the outcomes go to the view's last line, not to the
// taken screen.

export async function runAction(rt: Runtime, client: ApiClient, state: TopState, pending: PendingAction, redraw: () => void): Promise<void> {
  const { DEFAULT_PARALLEL, runFleet } = await import('../core/fleet/fleet.js');
  const n = pending.targets.length;
  const what = `${pending.action} on ${n} server${n === 1 ? '' : 's'}`;
  state.actionNote = `${what}: running ${pending.command}`;
  redraw();
  let outcome = '';
  const code = await runFleet(rt, pending.targets, {
    parallel: DEFAULT_PARALLEL,
    mutates: true,
    silent: (results) => {
      const failed = results.filter((r) => !r.ok);
      const name = (id: string | null) => pending.targets.find((t) => t.id === id)?.name ?? id ?? '?';
      outcome = `${results.length - failed.length} ok${failed.length ? `, ${failed.length} failed: ${failed.map((r) => `${name(r.server_id)} (${r.error?.message ?? `exit ${r.exit_code}`})`).join(', ')}` : ''}`;
    },
  }, async (t) => {
    const spec = await withIdempotencyKey({ method: 'POST', path: `/servers/${encodeURIComponent(t.id)}/power`, body: { signal: pending.action } });
    return (await client.request(spec)).body;
  });
  state.marked.clear();
  state.actionNote = `${what}${code === Exit.interrupted || code === Exit.terminated ? ' interrupted' : ''}: ${outcome} (${pending.command})`;
  redraw();
}
