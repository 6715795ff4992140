import type { Field, Operation } from '../../operations/types.js';
import { UsageError } from '../../core/errors.js';
import type { JsonObject, StdinText } from '../../core/flags/fields.js';
import { convertField, flagName, optionKey, readSecretFlag } from '../../core/flags/values.js';
import type { Local } from '../feature.js';

// Shared by the features that read declared fields: their values from the parsed flags, converted
// and checked (core/flags/values.ts, core/flags/checks.ts), and whether an operation sends a body at all.

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** The methods that send a body take body flags (-f/-F/--input, --no-lint, --if-absent). */
export const takesBody = (op: Operation): boolean => BODY_METHODS.has(op.method);

export function declaredValues(fields: readonly Field[] | undefined, local: Local, stdin: StdinText, skip?: string, inBody = false): JsonObject {
  const out: JsonObject = {};
  for (const f of fields ?? []) {
    if (f.name === skip) continue;
    const raw = local[optionKey(f)];
    const value = f.secret ? readSecretFlag(f, raw, stdin) : convertField(f, raw, stdin, inBody);
    if (value !== undefined) out[f.name] = value;
    else if (f.required) throw new UsageError(`--${flagName(f)} is required`);
  }
  return out;
}
