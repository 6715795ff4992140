import { Exit, GshError } from '../../core/errors.js';
import { fetchAll } from '../../core/wire/paging.js';
import type { ObjectSchema } from '../../init/schema-types.js';
import { gshVariableProblem } from '../secret-variables.js';
import { adoptItemField, type Change, checkIdentities, ENV_REF, type FieldDiff, isObj, type Items, itemsOf, itemsOrPruned, type Kind, opSpec, sameSet } from '../kind.js';

// Webhooks (02-endpoints-part-a.md "Webhooks"): the URL is the identity; events (a set) and
// enabled are compared; the secret is returned only at creation, so it is write-only: sent from
// ${env:NAME} when the webhook is created (or replaced), never compared, printed or written.

const LIST = 'GET /servers/{server_id}/hooks';
const CREATE = 'POST /servers/{server_id}/hooks';
const UPDATE = 'PATCH /servers/{server_id}/hooks/{hook_id}';
const DELETE = 'DELETE /servers/{server_id}/hooks/{hook_id}';

export interface HookDecl {
  url: string;
  events?: string[];
  enabled?: boolean;
  /** As written: `${env:NAME}`. */
  secret?: string;
  replace?: boolean;
}

export interface LiveHook {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
}

const HOOK: ObjectSchema = {
  type: 'object',
  description: 'One webhook; its URL is its identity.',
  required: ['url'],
  properties: {
    url: { type: 'string', check: 'hook-url', description: 'https URL the events are posted to (the identity: a new URL is a new webhook)' },
    events: { type: 'array', items: { type: 'string', check: 'event', description: 'An event type' }, description: 'Event types, compared as a set' },
    enabled: { type: 'boolean', description: 'Whether deliveries are on' },
    secret: { type: 'string', description: 'The signing secret as ${env:NAME}: sent when the webhook is created (or replaced), never read back or compared' },
    replace: { type: 'boolean', description: 'Delete and create the webhook again (the only way to change its secret)' },
  },
};

/** An environment variable name for a webhook's secret: LOBBY_1_HOOK_2_SECRET. */
export function secretVariable(server: string, n: number): string {
  const base = server.toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_+|_+$/g, '') || 'SERVER';
  return `${/^[0-9]/.test(base) ? `S_${base}` : base}_HOOK_${n}_SECRET`;
}

function secretOf(h: HookDecl, env: NodeJS.ProcessEnv, resolve: boolean): string | undefined {
  if (h.secret === undefined || !resolve) return undefined;
  const name = ENV_REF.exec(h.secret)?.[1];
  const value = name === undefined ? undefined : env[name];
  if (value === undefined || value === '') {
    throw new GshError(`the webhook ${h.url} is to be created with the secret \${env:${name ?? '?'}}, which is not set`, Exit.error, `Set ${name ?? 'it'} in the environment (the secret never sits in the file), then run again.`);
  }
  return value;
}

