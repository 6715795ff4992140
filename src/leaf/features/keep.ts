import { UsageError } from '../../core/errors.js';
import { pick } from '../../core/terminal/output.js';
import type { Feature, Sink } from '../feature.js';
import { slot } from '../feature.js';

// `keep`: a flag that keeps the list items whose field has one value (`servers list --state
// running`). The value is checked while planning against the contract's values; the field is
// asked for in the list's own request (`sends`), so the filter costs no request of its own.

const wanted = slot<string>('keep');

export const keep: Feature = {
  name: 'keep',
  reserves: (op) => (op.keep ? [op.keep.flag] : []),
  flags({ cmd, leaf: { op } }) {
    if (op.keep) cmd.option(`--${op.keep.flag} <value>`, `${op.keep.description}: ${op.keep.choices.join(', ')}`);
  },
  values(d) {
    const k = d.leaf.op.keep;
    const value = k ? d.local[k.flag] : undefined;
    if (!k || value === undefined) return;
    if (!k.choices.includes(String(value))) {
      throw new UsageError(`--${k.flag} must be one of: ${k.choices.join(', ')} (got "${String(value)}")`);
    }
    Object.assign(d.query, k.sends);
    wanted.set(d, String(value));
  },
  async beforeSend(x) {
    const k = x.p.leaf.op.keep;
    const value = wanted.get(x.p);
    if (k && value !== undefined) x.out = keeping(x.out, (item) => pick(item, k.path) === value);
  },
};

/** The sink with only the items `keepIt` keeps, page by page and whole. */
function keeping(out: Sink, keepIt: (item: unknown) => boolean): Sink {
  const only = (data: unknown) => (Array.isArray(data) ? data.filter(keepIt) : data);
  return {
    ...out,
    show: (data, opts) => out.show(only(data), opts),
    ...(out.streamItems ? { streamItems: (items: unknown[], opts) => out.streamItems!(items.filter(keepIt), opts) } : {}),
  };
}
