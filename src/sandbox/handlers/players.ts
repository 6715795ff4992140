import { createHash } from 'node:crypto';
import type { SandboxContext } from '../context.js';
import { isoSeconds } from '../clock.js';
import { ApiFailure, fail, ok } from '../envelope.js';
import { pageOf, parsePaging } from '../paging.js';
import { queryValue } from '../request.js';
import { serverSlot } from '../node/slots.js';
import { treeOf } from '../node/server-files.js';
import type { ServerRecord } from '../state.js';
import { mergeProperties, parseProperties } from './properties.js';
import { boolQuery, optString, reqString } from './fields.js';
import type { HandlerMap, HandlerRequest } from './types.js';
import { bodyObject, serverOf } from './util.js';

// 03-endpoints-part-b.md "Players". Each server has three known players; max-players lives in
// server.properties; the live query answers only while the server runs. Unnamed body fields
// follow the registry examples: `command`, `action` (inventory), `updates` (nbt), `type` (files).

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NAME = /^[A-Za-z0-9_]{3,16}$/;
const COMMANDS = new Set(['op', 'deop', 'kick', 'ban', 'pardon', 'whitelist', 'heal', 'feed', 'kill', 'gamemode', 'teleport']);
const INVENTORY_ACTIONS = new Set(['clear', 'give', 'move', 'delete-item', 'clear-enderchest']);
const FILE_TYPES = new Set(['playerdata', 'stats', 'advancements']);
/** Profiles the external lookup knows besides each server's players. */
const KNOWN_PROFILES: Readonly<Record<string, string>> = { Notch: '069a79f4-44e9-4726-a5be-fca90e38aaf5', jeb_: '853c80ef-3c37-49fd-aa49-938b674adae6' };

interface Player {
  uuid: string; name: string; online: boolean; op: boolean; whitelisted: boolean; banned: boolean;
  last_seen: string; files: Set<string>; inventory: Array<{ slot: number; item: string; count: number }>;
}

