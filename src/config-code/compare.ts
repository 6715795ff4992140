// Live state against a declaration (README "Configuration as code"): only declared fields are
// compared, values normalised (properties and variables are text: `true` equals "true", 60
// equals "60"; event and permission lists are sets), write-only fields (a webhook's secret) are
// listed as not compared. The result is the exact list of writes `apply` makes, each the request
// of one registry operation (kinds.ts).

import { Exit, GshError } from '../core/errors.js';
import type { RequestSpec } from '../core/request-spec.js';
import { type Declaration, ENV_REF, type HookDecl, type Scalar, type SubuserDecl } from './files.js';
import { type Kind, opSpec, SETTINGS_FIELDS } from './kinds.js';

export interface LiveHook {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
}

export interface LiveSubuser {
  user_id: number;
  permissions: string[];
}

/** What was read of one server: only the kinds its declaration manages. */
export interface Live {
  settings?: Record<string, unknown>;
  properties?: Map<string, string>;
  variables?: Map<string, string>;
  configs?: Map<string, Record<string, unknown>>;
  hooks?: LiveHook[];
  subusers?: LiveSubuser[];
}

export interface FieldDiff {
  path: string;
  live: unknown;
  declared: unknown;
  /** The live value is what the service stored when the declared one was sent (clamps.ts). */
  clamped?: true;
}

export interface Change {
  kind: Kind;
  action: 'update' | 'create' | 'delete';
  /** What is changed: `properties`, `startup.variables.X`, `hooks[https://…]`, `subusers[101]`. */
  item: string;
  fields: FieldDiff[];
  spec: RequestSpec;
  /** Index (in the server's list) of the change this one needs first. */
  after?: number;
  /** The request's path waits for the id the change `after` creates (a new webhook's). */
  pathFromCreated?: (id: string) => string;
  /** A delete the file allows (prune: true) that this run does not make (no --prune KIND). */
  held?: string;
}

export interface Comparison {
  changes: Change[];
  /** Paths of declared values that are never compared (write-only). */
  notCompared: string[];
}

export interface CompareOptions {
  serverId: string;
  kinds: readonly Kind[];
  /** --prune: the kinds whose unlisted items are deleted (when the file marks prune: true). */
  prune: readonly Kind[];
  /** --replace URL: webhooks to delete and create again (their secret changes). */
  replace: readonly string[];
  env: NodeJS.ProcessEnv;
  /** Resolve ${env:…} secrets (apply, dry run); diff only lists them. */
  secrets: boolean;
}

export const asText = (v: unknown): string => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));

const sameSet = (a: readonly string[], b: readonly string[]) => {
  const x = new Set(a);
  const y = new Set(b);
  return x.size === y.size && [...x].every((v) => y.has(v));
};

/** Whether `path` is one of the ignored paths or lies under one (`hooks.enabled` covers every hook's enabled). */
export function ignored(path: string, ignore: readonly string[] | undefined): boolean {
  if (!ignore?.length) return false;
  const loose = path.replace(/\[[^\]]*\]/g, '');
  return ignore.some((p) => [path, loose].some((q) => q === p || q.startsWith(`${p}.`) || q.startsWith(`${p}[`)));
}

