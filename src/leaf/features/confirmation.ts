import { UsageError } from '../../core/errors.js';
import { step } from '../../core/plan.js';
import { flagName } from '../../core/flags/values.js';
import type { Feature } from '../feature.js';

// `destructive` operations and body fields (`servers reinstall --wipe`): asked on a terminal,
// `--yes` otherwise; refused before anything is sent when there is no one to ask.

export const confirmation: Feature = {
  name: 'confirmation',
  help: ({ op }) => (op.destructive ? { notes: ['  destructive: asks for confirmation on a terminal, needs --yes otherwise'] } : {}),
  targets(d) {
    const { leaf, body, rt, serverRef, args } = d;
    const destructiveFields = (leaf.op.body ?? []).filter((f) => f.destructive && body?.[f.name] === true);
    if (!leaf.op.destructive && !destructiveFields.length) return;
    const where = serverRef !== undefined ? ` on server ${serverRef}` : args.length ? ` ${args.join(' ')}` : '';
    const extra = destructiveFields.length ? ` with ${destructiveFields.map((f) => `--${flagName(f)}`).join(' ')}` : '';
    d.confirm = `Run "gsh ${leaf.words.join(' ')}"${extra}${where}`;
    if (!rt.globals.yes && !rt.interactive && !rt.dryRun) {
      throw new UsageError(`${d.confirm}: refusing without --yes when not interactive`, 'Re-run with --yes to confirm.');
    }
  },
  request(d) {
    if (d.confirm) d.then.push(step('confirm', d.rt.globals.yes ? `${d.confirm}: confirmed by --yes` : `ask "${d.confirm}? [y/N]" on the terminal (--yes confirms)`));
  },
  async beforeSend({ rt, p }) {
    if (!p.confirm) return;
    const { confirmDestructive } = await import('../../core/run/confirm.js');
    await confirmDestructive(rt, p.confirm);
  },
};
