import { UsageError } from '../../core/errors.js';
import type { JsonObject } from '../../core/flags/fields.js';
import type { Feature } from '../feature.js';

// `form`: the body is sent form-encoded (the OAuth endpoints), with flat string values.

function formValues(body: JsonObject): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) {
    if (v !== null && typeof v === 'object') throw new UsageError(`field ${k}: a form body takes plain values`);
    if (v !== null) out[k] = String(v);
  }
  return out;
}

export const form: Feature = {
  name: 'form',
  spec(d, spec) {
    if (!d.leaf.op.form || !d.body) return spec;
    const { body: _json, ...rest } = spec;
    return { ...rest, form: formValues(d.body) };
  },
};
