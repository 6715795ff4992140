import { type Feature, slot } from '../feature.js';
import type { ReadySpec } from '../ready.js';

// `console.ready`: on the verbs it names, `--ready [regex]` implies --wait and ends it on a console
// line (../ready.ts, which loads the console socket only when used). The console is opened
// before the request, so no line of the new boot is missed.

const planned = slot<ReadySpec>('ready');

export const ready: Feature = {
  name: 'ready',
  reserves: () => ['ready'],
  flags({ cmd, leaf: { op, verb } }) {
    if (verb && op.console?.ready?.includes(verb)) {
      cmd.option('--ready [regex]', 'implies --wait: wait for a console line matching REGEX (default: the settings\' done_message), ending as soon as it arrives; exit 13 if it crashes or stops first, 12 if there is no pattern');
    }
  },
  help({ op, verb }) {
    if (!verb || !op.console?.ready?.includes(verb)) return {};
    return {
      examples: [
        `  gsh ${op.command} ${verb} -s lobby --ready 'Done \\(' --timeout 5m   # ends on the console line, exit 13 on a crash`,
        `  gsh ${op.command} ${verb} -s lobby --ready              # waits for the settings' done_message`,
      ],
    };
  },
  async refine(p, rt) {
    const { leaf, local } = p;
    if (local.ready === undefined || !leaf.verb || !leaf.op.console?.ready?.includes(leaf.verb)) return p;
    const { planReady, readyPlan } = await import('../ready.js');
    const spec = planReady(local.ready, p.params.server_id as string);
    if (!spec) return p;
    const r = readyPlan(spec, rt);
    // The ready step polls the status itself (--ready implies --wait).
    const next = { ...p, follow: true, state: { ...p.state }, plan: { requests: [...r.requests, ...p.plan.requests], then: [r.before, ...p.plan.then, ...r.then] } };
    planned.set(next, spec);
    return next;
  },
  async beforeSend(x) {
    const { rt, p, out } = x;
    const spec = planned.get(p);
    if (!spec) return;
    const { watchReady } = await import('../ready.js');
    const serverId = p.params.server_id as string;
    // A missing done_message ends here (exit 12), before the power request is sent.
    const watch = await watchReady(rt, p.client, serverId, serverId, spec, { replay: false, stateOnly: '--wait instead of --ready' });
    watch.arm();
    x.cleanups.push(() => watch.close());
    x.waitFor = (work) => (work.kind === 'server-state' ? { ...work, ready: { pattern: watch.pattern.regex } } : work);
    // With --ready the status is polled by the watch, which ends at the ready line, a stop or a crash.
    x.follow = async (work, plain) => {
      if (work.kind !== 'server-state') {
        watch.close();
        return plain();
      }
      try {
        if (work.note && rt.singleTarget) out.note(work.note);
        const r = await watch.until({ state: work.state, ...(work.mustLeave ? { mustLeave: work.mustLeave } : {}) });
        out.note(`ready: ${r.line}`);
        out.ready?.({ line: r.line, seconds: r.seconds });
        return r.final;
      } finally {
        watch.close();
      }
    };
  },
};
