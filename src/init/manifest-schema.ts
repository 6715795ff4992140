// The init manifest, defined once (01-general-contract.md, "Init manifest"). The linter walks this
// definition and `gsh init schema` turns it into JSON Schema. Per-plan caps are named, not inlined
// (caps.ts); rules that span several fields (totals, known limitations) live in aggregate.ts.

import { MAX_TASKS_PER_SCHEDULE, RUN_TIMEOUT_MAX_SECONDS } from './caps.js';
import type { ArraySchema, ObjectSchema, Schema, StringSchema } from './schema-types.js';
import { FINAL_STATES, LOADERS, TASK_ACTIONS } from './vocabulary.js';

const versionString = (description: string): StringSchema =>
  ({ type: 'string', description, numberWarns: true });

const downloadUrl: StringSchema = {
  type: 'string', check: 'download-url', description: 'Absolute http(s) URL to download.',
};

const declaredSize = (description: string): Schema =>
  ({ type: 'integer', minimum: 0, maximumCap: 'singleDownload', description });

const checksum = (check: 'sha1' | 'sha256' | 'sha512', hexLength: number): StringSchema =>
  ({ type: 'string', check, description: `${check.toUpperCase()} of the download, ${hexLength} hex digits.` });

const contentEntry: Schema = {
  type: 'tagged',
  tag: 'source',
  description: 'A plugin or mod: a provider_a project, or a direct download.',
  variants: {
    provider_a: {
      type: 'object',
      description: 'A provider_a project.',
      required: ['source', 'id'],
      properties: {
        source: { type: 'string', enum: ['provider_a'], description: 'Where the file comes from.' },
        id: { type: 'scalar', of: ['string', 'integer'], minLength: 1, description: 'The provider_a project id.' },
        version: versionString('Pinned project version; latest compatible when omitted.'),
      },
    },
    url: {
      type: 'object',
      description: 'A direct download.',
      required: ['source', 'url', 'size'],
      properties: {
        source: { type: 'string', enum: ['url'], description: 'Where the file comes from.' },
        url: downloadUrl,
        size: declaredSize('Declared size in bytes.'),
        sha512: checksum('sha512', 128),
        sha1: checksum('sha1', 40),
      },
    },
  },
};

const contentList = (what: string): ArraySchema => ({
  type: 'array',
  items: contentEntry,
  description: `${what} to install; plugins and mods together are capped per plan.`,
});

const eventName: StringSchema = { type: 'string', check: 'event', description: 'A webhook event type.' };

const task: ObjectSchema = {
  type: 'object',
  description: 'One step of a schedule.',
  required: ['action', 'payload'],
  properties: {
    action: { type: 'string', enum: TASK_ACTIONS, description: 'What the task does.' },
    payload: { type: 'string', description: 'The command, power action or backup argument.' },
    time_offset: { type: 'integer', minimum: 0, description: 'Seconds after the previous task.' },
  },
};

const runObject: ObjectSchema = {
  type: 'object',
  description: 'Console commands with a timeout and the state to leave the server in.',
  required: ['commands'],
  properties: {
    commands: {
      type: 'array', maxItemsCap: 'runCommands', description: 'Console commands, in order.',
      items: { type: 'string', description: 'A console command.' },
    },
    timeout: {
      type: 'integer', minimum: 1, maximum: RUN_TIMEOUT_MAX_SECONDS,
      description: `Seconds to wait for the commands (default 120, max ${RUN_TIMEOUT_MAX_SECONDS}).`,
    },
    final_state: { type: 'string', enum: FINAL_STATES, description: 'State to leave the server in.' },
  },
};

