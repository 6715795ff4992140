// What every kind of declarable configuration implements (src/config-code/kinds/, one file per
// kind; kinds/index.ts is the ordered list). Nothing outside kinds/ names a kind: the files, the
// comparison, diff, apply, export and the commands go through this interface, as kubectl's diff
// goes through one per resource (Live, Merged, Name). A change has an action (terraform's
// plans/action.go: create, update, delete, replace) and, apart from it, the reason it is as it is
// (which never decides anything).

import { UsageError } from '../core/errors.js';
import { pathIdProblem } from '../core/flags/checks.js';
import type { RequestSpec } from '../core/request-spec.js';
import type { ApiClient } from '../core/wire/http.js';
import type { PathSegment } from '../init/field-path.js';
import type { RuleId } from '../init/rules.js';
import type { ObjectSchema, Schema } from '../init/schema-types.js';

export type Scalar = string | number | boolean;

/** What a change does to its item. A replace is a delete and a create of the same identity. */
export const ACTIONS = ['create', 'update', 'delete', 'replace'] as const;
export type Action = (typeof ACTIONS)[number];

/**
 * Why a change is what it is: shown, kept in plans, never consulted to decide. `held` says
 * whether this run makes the change; the reason says why not (or why a replace).
 */
export type Reason =
  /** A live item the file does not list, in a section marked prune: true; made only with --prune KIND. */
  | { code: 'prune_not_requested'; flag: string }
  /** Deleted and created again because --replace (or replace: true) asked for it. */
  | { code: 'replace_requested' };

export interface FieldDiff {
  path: string;
  live: unknown;
  declared: unknown;
  /** The live value is what the service stored when the declared one was sent (clamps.ts). */
  clamped?: true;
}

export interface Change {
  kind: string;
  action: Action;
  /** What is changed: `properties`, `startup.variables.X`, `hooks[https://…]`, `subusers[101]`. */
  item: string;
  fields: FieldDiff[];
  /** The one write this change is. */
  spec: RequestSpec;
  /** Index (in the server's list) of the change this one needs first. */
  after?: number;
  /** The request's path waits for the id the change `after` creates (a new item's). */
  pathFromCreated?: (id: string) => string;
  /** Not made by this run (the decision); `reason` says why. */
  held?: true;
  reason?: Reason;
}

/** What a kind's comparison is given for one server. */
export interface CompareContext {
  serverId: string;
  /** This kind is named by --prune: the file's prune: true deletes live items it does not list. */
  prune: boolean;
  /** --replace: identities to delete and create again. */
  replace: readonly string[];
  env: NodeJS.ProcessEnv;
  /** Resolve ${env:…} secrets (apply); diff only lists them. */
  secrets: boolean;
  /** Whether a path is ignored (the file's ignore:). */
  skip: (path: string) => boolean;
}

export interface KindComparison {
  changes: Change[];
  /** Paths of declared values that are never compared (write-only). */
  notCompared: string[];
}

/** Where a kind's lint check reports (files.ts hands it the file's positions). */
export interface CheckAt {
  /** The section's path in the file: `[]`, `['defaults']`, `['servers', 'lobby-*']`. */
  base: PathSegment[];
  /** The file is pinned to one server by id. */
  pinned: boolean;
  /** The declaration file's path (what a section names beside it is found from here). */
  file: string;
  report(rule: RuleId, path: PathSegment[], message: string): void;
}