export function compare(d: Declaration, live: Live, o: CompareOptions): Comparison {
  const changes: Change[] = [];
  const notCompared: string[] = [];
  const skip = (path: string) => ignored(path, d.ignore);
  const sid = o.serverId;

  if (o.kinds.includes('settings') && d.settings) {
    const fields: FieldDiff[] = [];
    for (const f of SETTINGS_FIELDS) {
      const want = d.settings[f];
      if (want === undefined || skip(`settings.${f}`)) continue;
      const have = live.settings?.[f];
      if (asText(have) !== want) fields.push({ path: `settings.${f}`, live: have ?? null, declared: want });
    }
    if (fields.length) {
      const body = Object.fromEntries(fields.map((x) => [x.path.slice('settings.'.length), x.declared]));
      changes.push({ kind: 'settings', action: 'update', item: 'settings', fields, spec: opSpec('writeSettings', { server_id: sid }, body) });
    }
  }

  if (o.kinds.includes('properties') && d.properties) {
    const fields = scalarDiffs('properties', d.properties, live.properties ?? new Map(), skip);
    if (fields.length) {
      const body = Object.fromEntries(fields.map((x) => [x.path.slice('properties.'.length), x.declared]));
      changes.push({ kind: 'properties', action: 'update', item: 'properties', fields, spec: opSpec('writeProperties', { server_id: sid }, body) });
    }
  }

  if (o.kinds.includes('startup') && d.startup?.variables) {
    const have = live.variables ?? new Map<string, string>();
    const foreign = Object.keys(d.startup.variables).filter((k) => !have.has(k));
    if (foreign.length) {
      throw new GshError(`startup variable${foreign.length > 1 ? 's' : ''} ${foreign.join(', ')} ${foreign.length > 1 ? 'do' : 'does'} not belong to the server's egg`, Exit.error, `Its variables: ${[...have.keys()].join(', ') || 'none'}.`);
    }
    for (const f of scalarDiffs('startup.variables', d.startup.variables, have, skip)) {
      const key = f.path.slice('startup.variables.'.length);
      changes.push({ kind: 'startup', action: 'update', item: f.path, fields: [f], spec: opSpec('writeVariable', { server_id: sid, env_variable: key }, { value: f.declared }) });
    }
  }

  if (o.kinds.includes('configs') && d.configs) {
    for (const [type, values] of Object.entries(d.configs)) {
      const have = new Map(Object.entries(live.configs?.get(type) ?? {}).map(([k, v]) => [k, asText(v)]));
      const fields = scalarDiffs(`configs.${type}`, values, have, skip);
      if (fields.length) {
        const body = Object.fromEntries(fields.map((x) => [x.path.slice(`configs.${type}.`.length), x.declared]));
        changes.push({ kind: 'configs', action: 'update', item: `configs.${type}`, fields, spec: opSpec('writeConfig', { server_id: sid, config_type: type }, body) });
      }
    }
  }

  if (o.kinds.includes('hooks') && d.hooks) hookChanges(d, live.hooks ?? [], o, changes, notCompared, skip);
  if (o.kinds.includes('subusers') && d.subusers) subuserChanges(d, live.subusers ?? [], o, changes, skip);
  return { changes, notCompared };
}

function scalarDiffs(base: string, want: Record<string, Scalar>, have: Map<string, string>, skip: (p: string) => boolean): FieldDiff[] {
  const out: FieldDiff[] = [];
  for (const [k, v] of Object.entries(want)) {
    const path = `${base}.${k}`;
    if (skip(path)) continue;
    const current = have.get(k);
    if (current !== asText(v)) out.push({ path, live: current ?? null, declared: v });
  }
  return out;
}

function secretOf(h: HookDecl, o: CompareOptions): string | undefined {
  if (h.secret === undefined || !o.secrets) return undefined;
  const name = ENV_REF.exec(h.secret)?.[1];
  const value = name === undefined ? undefined : o.env[name];
  if (value === undefined || value === '') {
    throw new GshError(`the webhook ${h.url} is to be created with the secret \${env:${name ?? '?'}}, which is not set`, Exit.error, `Set ${name ?? 'it'} in the environment (the secret never sits in the file), then run again.`);
  }
  return value;
}

