import type { Feature } from '../feature.js';

// `console.announce`: on the verbs it names, `--announce`, `--countdown` and `--announce-cancel`
// warn the players with `say` before the action (../announce.ts, loaded only when used).

export const announce: Feature = {
  name: 'announce',
  reserves: () => ['announce', 'countdown', 'announce-cancel'],
  flags({ cmd, leaf: { op, verb } }) {
    if (!verb || !op.console?.announce?.includes(verb)) return;
    cmd.option('--announce <message>', `first warn the players: console command "say <message>" at each --countdown point ({left} becomes the time left)`);
    cmd.option('--countdown <times>', 'with --announce: when to announce, as time left before the action, e.g. 5m,1m,10s');
    cmd.option('--announce-cancel <message>', `with --announce: "say <message>" if Ctrl-C stops the countdown (no ${verb} is sent then; exit 130)`);
  },
  help({ op, verb }) {
    if (!verb || !op.console?.announce?.includes(verb)) return {};
    const what = verb === 'restart' ? 'Restart' : 'Shutdown';
    return {
      examples: [
        `  gsh ${op.command} ${verb} -s 'lobby-*' --announce '${what} in {left}' --countdown 5m,1m,10s --announce-cancel '${what} cancelled'`,
        `  gsh ${op.command} ${verb} -s lobby --announce 'Back in a minute ({left})' --countdown 30s,5s --dry-run   # the whole timeline`,
      ],
    };
  },
  async stage({ rt, leaf, local, targets, parallel, planLeaf }) {
    if (local.announce === undefined && local.countdown === undefined && local.announceCancel === undefined) return undefined;
    const { cancelAfterFailure, planAnnouncement, runAnnouncement, withAnnouncement } = await import('../announce.js');
    const readyVerb = leaf.verb !== undefined && leaf.op.console?.ready?.includes(leaf.verb) === true;
    const a = await planAnnouncement(rt, local, targets, parallel, leaf.verb ?? leaf.words.join(' '), planLeaf, readyVerb);
    if (!a) return undefined;
    return {
      plan: async (plan) => withAnnouncement(plan, a, (await rt.client()).rateLimitState),
      before: () => runAnnouncement(rt, a),
      failed: (targetId, err) => cancelAfterFailure(rt, a, targetId, err),
    };
  },
};