export interface Kind<Declared = unknown, Live = unknown> {
  /** The section's key in a file, and the word of --only / --prune / ignore paths. */
  readonly name: string;
  /** What it covers, for help texts: `settings (description, startup-detection message, stop command)`. */
  readonly summary: string;
  /** How it is compared, for diff's help: `properties as text (true equals "true")`. */
  readonly compared: string;
  /** The writes apply makes, for its help: `one PATCH for settings`. */
  readonly written: string;
  /** Items with an identity whose live extras apply --prune may delete. */
  readonly prunable: boolean;
  /** A list section: a fleet's more specific entry replaces it whole instead of merging into it. */
  readonly list: boolean;
  /**
   * Declared for the account, not a server: in a file of its own (no server:), read and written
   * once a run by one target, the account (its read and compare are given no server id).
   */
  readonly account?: boolean;
  readonly schema: Schema;
  /** Registry operations (`METHOD /path`, exactly as in src/operations/): reads, then writes. */
  readonly reads: readonly string[];
  readonly writes: readonly string[];
  /** Fields never read back (a webhook's secret): listed as not compared, exported as placeholders. */
  readonly writeOnly: readonly string[];
  /** The declared section as the comparison takes it (lists as items, scalars kept); `from.file` is its declaration file. */
  normalise(value: unknown, from?: { file: string }): Declared;
  /** The reads of one server (declared undefined: everything, for export). */
  readSpecs(serverId: string, declared: Declared | undefined): RequestSpec[];
  read(client: ApiClient, serverId: string, declared: Declared | undefined): Promise<Live>;
  /** Declared against live: the exact writes, in order. Throws GshError when the file cannot apply to this server. */
  compare(declared: Declared, live: Live, ctx: CompareContext): KindComparison;
  /** What the service says it stored, from a write's answer, by path; undefined when it does not show it. */
  stored?(change: Change, answer: unknown): Map<string, string> | undefined;
  /** The identities --replace may name in this declared section (a webhook's URL). */
  replaceable?(declared: Declared): string[];
  /** The server's name, when what this kind read shows it (export of a server the listing names by id only). */
  serverName?(live: Live): string | undefined;
  /** The section export writes for what the server has, or undefined for none. */
  export(live: Live, ctx: { server: string }): unknown;
  /** Files export writes beside the declaration its section names them from (a template's manifest), by relative path. */
  attachments?(live: Live): Array<{ path: string; text: string }>;
  /** Checks a schema cannot say (a value declared twice, a secret written as a value). */
  check?(value: unknown, at: CheckAt): void;
  /** The variables the section's secrets are sent from (`${env:NAME}` names), for apply's refusal of gsh's own. */
  envRefs?(value: unknown): string[];
  /**
   * gsh config adopt (adopt.ts): where an update's drifted field sits in the section as written
   * (`raw`, the merged section before normalise) and its live value in the declared form, or why
   * it cannot be taken into the file. A kind without it is refused by name, never guessed at.
   */
  adopt?(field: FieldDiff, raw: unknown): Adopted;
}

/** A field taken into the file: its path in the kind's section and the value to write there; or why not. */
export type Adopted = { at: PathSegment[]; value: unknown } | { refused: string };

/** The request of one registry operation (`METHOD /path/{param}`), its path parameters filled in (encoded). */
export function opSpec(op: string, params: Record<string, string | number>, body?: unknown): RequestSpec {
  const [method, template] = op.split(' ') as [RequestSpec['method'], string];
  const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = params[name];
    if (v === undefined) throw new Error(`config-code: ${op} needs ${name}`);
    // A declared key becomes this path step (configs: {"..": …} would name the parent path).
    const problem = typeof v === 'string' ? pathIdProblem(v) : undefined;
    if (problem) throw new UsageError(`${name} ${problem} (got "${v}")`);
    return encodeURIComponent(String(v));
  });
  return { method, path, ...(body === undefined ? {} : { body }) };
}

/** The `data` of an answer, or undefined. */
export async function dataOf(client: ApiClient, spec: RequestSpec): Promise<unknown> {
  const res = await client.request<{ data?: unknown }>(spec);
  return isObj(res.body) ? res.body.data : undefined;
}

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Values compared as text: true equals "true", 60 equals "60". */
export const asText = (v: unknown): string => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));

export const sameSet = (a: readonly string[], b: readonly string[]): boolean => {
  const x = new Set(a);
  const y = new Set(b);
  return x.size === y.size && [...x].every((v) => y.has(v));
};

/** `${env:NAME}`: the one way a secret is written in a file. */
export const ENV_REF = /^\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}$/;

