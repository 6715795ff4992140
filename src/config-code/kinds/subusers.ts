import { fetchAll } from '../../core/wire/paging.js';
import type { ObjectSchema } from '../../init/schema-types.js';
import { adoptItemField, type Change, checkIdentities, isObj, type Items, itemsOf, itemsOrPruned, type Kind, opSpec, sameSet } from '../kind.js';

// Subusers (02-endpoints-part-a.md "Subusers"): the panel user id is the identity; the permission
// set is replaced by the write and compared as a set.

const LIST = 'GET /servers/{server_id}/subusers';
const CREATE = 'POST /servers/{server_id}/subusers';
const UPDATE = 'PUT /servers/{server_id}/subusers/{user_id}';
const DELETE = 'DELETE /servers/{server_id}/subusers/{user_id}';

export interface SubuserDecl {
  user_id: number;
  permissions?: string[];
}

export interface LiveSubuser {
  user_id: number;
  permissions: string[];
}

const SUBUSER: ObjectSchema = {
  type: 'object',
  description: 'One subuser; the panel user id is its identity.',
  required: ['user_id'],
  properties: {
    user_id: { type: 'integer', minimum: 1, description: 'Panel user id (as gsh subusers list shows it)' },
    permissions: { type: 'array', items: { type: 'string', check: 'permission', description: 'A permission' }, description: 'The whole permission set (it replaces the live one), compared as a set' },
  },
};

export const subusers: Kind<Items<SubuserDecl>, LiveSubuser[]> = {
  name: 'subusers',
  summary: 'subusers',
  compared: 'subuser permissions as a set',
  written: 'per subuser a create, update or delete',
  prunable: true,
  list: true,
  schema: itemsOrPruned(SUBUSER, 'Subusers'),
  reads: [LIST],
  writes: [CREATE, UPDATE, DELETE],
  writeOnly: [],
  normalise: (value) => itemsOf<SubuserDecl>(value),
  readSpecs: (serverId) => [opSpec(LIST, { server_id: serverId })],
  async read(client, serverId) {
    const { items } = await fetchAll(client, opSpec(LIST, { server_id: serverId }));
    return items.filter(isObj).filter((u) => u.user_id !== undefined).map((u): LiveSubuser => ({
      user_id: Number(u.user_id), permissions: Array.isArray(u.permissions) ? u.permissions.map(String) : [],
    }));
  },
  compare(declared, live, ctx) {
    const sid = ctx.serverId;
    const changes: Change[] = [];
    const byId = new Map(live.map((u) => [u.user_id, u]));
    for (const u of declared.items) {
      const item = `subusers[${u.user_id}]`;
      const want = u.permissions ?? [];
      const current = byId.get(u.user_id);
      if (!current) {
        changes.push({ kind: 'subusers', action: 'create', item, fields: [{ path: `${item}.permissions`, live: null, declared: want }], spec: opSpec(CREATE, { server_id: sid }, { user_id: u.user_id, permissions: want }) });
      } else if (u.permissions !== undefined && !ctx.skip(`${item}.permissions`) && !sameSet(want, current.permissions)) {
        changes.push({ kind: 'subusers', action: 'update', item, fields: [{ path: `${item}.permissions`, live: current.permissions, declared: want }], spec: opSpec(UPDATE, { server_id: sid, user_id: u.user_id }, { permissions: want }) });
      }
    }
    const wanted = new Set(declared.items.map((u) => u.user_id));
    for (const u of live) {
      if (wanted.has(u.user_id) || !declared.prune || ctx.skip(`subusers[${u.user_id}]`)) continue;
      changes.push({
        kind: 'subusers', action: 'delete', item: `subusers[${u.user_id}]`, fields: [{ path: `subusers[${u.user_id}]`, live: u.permissions, declared: null }],
        spec: opSpec(DELETE, { server_id: sid, user_id: u.user_id }),
        ...(ctx.prune ? {} : { held: true as const, reason: { code: 'prune_not_requested' as const, flag: '--prune subusers' } }),
      });
    }
    return { changes, notCompared: [] };
  },
  export: (live) => live.map((u) => ({ user_id: u.user_id, permissions: u.permissions })),
  adopt: (field, raw) => adoptItemField(raw, field, (u) => `subusers[${String(u.user_id)}]`),
  check(value, at) {
    checkIdentities(value, at, 'subusers', (u) => (u.user_id === undefined ? undefined : String(u.user_id)), 'the subuser');
  },
};
