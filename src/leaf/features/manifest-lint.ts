import { optionKey } from '../../core/flags/values.js';
import type { Feature } from '../feature.js';
import { takesBody } from './declared-fields.js';

// Body fields with `manifest` (an init manifest's text) are linted before anything is sent, at
// the caps they will be held to: the tier the body names, or free, the stricter, when it names
// none; `--no-lint` skips it. The linter (../manifest-lint.ts, init/) loads only when used.

export const manifestLint: Feature = {
  name: 'manifest lint',
  reserves: () => ['lint'],
  flags({ cmd, leaf: { op } }) {
    if (takesBody(op) && (op.body ?? []).some((f) => f.manifest)) cmd.option('--no-lint', 'send the manifest without linting it locally first');
  },
  async values({ rt, leaf: { op }, local, body }) {
    if (local.lint === false || !body) return;
    for (const f of (op.body ?? []).filter((x) => x.manifest && typeof body[x.name] === 'string')) {
      // An overlay alone is not a manifest (it may leave out `version`): the service checks it merged.
      if (f.manifest!.overlayWith !== undefined && body[f.manifest!.overlayWith] !== undefined) continue;
      const named = body[f.manifest!.tierFrom];
      const tier = named === 'paid' ? 'paid' : 'free';
      const file = String(local[optionKey(f)]);
      if (named === undefined) rt.note(`linting ${file} at the free caps: no ${f.manifest!.tierFrom} given (free is the stricter; -f ${f.manifest!.tierFrom}=paid for a paid server)`);
      const { lintBeforeSending } = await import('../manifest-lint.js');
      await lintBeforeSending(rt, file, Buffer.from(body[f.name] as string), tier, named === undefined ? 'used when no plan is given' : `of the ${tier} plan it creates`);
    }
  },
};