/** Declared scalars against live text, one field per key that differs. */
export function scalarDiffs(base: string, want: Record<string, Scalar>, have: ReadonlyMap<string, string>, skip: (p: string) => boolean): FieldDiff[] {
  const out: FieldDiff[] = [];
  for (const [k, v] of Object.entries(want)) {
    const path = `${base}.${k}`;
    if (skip(path)) continue;
    const current = have.get(k);
    if (current !== asText(v)) out.push({ path, live: current ?? null, declared: v });
  }
  return out;
}

/** A section of items with an identity: a list, or {prune, items}. */
export interface Items<T> {
  prune: boolean;
  items: T[];
}

export function itemsOf<T>(v: unknown): Items<T> {
  if (Array.isArray(v)) return { prune: false, items: v as T[] };
  if (isObj(v)) return { prune: v.prune === true, items: Array.isArray(v.items) ? (v.items as T[]) : [] };
  return { prune: false, items: [] };
}

/** A list section's schema: a list, or {prune, items} to let apply --prune delete live ones it does not name. */
export function itemsOrPruned(item: ObjectSchema, what: string): Schema {
  return {
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
  };
}

/** Keys that become a step of a request's path (a config type, a variable): never empty, `.`, `..` or holding `/`. */
export function checkPathKeys(map: unknown, at: CheckAt, where: PathSegment[], what: string): void {
  for (const key of Object.keys(isObj(map) ? map : {})) {
    const problem = pathIdProblem(key);
    if (problem) at.report('unknown-key', [...at.base, ...where, key], `${what} names a step of the request's path and ${problem} (got "${key}")`);
  }
}

/** Each item's identity once: a second one is reported where it stands. */
export function checkIdentities(value: unknown, at: CheckAt, section: string, identity: (item: Obj) => string | undefined, what: string, also?: (item: Obj, path: PathSegment[]) => void): void {
  const items = itemsOf<unknown>(value).items;
  const seen = new Map<string, number>();
  items.forEach((item, i) => {
    if (!isObj(item)) return;
    const listPath: PathSegment[] = Array.isArray(value) ? [...at.base, section, i] : [...at.base, section, 'items', i];
    const id = identity(item);
    if (id !== undefined) {
      if (seen.has(id)) at.report('duplicate-entry', listPath, `${what} ${id} is declared twice (also entry ${seen.get(id)! + 1})`);
      else seen.set(id, i);
    }
    also?.(item, listPath);
  });
}

/**
 * A live value (text, for the kinds compared as text) in the form the file declared it: 60 stays
 * a number and true a boolean when the text says exactly that, anything else is written as text.
 */
export function declaredForm(live: unknown, declared: unknown): Scalar {
  const text = asText(live);
  if (typeof declared === 'number' && text.trim() !== '' && String(Number(text)) === text) return Number(text);
  if (typeof declared === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
  return typeof live === 'number' || typeof live === 'boolean' ? live : text;
}

/** A scalar field of a map section (`base.KEY`): its key path in the section and the live value as declared. */
export function adoptScalar(field: FieldDiff, base: string, keys: PathSegment[]): Adopted {
  if (field.live === null || field.live === undefined) return { refused: `the service shows no value for ${field.path}` };
  if (!field.path.startsWith(`${base}.`)) return { refused: `${field.path} is not a key of ${base}` };
  return { at: keys, value: declaredForm(field.live, field.declared) };
}

/** A field of an item with an identity (a list, or {prune, items}): the item's place in the section as written. */
export function adoptItemField(raw: unknown, field: FieldDiff, itemOf: (item: Obj) => string): Adopted {
  const items: unknown[] = Array.isArray(raw) ? raw : isObj(raw) && Array.isArray(raw.items) ? raw.items : [];
  const i = items.findIndex((it) => isObj(it) && field.path.startsWith(`${itemOf(it)}.`));
  if (i < 0) return { refused: `${field.path} is not an item the file lists` };
  const key = field.path.slice(itemOf(items[i] as Obj).length + 1);
  return { at: [...(Array.isArray(raw) ? [] : ['items']), i, key], value: field.live };
}
