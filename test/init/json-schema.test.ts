import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import formats from 'ajv-formats';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { CAPS, type Tier } from '../../src/init/caps.js';
import { manifestJsonSchema } from '../../src/init/json-schema.js';
import { lintBytes } from '../../src/init/lint.js';

// `gsh init schema` (issue 4, item 3): JSON Schema draft-07 from the same definition as the
// linter. Ajv (draft-07 by default; installed with conf) plays the editor's validator here.

const CORPUS = fileURLToPath(new URL('./corpus/', import.meta.url));

function compile(tier: Tier) {
  // strictRequired would flag `oneOf: [{required: [a]}, {required: [b]}]`, the draft-07 idiom for "exactly one of".
  const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
  formats.default(ajv);
  return ajv.compile(manifestJsonSchema(tier));
}

/** Rules whose errors the JSON Schema also expresses, so Ajv must reject too. */
const EXPRESSIBLE = new Set(['unknown-key', 'required', 'type', 'version', 'enum', 'range', 'length', 'one-of', 'checksum', 'file-mode', 'event-name', 'hook-https']);

/** Rules the schema leaves to the linter: the header line, YAML-level shape, and sums over the whole file (plan caps). */
const LINTER_ONLY = ['header', 'yaml-syntax', 'duplicate-key', 'multiple-documents', 'not-a-map', 'plan-cap'];

/** `# json-schema: blind` marks what JSON cannot see (YAML writes 1.0; JSON reads 1). */
function corpus(dir: 'valid' | 'invalid'): { name: string; text: string; tier: Tier; blind: boolean }[] {
  return readdirSync(`${CORPUS}${dir}`).filter((f) => f.endsWith('.yaml')).map((f) => {
    const text = readFileSync(`${CORPUS}${dir}/${f}`, 'utf8');
    return { name: f, text, tier: (/^# tier: (free|paid)/m.exec(text)?.[1] ?? 'paid') as Tier, blind: /^# json-schema: blind\s*$/m.test(text) };
  });
}

function objectsIn(node: unknown, found: Record<string, unknown>[] = []): Record<string, unknown>[] {
  if (Array.isArray(node)) node.forEach((n) => objectsIn(n, found));
  else if (node && typeof node === 'object') {
    const record = node as Record<string, unknown>;
    if (record['type'] === 'object' && record['properties']) found.push(record);
    Object.values(record).forEach((n) => objectsIn(n, found));
  }
  return found;
}

describe('manifest JSON Schema', () => {
  it('is draft-07 and compiles in strict mode', () => {
    expect(manifestJsonSchema('paid')['$schema']).toBe('http://json-schema.org/draft-07/schema#');
    expect(() => compile('paid')).not.toThrow();
  });

  it('rejects unknown keys in every object ("unknown keys anywhere are rejected")', () => {
    const objects = objectsIn(manifestJsonSchema('paid'));
    expect(objects.length).toBeGreaterThan(10);
    for (const object of objects) expect(object['additionalProperties']).toBe(false);
  });

  it('carries the caps of the chosen tier, from the caps table', () => {
    for (const tier of ['free', 'paid'] as const) {
      const schema = manifestJsonSchema(tier) as { properties: Record<string, { maxItems?: number; maxProperties?: number }> };
      expect(schema.properties['files']?.maxItems).toBe(CAPS.files[tier]);
      expect(schema.properties['assets']?.maxItems).toBe(CAPS.assets[tier]);
      expect(schema.properties['schedules']?.maxItems).toBe(CAPS.schedules[tier]);
      expect(schema.properties['hooks']?.maxItems).toBe(CAPS.hooks[tier]);
      expect(schema.properties['access']?.maxItems).toBe(CAPS.access[tier]);
      expect(schema.properties['env']?.maxProperties).toBe(CAPS.envKeys[tier]);
    }
  });

  it.each(corpus('valid').map((c) => [c.name, c] as const))('accepts valid/%s', (_name, c) => {
    const validate = compile(c.tier);
    expect(validate(parse(c.text, { logLevel: 'silent' })), JSON.stringify(validate.errors)).toBe(true);
  });

  // Every invalid case asserts something: the linter rejects it, and the schema's verdict is
  // checked where JSON can see the problem; the rest are listed by why it cannot.
  const invalid = corpus('invalid').map((c) => {
    const errors = lintBytes(Buffer.from(c.text), c.tier).problems.filter((p) => p.severity === 'error');
    let value: unknown;
    let yamlError = false;
    try {
      value = parse(c.text, { uniqueKeys: false, logLevel: 'silent' });
    } catch {
      yamlError = true;
    }
    return { ...c, errors, value, yamlError, expressible: errors.some((p) => EXPRESSIBLE.has(p.rule)) };
  });
  const row = <T extends { name: string }>(c: T) => [c.name, c] as const;

  it('every invalid case is rejected by the linter', () => {
    expect(invalid.length).toBeGreaterThan(0);
    for (const c of invalid) expect(c.errors, c.name).not.toEqual([]);
  });

  it.each(invalid.filter((c) => !c.yamlError && c.expressible).map(row))('agrees with the linter on invalid/%s', (_name, c) => {
    expect(compile(c.tier)(c.value)).toBe(c.blind); // Ajv rejects it too, unless JSON cannot see the problem
  });

  it.each(invalid.filter((c) => c.yamlError).map(row))('invalid/%s is not YAML: nothing for a JSON Schema to see', (_name, c) => {
    expect(c.blind, 'a YAML error needs no blind mark').toBe(false);
    expect(() => parse(c.text, { uniqueKeys: false, logLevel: 'silent' })).toThrow();
  });

  it.each(invalid.filter((c) => !c.yamlError && !c.expressible).map(row))('invalid/%s: only rules the schema leaves to the linter (header, YAML-level, plan caps)', (_name, c) => {
    for (const p of c.errors) expect(LINTER_ONLY, `${c.name}: ${p.rule}`).toContain(p.rule);
    expect(c.blind, 'a blind mark is for a problem the schema could express').toBe(false);
  });
});