export const MANIFEST_SCHEMA: ObjectSchema = {
  type: 'object',
  description: 'An init manifest: what a server does on first boot. The first line must be exactly `#service-init`.',
  required: ['version'],
  properties: {
    version: { type: 'integer', const: 1, description: 'Manifest format version; must be 1.' },
    application: {
      type: 'object',
      description: 'The application to install (ids and slugs from `GET /applications`).',
      atLeastOne: ['slug', 'id'],
      properties: {
        slug: { type: 'string', minLength: 1, description: 'Application slug.' },
        id: { type: 'scalar', of: ['string', 'integer'], minLength: 1, description: 'Application id.' },
        version: versionString('Application version.'),
        java: { type: 'integer', minimum: 1, description: 'Java major version, e.g. 21.' },
        loader: { type: 'string', enum: LOADERS, description: 'Server software / mod loader.' },
      },
    },
    plugins: contentList('Plugins'),
    mods: contentList('Mods'),
    env: {
      type: 'map',
      maxKeysCap: 'envKeys',
      description: 'Environment variables.',
      values: { type: 'scalar', of: ['string', 'number', 'boolean'], description: 'Variable value.' },
    },
    startup: {
      type: 'object',
      description: 'Startup settings.',
      required: ['command'],
      properties: { command: { type: 'string', description: 'Startup command.' } },
    },
    files: {
      type: 'array',
      maxItemsCap: 'files',
      description: 'Files to write.',
      items: {
        type: 'object',
        description: 'A file to write; exactly one of `content` or `content_base64`.',
        required: ['path'],
        exactlyOne: ['content', 'content_base64'],
        properties: {
          path: { type: 'string', minLength: 1, check: 'file-path', description: 'Path on the server.' },
          content: { type: 'string', description: 'UTF-8 text content.' },
          content_base64: { type: 'string', check: 'base64', description: 'Base64-encoded content.' },
          mode: { type: 'string', check: 'file-mode', description: "Octal mode as a string, e.g. '0644'." },
          append: { type: 'boolean', description: 'Append to the file instead of replacing it.' },
        },
      },
    },
    assets: {
      type: 'array',
      maxItemsCap: 'assets',
      description: 'Files to download; total size capped per plan.',
      items: {
        type: 'object',
        description: 'A download; a checksum is recommended.',
        required: ['url', 'size'],
        properties: {
          url: downloadUrl,
          size: declaredSize('Size in bytes (required).'),
          sha256: checksum('sha256', 64),
          sha512: checksum('sha512', 128),
          sha1: checksum('sha1', 40),
          extract: { type: 'boolean', description: 'Extract the archive after download.' },
          extract_path: { type: 'string', description: 'Where to extract the archive.' },
        },
      },
    },
    run: {
      type: 'list-or-object',
      description: 'Console commands to run after first start: a list, or an object with `commands`.',
      list: { ...runObject.properties['commands'] as ArraySchema },
      object: runObject,
    },
    schedules: {
      type: 'array',
      maxItemsCap: 'schedules',
      description: 'Schedules to create.',
      items: {
        type: 'object',
        description: 'A schedule triggered by exactly one of a 5-field `cron` or an `event`.',
        required: ['name'],
        exactlyOne: ['cron', 'event'],
        properties: {
          name: { type: 'string', minLength: 1, description: 'Schedule name.' },
          cron: { type: 'string', check: 'cron', description: '5-field cron: minute hour day-of-month month day-of-week.' },
          event: eventName,
          only_when_online: { type: 'boolean', description: 'Run only while the server is online.' },
          tasks: {
            type: 'array', maxItems: MAX_TASKS_PER_SCHEDULE, items: task,
            description: `Up to ${MAX_TASKS_PER_SCHEDULE} tasks.`,
          },
        },
      },
    },
    hooks: {
      type: 'array',
      maxItemsCap: 'hooks',
      description: 'Webhooks to register (same delivery contract as webhooks).',
      items: {
        type: 'object',
        description: 'A webhook.',
        required: ['url', 'events'],
        properties: {
          url: { type: 'string', check: 'hook-url', description: 'https URL that does not resolve to a private address.' },
          events: { type: 'array', items: eventName, description: 'Event types to deliver.' },
          secret: {
            type: 'string', minLength: 16, maxLength: 128,
            description: 'Signing secret, 16 to 128 characters; generated when omitted.',
          },
        },
      },
    },
    access: {
      type: 'array',
      maxItemsCap: 'access',
      description: 'Subuser grants.',
      items: {
        type: 'object',
        description: 'A grant to one of `email`, `username` or `user_id`.',
        required: ['permissions'],
        exactlyOne: ['email', 'username', 'user_id'],
        properties: {
          email: { type: 'string', minLength: 1, check: 'email', description: 'E-mail of the user.' },
          username: { type: 'string', minLength: 1, description: 'Panel username.' },
          user_id: { type: 'scalar', of: ['integer', 'string'], minLength: 1, description: 'Panel user id.' },
          permissions: {
            type: 'array',
            description: 'Server permissions to grant.',
            items: { type: 'string', check: 'permission', description: 'A server permission.' },
          },
        },
      },
    },
  },
};