export const hooks: Kind<Items<HookDecl>, LiveHook[]> = {
  name: 'hooks',
  summary: 'webhooks',
  compared: 'webhook events as a set (the secret is write-only: shown as not compared)',
  written: 'per webhook a create, update or delete',
  prunable: true,
  list: true,
  schema: itemsOrPruned(HOOK, 'Webhooks'),
  reads: [LIST],
  writes: [CREATE, UPDATE, DELETE],
  writeOnly: ['secret'],
  normalise: (value) => itemsOf<HookDecl>(value),
  replaceable: (declared) => declared.items.map((h) => h.url),
  adopt: (field, raw) => adoptItemField(raw, field, (h) => `hooks[${String(h.url)}]`),
  readSpecs: (serverId) => [opSpec(LIST, { server_id: serverId })],
  async read(client, serverId) {
    const { items } = await fetchAll(client, opSpec(LIST, { server_id: serverId }));
    return items.filter(isObj).filter((h) => typeof h.url === 'string').map((h): LiveHook => ({
      id: String(h.id), url: h.url as string, events: Array.isArray(h.events) ? h.events.map(String) : [], enabled: h.enabled !== false,
    }));
  },
  compare(declared, live, ctx) {
    const sid = ctx.serverId;
    const changes: Change[] = [];
    const notCompared: string[] = [];
    const byUrl = new Map(live.map((h) => [h.url, h]));
    for (const h of declared.items) {
      const item = `hooks[${h.url}]`;
      if (h.secret !== undefined) notCompared.push(`${item}.secret`);
      const current = byUrl.get(h.url);
      const replacing = current !== undefined && ctx.replace.includes(h.url);
      if (current && !replacing) {
        const fields: FieldDiff[] = [];
        if (h.events !== undefined && !ctx.skip(`${item}.events`) && !sameSet(h.events, current.events)) fields.push({ path: `${item}.events`, live: current.events, declared: h.events });
        if (h.enabled !== undefined && !ctx.skip(`${item}.enabled`) && h.enabled !== current.enabled) fields.push({ path: `${item}.enabled`, live: current.enabled, declared: h.enabled });
        if (fields.length) {
          const body = Object.fromEntries(fields.map((x) => [x.path.slice(item.length + 1), x.declared]));
          changes.push({ kind: 'hooks', action: 'update', item, fields, spec: opSpec(UPDATE, { server_id: sid, hook_id: current.id }, body) });
        }
        continue;
      }
      // A replace is the delete of the live webhook, then the create of the declared one.
      let after: number | undefined;
      const reason = replacing ? { reason: { code: 'replace_requested' as const } } : {};
      if (replacing) {
        changes.push({ kind: 'hooks', action: 'replace', item, fields: [{ path: `${item}.secret`, live: '(write-only)', declared: '(replaced)' }], spec: opSpec(DELETE, { server_id: sid, hook_id: current.id }), ...reason });
        after = changes.length - 1;
      }
      // Not resolving (diff, a saved plan): the placeholder as written stands in the body.
      const secret = ctx.secrets ? secretOf(h, ctx.env, true) : h.secret;
      const body = { url: h.url, events: h.events ?? [], ...(secret !== undefined ? { secret } : {}) };
      const fields: FieldDiff[] = [{ path: `${item}.url`, live: null, declared: h.url }, { path: `${item}.events`, live: null, declared: h.events ?? [] }];
      changes.push({ kind: 'hooks', action: replacing ? 'replace' : 'create', item, fields, spec: opSpec(CREATE, { server_id: sid }, body), ...(after !== undefined ? { after } : {}), ...reason });
      if (h.enabled === false) {
        const created = changes.length - 1;
        changes.push({
          kind: 'hooks', action: 'update', item, fields: [{ path: `${item}.enabled`, live: true, declared: false }],
          spec: opSpec(UPDATE, { server_id: sid, hook_id: '{created}' }, { enabled: false }),
          after: created,
          pathFromCreated: (id) => opSpec(UPDATE, { server_id: sid, hook_id: id }).path,
        });
      }
    }
    const wanted = new Set(declared.items.map((h) => h.url));
    for (const h of live) {
      if (wanted.has(h.url) || !declared.prune || ctx.skip(`hooks[${h.url}]`)) continue;
      changes.push({
        kind: 'hooks', action: 'delete', item: `hooks[${h.url}]`, fields: [{ path: `hooks[${h.url}]`, live: h.url, declared: null }],
        spec: opSpec(DELETE, { server_id: sid, hook_id: h.id }),
        ...(ctx.prune ? {} : { held: true as const, reason: { code: 'prune_not_requested' as const, flag: '--prune hooks' } }),
      });
    }
    return { changes, notCompared };
  },
  export: (live, { server }) => live.map((h, i) => ({ url: h.url, events: h.events, enabled: h.enabled, secret: `\${env:${secretVariable(server, i + 1)}}` })),
  check(value, at) {
    checkIdentities(value, at, 'hooks', (h) => (typeof h.url === 'string' ? h.url : undefined), 'the webhook', (h, path) => {
      if (typeof h.secret === 'string' && !ENV_REF.test(h.secret)) at.report('type', [...path, 'secret'], 'a secret is written as ${env:NAME}, never as its value: the file would hold it');
      const reserved = typeof h.secret === 'string' ? gshVariableProblem(ENV_REF.exec(h.secret)?.[1] ?? '') : undefined;
      if (reserved) at.report('type', [...path, 'secret'], reserved);
    });
  },
  envRefs: (value) => itemsOf<HookDecl>(value).items.flatMap((h) => {
    const name = isObj(h) && typeof h.secret === 'string' ? ENV_REF.exec(h.secret)?.[1] : undefined;
    return name === undefined ? [] : [name];
  }),
};
