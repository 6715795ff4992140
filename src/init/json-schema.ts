// `gsh init schema`: the manifest schema (manifest-schema.ts) as JSON Schema draft-07, the draft
// yaml-language-server reads. Value checks become patterns or enums where JSON Schema can say
// them; checks the linter only warns about are offered as completions, never enforced. Sums
// across entries (total file size, plugins + mods) cannot be expressed and are listed in
// `$comment`; `gsh init lint` checks them.

import { CAPS, capValue, formatCap, type Tier } from './caps.js';
import { MANIFEST_SCHEMA } from './manifest-schema.js';
import type { CheckName, ObjectSchema, Schema, StringSchema } from './schema-types.js';
import { EVENT_TYPES, HEADER, PERMISSIONS } from './vocabulary.js';

type JsonSchema = Record<string, unknown>;

const hex = (digits: number): JsonSchema => ({ pattern: `^[0-9a-fA-F]{${digits}}$` });

const CHECK_KEYWORDS: Record<CheckName, JsonSchema> = {
  cron: { pattern: '^\\s*\\S+(\\s+\\S+){4}\\s*$' },
  event: { enum: [...EVENT_TYPES] },
  permission: { anyOf: [{ enum: [...PERMISSIONS] }, { type: 'string' }] },
  'hook-url': { format: 'uri', pattern: '^https://' },
  'download-url': { format: 'uri', pattern: '^https?://' },
  'file-mode': { pattern: '^[0-7]{3,4}$' },
  base64: { pattern: '^[A-Za-z0-9+/=\\s]*$' },
  sha1: hex(40),
  sha256: hex(64),
  sha512: hex(128),
  email: {},
  'file-path': {},
};

function stringSchema(schema: StringSchema): JsonSchema {
  return {
    type: schema.numberWarns ? ['string', 'number'] : 'string',
    ...(schema.enum ? { enum: [...schema.enum] } : {}),
    ...(schema.minLength !== undefined ? { minLength: schema.minLength } : {}),
    ...(schema.maxLength !== undefined ? { maxLength: schema.maxLength } : {}),
    ...(schema.check ? CHECK_KEYWORDS[schema.check] : {}),
  };
}

function objectSchema(schema: ObjectSchema, tier: Tier): JsonSchema {
  const properties = Object.fromEntries(Object.entries(schema.properties).map(([key, value]) => [key, convert(value, tier)]));
  return {
    type: 'object',
    properties,
    additionalProperties: false,
    ...(schema.required?.length ? { required: [...schema.required] } : {}),
    ...(schema.exactlyOne ? { oneOf: schema.exactlyOne.map((key) => ({ required: [key] })) } : {}),
    ...(schema.atLeastOne ? { anyOf: schema.atLeastOne.map((key) => ({ required: [key] })) } : {}),
  };
}

function convert(schema: Schema, tier: Tier): JsonSchema {
  const described = (body: JsonSchema): JsonSchema => ({ description: schema.description, ...body });
  switch (schema.type) {
    case 'object':
      return described(objectSchema(schema, tier));
    case 'tagged':
      return described({ type: 'object', oneOf: Object.values(schema.variants).map((variant) => convert(variant, tier)) });
    case 'array': {
      const maxItems = schema.maxItems ?? (schema.maxItemsCap ? capValue(schema.maxItemsCap, tier) : undefined);
      return described({ type: 'array', items: convert(schema.items, tier), ...(maxItems !== undefined ? { maxItems } : {}) });
    }
    case 'map':
      return described({
        type: 'object',
        additionalProperties: convert(schema.values, tier),
        ...(schema.maxKeysCap ? { maxProperties: capValue(schema.maxKeysCap, tier) } : {}),
      });
    case 'list-or-object':
      return described({ oneOf: [convert(schema.list, tier), convert(schema.object, tier)] });
    case 'string':
      return described(stringSchema(schema));
    case 'integer': {
      const maximum = schema.maximum ?? (schema.maximumCap ? capValue(schema.maximumCap, tier) : undefined);
      return described({
        type: 'integer',
        ...(schema.const !== undefined ? { const: schema.const } : {}),
        ...(schema.minimum !== undefined ? { minimum: schema.minimum } : {}),
        ...(maximum !== undefined ? { maximum } : {}),
      });
    }
    case 'boolean':
      return described({ type: 'boolean' });
    case 'scalar':
      return described({ type: [...schema.of], ...(schema.minLength !== undefined ? { minLength: schema.minLength } : {}) });
  }
}

/** Any schema of the language as JSON Schema (config-code's declaration files use it too). */
export function toJsonSchema(schema: Schema, tier: Tier = 'free'): JsonSchema {
  return convert(schema, tier);
}

export function manifestJsonSchema(tier: Tier): JsonSchema {
  const caps = Object.keys(CAPS).map((name) => {
    const key = name as keyof typeof CAPS;
    return `${CAPS[key].label} ${formatCap(key, tier)}`;
  });
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: `Game Server Hosting init manifest (${tier} plan caps)`,
    $comment: `Not expressible here, checked by gsh init lint: the first line must be exactly ${HEADER}; `
      + `the document is at most 48 KB; integers are YAML integers (1, not 1.0 or 1e0); ${tier} plan caps: ${caps.join('; ')}.`,
    ...convert(MANIFEST_SCHEMA, tier),
  };
}
