// The declaration file's shape (README "Configuration as code"), written in the init linter's
// small schema language (init/schema-types.ts) so that one walker (init/walk.ts) checks it with
// lines and did-you-means, and one converter prints it as JSON Schema (`gsh config schema`).
//
// What can be declared is what the contract shows a read of: each kind's section schema is its
// own (kinds/), the file's shape around them is here.

import { toJsonSchema } from '../init/json-schema.js';
import type { ObjectSchema, Schema } from '../init/schema-types.js';
import { KIND_NAMES, KINDS, PRUNABLE_NAMES } from './kinds/index.js';

const text = (description: string): Schema => ({ type: 'string', description });

/** The sections one server's declaration may have (a server file's top level, fleet defaults and entries): each server kind's, then ignore. */
export const SECTIONS: Readonly<Record<string, Schema>> = {
  ...Object.fromEntries(KINDS.filter((k) => !k.account).map((k) => [k.name, k.schema])),
  ignore: { type: 'array', items: text('A path never compared: a kind, a key of one (KIND.KEY), or a field of every item of a list kind (KIND.FIELD)'), description: 'Paths never compared' },
};

const BLOCK: ObjectSchema = { type: 'object', description: 'What one server declares', properties: SECTIONS };

/** The whole file: one server (`server:`) or a fleet (`defaults:`, `servers:`). */
export const FILE_SCHEMA: ObjectSchema = {
  type: 'object',
  description: 'A gsh configuration-as-code file: one server (server:), a fleet (defaults:, servers:), or the account\'s own kinds',
  required: ['version'],
  properties: {
    version: { type: 'integer', const: 1, description: 'Always 1' },
    server: text('The server this file manages, by name'),
    id: text('The server id: pins the file to one server, so it may declare a new display name'),
    defaults: { ...BLOCK, description: 'What every server of the fleet file declares' },
    servers: { type: 'map', values: BLOCK, description: 'Server name or glob → its declaration (defaults, then each matching glob in file order, then the exact name)' },
    ...SECTIONS,
    // The account's kinds: at the top of a file of their own (no server:, id: or servers:).
    ...Object.fromEntries(KINDS.filter((k) => k.account).map((k) => [k.name, { ...k.schema, description: `${k.schema.description} (the account's: in a file of their own, without server:)` }])),
  },
};

export function configJsonSchema(): Record<string, unknown> {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'gsh configuration as code',
    $comment: `Checked beyond this schema by gsh config lint: a file has server: or servers:, never both, or only the account's kinds; a fleet file keeps its sections under defaults: and servers:; a rename needs id:; a value declared twice; a glob that can never match; prune only for ${PRUNABLE_NAMES.join(' and ')}; ignore paths name a kind (${KIND_NAMES.join(', ')}).`,
    ...toJsonSchema(FILE_SCHEMA),
  };
}
