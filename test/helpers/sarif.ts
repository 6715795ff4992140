import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';

// SARIF 2.1.0 as published (the release schema, rtm.5, shipped by @microsoft/jest-sarif): it is
// draft-04 JSON Schema whose only draft-04 keyword in use is its top-level `id`, so Ajv 8 reads
// it once that and `$schema` are set aside.
const SCHEMA_FILE = createRequire(import.meta.url).resolve('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json');

let validator: ValidateFunction | undefined;

function compile(): ValidateFunction {
  const { $schema: _draft, id: _id, ...schema } = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as Record<string, unknown>;
  // unicodeRegExp: false, as the schema was written for: its `language` pattern has a stray `]`,
  // which only a unicode-mode RegExp rejects.
  const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
  formats.default(ajv);
  return ajv.compile(schema);
}

/** Where a SARIF log breaks the official schema: `path: message` lines, none when valid. */
export function sarifProblems(text: string): string[] {
  validator ??= compile();
  if (validator(JSON.parse(text))) return [];
  return (validator.errors ?? []).filter((e) => e.keyword !== 'if').map((e) => `${e.instancePath}: ${e.message ?? e.keyword}`);
}
