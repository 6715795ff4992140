import { UsageError } from '../../core/errors.js';
import { step } from '../../core/plan.js';
import type { Draft, Feature } from '../feature.js';
import { confirmQuestion, destructiveAction } from '../confirm-question.js';

// `destructive` operations and body fields (`servers reinstall --wipe`): asked on a terminal,
// `--yes` otherwise; refused before anything is sent when there is no one to ask. The question
// says what will happen, named as the registry names it (confirm-question.ts).

function action(d: Draft, server?: { id?: string; name?: string }): string | undefined {
  return destructiveAction(d.leaf.op, d.leaf.words, d.args, d.body, d.serverRef !== undefined ? { server: { ref: d.serverRef, ...server } } : {});
}

export const confirmation: Feature = {
  name: 'confirmation',
  help: ({ op }) => (op.destructive ? { notes: ['  destructive: asks for confirmation on a terminal, needs --yes otherwise'] } : {}),
  targets(d) {
    const what = action(d);
    if (what === undefined) return;
    d.confirm = confirmQuestion(what);
    if (!d.rt.globals.yes && !d.rt.interactive && !d.rt.dryRun) {
      throw new UsageError(`${what}: refusing without --yes when not interactive`, 'Re-run with --yes to confirm.');
    }
  },
  request(d) {
    if (!d.confirm) return;
    // The server is resolved now: the question names it with its id.
    const id = d.params.server_id;
    const ref = d.rt.references.find((r) => r.ref === d.serverRef);
    const name = ref?.servers.find((s) => s.id === id)?.name ?? (ref?.is === 'name' ? d.serverRef : undefined);
    d.confirm = confirmQuestion(action(d, { ...(id ? { id } : {}), ...(name ? { name } : {}) }) as string);
    d.then.push(step('confirm', d.rt.globals.yes ? `${d.confirm.replace(/\?.*$/, '')}: confirmed by --yes` : `ask "${d.confirm} [y/N]" on the terminal (--yes confirms)`));
  },
  async beforeSend({ rt, p }) {
    if (!p.confirm) return;
    const { confirmDestructive } = await import('../../core/run/confirm.js');
    await confirmDestructive(rt, p.confirm);
  },
};
