// The small schema language the manifest is written in (src/init/manifest-schema.ts). It says
// exactly what the linter walks and what `gsh init schema` emits as JSON Schema, nothing more.

import type { CapName } from './caps.js';

/** Value checks beyond shape, implemented in checks.ts and mirrored in JSON Schema where possible. */
export type CheckName =
  | 'cron' | 'event' | 'permission' | 'hook-url' | 'download-url' | 'file-mode' | 'base64'
  | 'sha1' | 'sha256' | 'sha512' | 'email' | 'file-path';

interface Described {
  /** One sentence shown on hover in editors and in `gsh init schema`. */
  readonly description: string;
}

export interface ObjectSchema extends Described {
  readonly type: 'object';
  readonly properties: Readonly<Record<string, Schema>>;
  readonly required?: readonly string[];
  /** Exactly one of these keys must be present. */
  readonly exactlyOne?: readonly string[];
  /** At least one of these keys must be present; more than one is allowed (warned). */
  readonly atLeastOne?: readonly string[];
}

export interface ArraySchema extends Described {
  readonly type: 'array';
  readonly items: Schema;
  readonly maxItems?: number;
  /** A per-plan cap on the number of items. */
  readonly maxItemsCap?: CapName;
}

/** A map with free-form keys (`env`). */
export interface MapSchema extends Described {
  readonly type: 'map';
  readonly values: Schema;
  readonly maxKeysCap?: CapName;
}

export interface StringSchema extends Described {
  readonly type: 'string';
  readonly enum?: readonly string[];
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly check?: CheckName;
  /** A number is tolerated with a warning (YAML reads `1.20` as 1.2). */
  readonly numberWarns?: boolean;
}

export interface IntegerSchema extends Described {
  readonly type: 'integer';
  readonly minimum?: number;
  readonly maximum?: number;
  readonly maximumCap?: CapName;
  readonly const?: number;
}

export interface BooleanSchema extends Described {
  readonly type: 'boolean';
}

/** Any of the listed scalar types (`env` values, ids). */
export interface ScalarSchema extends Described {
  readonly type: 'scalar';
  readonly of: readonly ('string' | 'integer' | 'number' | 'boolean')[];
  /** Applies when the value is a string: an identifier given as `""` names nothing. */
  readonly minLength?: number;
}

/** Either a list or a map, told apart by the YAML node (`run`). */
export interface ListOrObjectSchema extends Described {
  readonly type: 'list-or-object';
  readonly list: ArraySchema;
  readonly object: ObjectSchema;
}

/** Objects whose allowed keys depend on the value of one key (`source`). */
export interface TaggedSchema extends Described {
  readonly type: 'tagged';
  readonly tag: string;
  readonly variants: Readonly<Record<string, ObjectSchema>>;
}

export type Schema =
  | ObjectSchema | ArraySchema | MapSchema | StringSchema | IntegerSchema | BooleanSchema
  | ScalarSchema | ListOrObjectSchema | TaggedSchema;
