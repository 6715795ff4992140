// The declaration file's shape (README "Configuration as code"), written in the init linter's
// small schema language (init/schema-types.ts) so that one walker (init/walk.ts) checks it with
// lines and did-you-means, and one converter prints it as JSON Schema (`gsh config schema`).
//
// What can be declared is what the contract shows a read of (02-endpoints-part-a.md "Settings",
// "Startup", "Properties", "Webhooks", "Subusers"); see kinds.ts.

import { toJsonSchema } from '../init/json-schema.js';
import type { ObjectSchema, Schema } from '../init/schema-types.js';
import { KINDS, PRUNABLE } from './kinds.js';

const scalar = (description: string): Schema => ({ type: 'scalar', of: ['string', 'integer', 'number', 'boolean'], description });
const text = (description: string): Schema => ({ type: 'string', description });

const HOOK: ObjectSchema = {
  type: 'object',
  description: 'One webhook; its URL is its identity.',
  required: ['url'],
  properties: {
    url: { type: 'string', check: 'hook-url', description: 'https URL the events are posted to (the identity: a new URL is a new webhook)' },
    events: { type: 'array', items: { type: 'string', check: 'event', description: 'An event type' }, description: 'Event types, compared as a set' },
    enabled: { type: 'boolean', description: 'Whether deliveries are on' },
    secret: text('The signing secret as ${env:NAME}: sent when the webhook is created (or replaced), never read back or compared'),
    replace: { type: 'boolean', description: 'Delete and create the webhook again (the only way to change its secret)' },
  },
};

const SUBUSER: ObjectSchema = {
  type: 'object',
  description: 'One subuser; the panel user id is its identity.',
  required: ['user_id'],
  properties: {
    user_id: { type: 'integer', minimum: 1, description: 'Panel user id (as gsh subusers list shows it)' },
    permissions: { type: 'array', items: { type: 'string', check: 'permission', description: 'A permission' }, description: 'The whole permission set (it replaces the live one), compared as a set' },
  },
};

const itemsOrPruned = (item: ObjectSchema, what: string): Schema => ({
  type: 'list-or-object',
  description: `${what}: a list, or {prune, items} to let apply --prune delete the live ones the list does not name`,
  list: { type: 'array', items: item, description: `The ${what} to keep` },
  object: {
    type: 'object',
    description: `${what} with pruning`,
    required: ['items'],
    properties: {
      prune: { type: 'boolean', description: 'Live items not listed are deleted by apply --prune (at most --max-deletes a run)' },
      items: { type: 'array', items: item, description: `The ${what} to keep` },
    },
  },
});

/** The sections one server's declaration may have (a server file's top level, fleet defaults and entries). */
export const SECTIONS: Readonly<Record<string, Schema>> = {
  settings: {
    type: 'object',
    description: 'Server settings the read returns (timezone, auto_stop and the like are written but never read back: not declarable)',
    properties: {
      name: text('Display name: declaring it renames the server, so it needs an `id:` pin'),
      description: text('Description'),
      done_message: text('Startup-detection message'),
      stop_command: text('Stop command'),
    },
  },
  properties: { type: 'map', values: scalar('A value; compared as text (true equals "true", 60 equals "60")'), description: 'server.properties keys (merged: keys not declared are left alone)' },
  startup: {
    type: 'object',
    description: 'Startup variables (each must belong to the egg; one write per variable)',
    properties: { variables: { type: 'map', values: scalar('A value, compared as text'), description: 'Variable key to value' } },
  },
  configs: {
    type: 'map',
    description: 'Application config files by type (bukkit, spigot, …): dot-notation keys, merged',
    values: { type: 'map', values: scalar('A value, compared as text'), description: 'Dot-notation key to value' },
  },
  hooks: itemsOrPruned(HOOK, 'Webhooks'),
  subusers: itemsOrPruned(SUBUSER, 'Subusers'),
  ignore: { type: 'array', items: text('A path never compared: `properties.motd`, `hooks.enabled`, `subusers`'), description: 'Paths never compared' },
};

const BLOCK: ObjectSchema = { type: 'object', description: 'What one server declares', properties: SECTIONS };

/** The whole file: one server (`server:`) or a fleet (`defaults:`, `servers:`). */
export const FILE_SCHEMA: ObjectSchema = {
  type: 'object',
  description: 'A gsh configuration-as-code file: one server (server:) or a fleet (defaults:, servers:)',
  required: ['version'],
  properties: {
    version: { type: 'integer', const: 1, description: 'Always 1' },
    server: text('The server this file manages, by name'),
    id: text('The server id: pins the file to one server, so settings.name may rename it'),
    defaults: { ...BLOCK, description: 'What every server of the fleet file declares' },
    servers: { type: 'map', values: BLOCK, description: 'Server name or glob → its declaration (defaults, then each matching glob in file order, then the exact name)' },
    ...SECTIONS,
  },
};

export function configJsonSchema(): Record<string, unknown> {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'gsh configuration as code',
    $comment: `Checked beyond this schema by gsh config lint: a file has server: or servers:, never both; a fleet file keeps its sections under defaults: and servers:; settings.name needs id:; a value declared twice; a glob that can never match; prune only for ${PRUNABLE.join(' and ')}; ignore paths name a kind (${KINDS.join(', ')}).`,
    ...toJsonSchema(FILE_SCHEMA),
  };
}
