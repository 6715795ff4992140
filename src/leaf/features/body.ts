import { UsageError } from '../../core/errors.js';
import { collect, type JsonObject, parseFields, readInputBody } from '../../core/flags/fields.js';
import type { Operation } from '../../operations/types.js';
import { HIDDEN, SET, type SecretFields } from '../../core/secrets-shown.js';
import type { Feature } from '../feature.js';
import { declaredValues, takesBody } from './declared-fields.js';

// `body`: declared body fields become flags; `-f`/`-F` add fields of any name and `--input` takes
// the whole body from a file or stdin, the flags merged over it (core/flags/fields.ts).

export const body: Feature = {
  name: 'body',
  reserves: () => ['raw-field', 'field', 'input'],
  flags({ cmd, leaf: { op }, addField }) {
    if (!takesBody(op)) return;
    // The verbs field is the command's last word, not a flag (features/verbs.ts).
    for (const f of op.body ?? []) if (f.name !== op.verbs?.field) addField(f);
    cmd.option('-f, --raw-field <key=value>', 'add a string body field (repeatable; a[b]= and a[]= nest)', collect);
    cmd.option('-F, --field <key=value>', 'add a typed body field: true/false/null/numbers, @file, @- (repeatable)', collect);
    cmd.option('--input <file>', 'JSON body from a file, or - for stdin (fields and flags are merged over it)');
  },
  values(d) {
    const { op } = d.leaf;
    if (!takesBody(op)) return;
    const { local, stdin } = d;
    const base = local.input !== undefined ? readInputBody(String(local.input), stdin) : {};
    if (base === null || typeof base !== 'object' || Array.isArray(base)) throw new UsageError('--input must hold a JSON object');
    const body = { ...(base as JsonObject), ...declaredValues(op.body, local, stdin, op.verbs?.field, true) };
    parseFields({ raw: local.rawField as string[] | undefined, typed: local.field as string[] | undefined, readStdin: () => stdin.take() }, body);
    d.body = body;
  },
};

/**
 * The answer's secret fields: the operation's `secret` body fields, `[set]` when this request sent
 * the value (the user has it), `[hidden]` when the service made it (core/secrets-shown.ts).
 */
export function secretFields(op: Operation, sent: unknown): SecretFields {
  const given = sent as Record<string, unknown> | undefined;
  return new Map((op.body ?? []).filter((f) => f.secret).map((f) => [f.name, given?.[f.name] !== undefined ? SET : HIDDEN]));
}