function hookChanges(d: Declaration, live: LiveHook[], o: CompareOptions, changes: Change[], notCompared: string[], skip: (p: string) => boolean): void {
  const sid = o.serverId;
  const declared = d.hooks!.items;
  const byUrl = new Map(live.map((h) => [h.url, h]));
  for (const h of declared) {
    const item = `hooks[${h.url}]`;
    if (h.secret !== undefined) notCompared.push(`${item}.secret`);
    const current = byUrl.get(h.url);
    const replacing = current !== undefined && o.replace.includes(h.url);
    if (current && !replacing) {
      const fields: FieldDiff[] = [];
      if (h.events !== undefined && !skip(`${item}.events`) && !sameSet(h.events, current.events)) fields.push({ path: `${item}.events`, live: current.events, declared: h.events });
      if (h.enabled !== undefined && !skip(`${item}.enabled`) && h.enabled !== current.enabled) fields.push({ path: `${item}.enabled`, live: current.enabled, declared: h.enabled });
      if (fields.length) {
        const body = Object.fromEntries(fields.map((x) => [x.path.slice(item.length + 1), x.declared]));
        changes.push({ kind: 'hooks', action: 'update', item, fields, spec: opSpec('updateHook', { server_id: sid, hook_id: current.id }, body) });
      }
      continue;
    }
    let after: number | undefined;
    if (replacing) {
      changes.push({ kind: 'hooks', action: 'delete', item, fields: [{ path: `${item}.secret`, live: '(write-only)', declared: '(replaced)' }], spec: opSpec('deleteHook', { server_id: sid, hook_id: current.id }) });
      after = changes.length - 1;
    }
    const secret = secretOf(h, o);
    const body = { url: h.url, events: h.events ?? [], ...(secret !== undefined ? { secret } : {}) };
    const fields: FieldDiff[] = [{ path: `${item}.url`, live: null, declared: h.url }, { path: `${item}.events`, live: null, declared: h.events ?? [] }];
    changes.push({ kind: 'hooks', action: 'create', item, fields, spec: opSpec('createHook', { server_id: sid }, body), ...(after !== undefined ? { after } : {}) });
    if (h.enabled === false) {
      const created = changes.length - 1;
      changes.push({
        kind: 'hooks', action: 'update', item, fields: [{ path: `${item}.enabled`, live: true, declared: false }],
        spec: opSpec('updateHook', { server_id: sid, hook_id: '{created}' }, { enabled: false }),
        after: created,
        pathFromCreated: (id) => opSpec('updateHook', { server_id: sid, hook_id: id }).path,
      });
    }
  }
  const wanted = new Set(declared.map((h) => h.url));
  for (const h of live) {
    if (wanted.has(h.url) || !d.hooks!.prune || skip(`hooks[${h.url}]`)) continue;
    changes.push({
      kind: 'hooks', action: 'delete', item: `hooks[${h.url}]`, fields: [{ path: `hooks[${h.url}]`, live: h.url, declared: null }],
      spec: opSpec('deleteHook', { server_id: sid, hook_id: h.id }),
      ...(o.prune.includes('hooks') ? {} : { held: 'kept: apply deletes it only with --prune hooks' }),
    });
  }
}

function subuserChanges(d: Declaration, live: LiveSubuser[], o: CompareOptions, changes: Change[], skip: (p: string) => boolean): void {
  const sid = o.serverId;
  const byId = new Map(live.map((u) => [u.user_id, u]));
  const declared: SubuserDecl[] = d.subusers!.items;
  for (const u of declared) {
    const item = `subusers[${u.user_id}]`;
    const want = u.permissions ?? [];
    const current = byId.get(u.user_id);
    if (!current) {
      changes.push({ kind: 'subusers', action: 'create', item, fields: [{ path: `${item}.permissions`, live: null, declared: want }], spec: opSpec('createSubuser', { server_id: sid }, { user_id: u.user_id, permissions: want }) });
    } else if (u.permissions !== undefined && !skip(`${item}.permissions`) && !sameSet(want, current.permissions)) {
      changes.push({ kind: 'subusers', action: 'update', item, fields: [{ path: `${item}.permissions`, live: current.permissions, declared: want }], spec: opSpec('updateSubuser', { server_id: sid, user_id: u.user_id }, { permissions: want }) });
    }
  }
  const wanted = new Set(declared.map((u) => u.user_id));
  for (const u of live) {
    if (wanted.has(u.user_id) || !d.subusers!.prune || skip(`subusers[${u.user_id}]`)) continue;
    changes.push({
      kind: 'subusers', action: 'delete', item: `subusers[${u.user_id}]`, fields: [{ path: `subusers[${u.user_id}]`, live: u.permissions, declared: null }],
      spec: opSpec('deleteSubuser', { server_id: sid, user_id: u.user_id }),
      ...(o.prune.includes('subusers') ? {} : { held: 'kept: apply deletes it only with --prune subusers' }),
    });
  }
}

/**
 * What the service says it stored, from a write's answer, by declared path (02-endpoints-part-a.md
 * "Properties": PUT returns the updated properties; "Settings": PATCH returns the updated
 * settings); undefined when the answer does not show it.
 */
export function storedValues(ch: Change, data: unknown): Map<string, string> | undefined {
  if (ch.kind === 'properties' && Array.isArray(data)) {
    return new Map(data.filter((p): p is { key: string; value: unknown } => !!p && typeof p === 'object' && typeof (p as { key?: unknown }).key === 'string').map((p) => [`properties.${p.key}`, asText(p.value)]));
  }
  if (ch.kind === 'settings' && data !== null && typeof data === 'object' && !Array.isArray(data)) {
    return new Map(Object.entries(data as Record<string, unknown>).map(([k, v]) => [`settings.${k}`, asText(v)]));
  }
  return undefined;
}