/** Version-3 (name-based MD5) UUID of "OfflinePlayer:<name>", as servers compute offline ids. */
export function offlineUuid(name: string): string {
  const h = createHash('md5').update(`OfflinePlayer:${name}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x30;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

function playersOf(ctx: SandboxContext, s: ServerRecord): Player[] {
  return serverSlot(ctx, s.id, 'players', () => ['Alex_Builds', 'SteveMines', 'Creeper_Hunter'].map((name, i) => ({
    uuid: ctx.rng.uuid(), name, online: i === 0, op: i === 0, whitelisted: i < 2, banned: i === 2,
    last_seen: isoSeconds(s.createdAt + (i + 1) * 3_600_000), files: new Set(FILE_TYPES),
    inventory: [{ slot: 0, item: 'minecraft:diamond_pickaxe', count: 1 }, { slot: 1, item: 'minecraft:torch', count: 32 }],
  })));
}

function view(p: Player, s: ServerRecord): Record<string, unknown> {
  return { object: 'server_player', uuid: p.uuid, name: p.name, online: p.online && s.state === 'running', op: p.op, whitelisted: p.whitelisted, banned: p.banned, last_seen: p.last_seen };
}

function playerOf(req: HandlerRequest, ctx: SandboxContext): Player {
  const uuid = req.params.uuid ?? '';
  if (!UUID.test(uuid)) throw fail.badRequest('Invalid UUID');
  const p = playersOf(ctx, serverOf(req, ctx)).find((x) => x.uuid === uuid.toLowerCase());
  if (!p) throw fail.notFound('Player not found');
  return p;
}

function maxPlayers(ctx: SandboxContext, s: ServerRecord): number {
  const e = treeOf(ctx, s.id).get('/server.properties');
  return Number(e ? parseProperties(e.data.toString('utf8')).get('max-players') ?? 20 : 20);
}

export const handlers: HandlerMap = {
  'GET /servers/{server_id}/players': (req, ctx) => {
    const s = serverOf(req, ctx);
    const q = queryValue(req.query, 'search')?.toLowerCase();
    const list = playersOf(ctx, s).filter((p) => !q || p.name.toLowerCase().includes(q) || p.uuid.includes(q));
    return { status: 200, body: pageOf(list.map((p) => view(p, s)), parsePaging(req.query)) };
  },

  'GET /servers/{server_id}/players/max': (req, ctx) => ok({ object: 'server_max_players', max_players: maxPlayers(ctx, serverOf(req, ctx)) }),

  'PUT /servers/{server_id}/players/max': (req, ctx) => {
    const s = serverOf(req, ctx);
    const n = bodyObject(req).max_players;
    if (!Number.isInteger(n) || (n as number) < 0 || (n as number) > 1000) throw fail.badRequest('max_players must be an integer from 0 to 1000');
    const tree = treeOf(ctx, s.id);
    const e = tree.get('/server.properties');
    if (!e) throw new ApiFailure(502, 'upstream_error', 'The node has no server.properties');
    tree.write('/server.properties', mergeProperties(e.data.toString('utf8'), new Map([['max-players', String(n)]])));
    return ok({ object: 'server_max_players', max_players: n, restart_required: true });
  },

  'GET /servers/{server_id}/players/online': (req, ctx) => {
    const s = serverOf(req, ctx);
    if (s.state !== 'running') return ok({ object: 'server_players_online', online: 0, query_succeeded: false });
    const online = playersOf(ctx, s).filter((p) => p.online);
    return ok({ object: 'server_players_online', online: online.length, max: maxPlayers(ctx, s), players: online.map((p) => p.name), query_succeeded: true });
  },

  'GET /servers/{server_id}/players/resolve': (req, ctx) => {
    const s = serverOf(req, ctx);
    const name = queryValue(req.query, 'name') ?? '';
    if (!NAME.test(name)) throw fail.badRequest('Invalid player name');
    if (!boolQuery(req.query, 'online_mode', true)) return ok({ object: 'player_profile', name, uuid: offlineUuid(name), online_mode: false });
    const known = playersOf(ctx, s).find((p) => p.name.toLowerCase() === name.toLowerCase());
    const uuid = known?.uuid ?? Object.entries(KNOWN_PROFILES).find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1];
    if (!uuid) throw fail.notFound('No profile with that name');
    return ok({ object: 'player_profile', name: known?.name ?? name, uuid, online_mode: true });
  },

  'GET /servers/{server_id}/players/{uuid}': (req, ctx) => {
    const s = serverOf(req, ctx);
    const p = playerOf(req, ctx);
    const section = queryValue(req.query, 'section');
    const sections = {
      stats: { play_time_ticks: 720_000, deaths: 3, mob_kills: 41 },
      advancements: { 'minecraft:story/mine_stone': true },
      recipes: ['minecraft:torch', 'minecraft:crafting_table'],
    };
    if (section !== undefined) {
      if (!(section in sections)) throw fail.badRequest('section must be stats, advancements or recipes');
      return ok({ object: 'server_player_section', uuid: p.uuid, section, [section]: sections[section as keyof typeof sections] });
    }
    return ok({ ...view(p, s), ...sections, position: { x: 12, y: 64, z: -30, dimension: 'minecraft:overworld' } });
  },

  'POST /servers/{server_id}/players/{uuid}/command': (req, ctx) => {
    const p = playerOf(req, ctx);
    const body = bodyObject(req);
    const command = reqString(body, 'command');
    if (!COMMANDS.has(command)) throw fail.badRequest(`Unknown command; one of ${[...COMMANDS].join(', ')}`);
    const args = optString(body, 'args');
    if (command === 'op' || command === 'deop') p.op = command === 'op';
    if (command === 'ban' || command === 'pardon') p.banned = command === 'ban';
    return ok({ object: 'player_command', command: [command, p.name, ...(args ? [args] : [])].join(' '), sent: true });
  },

  'GET /servers/{server_id}/players/{uuid}/inventory': (req, ctx) => {
    const p = playerOf(req, ctx);
    return ok({ object: 'player_inventory', uuid: p.uuid, main: p.inventory, ender_chest: [], equipment: {} });
  },

  'PATCH /servers/{server_id}/players/{uuid}/inventory': (req, ctx) => {
    if (Buffer.byteLength(JSON.stringify(req.body ?? null)) > 4 * 1024 * 1024) throw new ApiFailure(413, 'payload_too_large', 'Body exceeds 4 MB');
    const p = playerOf(req, ctx);
    const body = bodyObject(req);
    const action = reqString(body, 'action');
    if (!INVENTORY_ACTIONS.has(action)) throw fail.badRequest(`action must be one of ${[...INVENTORY_ACTIONS].join(', ')}`);
    if (action === 'clear') p.inventory = [];
    if (action === 'give') p.inventory.push({ slot: p.inventory.length, item: reqString(body, 'item'), count: Number(body.count ?? 1) || 1 });
    return ok({ object: 'player_inventory', uuid: p.uuid, main: p.inventory, ender_chest: [], equipment: {} });
  },

  'PATCH /servers/{server_id}/players/{uuid}/nbt': (req, ctx) => {
    const p = playerOf(req, ctx);
    const updates = bodyObject(req).updates;
    if (!Array.isArray(updates) || updates.length === 0 || updates.length > 50) throw fail.badRequest('updates must hold 1 to 50 field updates');
    return ok({ object: 'player_nbt_update', uuid: p.uuid, applied: updates.length });
  },

  'DELETE /servers/{server_id}/players/{uuid}/files': (req, ctx) => {
    const p = playerOf(req, ctx);
    const type = optString(bodyObject(req), 'type') ?? queryValue(req.query, 'type') ?? '';
    if (!FILE_TYPES.has(type)) throw fail.badRequest('type must be playerdata, stats or advancements');
    if (!p.files.delete(type)) throw fail.notFound(`The player has no ${type} file`);
    return ok({ object: 'player_file', uuid: p.uuid, type, deleted: true });
  },

  'POST /servers/{server_id}/players/migrate/preview': (req, ctx) => {
    const s = serverOf(req, ctx);
    return ok({ object: 'player_migration_plan', to: 'offline', players: playersOf(ctx, s).map((p) => ({ name: p.name, from: p.uuid, to: offlineUuid(p.name) })) });
  },

  'POST /servers/{server_id}/players/migrate/apply': (req, ctx) => {
    const s = serverOf(req, ctx);
    if (s.state !== 'offline') throw fail.conflict('The server must be stopped');
    const backupId = optString(bodyObject(req), 'backup_id');
    if (backupId !== undefined && !ctx.state.generic.collections.get(`/servers/${s.id}/backups`)?.has(backupId)) {
      throw fail.conflict('The backup does not exist or is not complete');
    }
    const players = playersOf(ctx, s);
    const moved = players.map((p) => ({ name: p.name, from: p.uuid, to: offlineUuid(p.name) }));
    for (const p of players) p.uuid = offlineUuid(p.name);
    const tree = treeOf(ctx, s.id);
    const props = tree.get('/server.properties');
    if (props) tree.write('/server.properties', mergeProperties(props.data.toString('utf8'), new Map([['online-mode', 'false']])));
    return ok({ object: 'player_migration', players: moved });
  },
};
