import { fillTemplate } from '../../operations/leaves.js';
import { UsageError } from '../../core/errors.js';
import type { RequestSpec } from '../../core/wire/http.js';
import { step } from '../../core/plan.js';
import { type Feature, slot } from '../feature.js';
import { takesBody } from './declared-fields.js';

// `ifAbsent`: `--if-absent` lists the collection first and creates nothing when an item already
// has the body's value at the field (servers by name, hooks by URL); core/wire/if-absent.ts looks.

const planned = slot<{ lookup: RequestSpec; field: string; value: unknown }>('ifAbsent');

export const ifAbsent: Feature = {
  name: 'if-absent',
  reserves: () => ['if-absent'],
  flags({ cmd, leaf: { op } }) {
    if (takesBody(op) && op.ifAbsent) cmd.option('--if-absent', `create only if none has the same ${op.ifAbsent.field}; otherwise print the existing one and exit 0 (several: exit 6)`);
  },
  request(d) {
    const { op } = d.leaf;
    if (d.local.ifAbsent !== true || !op.ifAbsent) return;
    const { list, field } = op.ifAbsent;
    const value = d.body?.[field];
    if (value === undefined || value === null || value === '') {
      throw new UsageError(`--if-absent looks for an existing one by ${field}; give it (-f ${field}=… or its flag)`);
    }
    const lookup: RequestSpec = { method: 'GET', path: fillTemplate(list, (name) => d.params[name] ?? '') };
    planned.set(d, { lookup, field, value });
    d.before.push(lookup);
    d.then.push(step('local', `send the next request only if no item of ${lookup.path} has ${field} ${JSON.stringify(value)}`));
  },
  async beforeSend({ p, out }) {
    const absent = planned.get(p);
    if (!absent) return;
    const { findExisting } = await import('../../core/wire/if-absent.js');
    const existing = await findExisting(p.client, absent.lookup.path, absent.field, absent.value);
    if (!existing) return;
    out.note(`${absent.field} ${JSON.stringify(absent.value)} exists (${existing.id}); nothing created (--if-absent)`);
    await out.show(existing.item);
    return true;
  },
};
