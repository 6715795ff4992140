import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAllFamilies } from '../../src/operations/index.js';
import type { PermissionRule } from '../../src/operations/types.js';
import { startSandbox, type Sandbox, type ServerRecord } from '../../src/sandbox/index.js';
import { serverSlot } from '../../src/sandbox/node/slots.js';
import { grant } from '../../src/sandbox/permissions.js';
import { isEvent, RawSocket } from '../console/raw-socket.js';
import { type Fixtures, fill, makeFixtures } from '../e2e/walk-plan.js';
import { contractAccess, contractPermissions } from '../helpers/contract-access.js';
import { call, type Reply } from './helpers.js';

// Sandbox authorization against the contract's own access lines (test/helpers/contract-access.ts
// reads them from test/fixtures/spec, not from the registry the sandbox enforces).
// 01-general-contract.md "Authentication" rule 5 and "Permission names used by endpoints": the
// owner always passes, a subuser needs the named permission. Each case is sent twice by a subuser:
// without the permission (403 naming it), then with every permission, when it must succeed (2xx)
// on resources that exist (the command walk's fixtures). One sandbox for the file; the walk runs on
// its own servers, the defect checks on others.

const ops = (await loadAllFamilies()).flatMap((f) => f.operations);
const contract = contractAccess();
const ALL = contractPermissions();
const allBut = (p: string) => ALL.filter((x) => x !== p);

/** One request that needs `missing`: the body that makes the need apply; `onTarget` when it is needed on the target server. */
interface Case {
  name: string;
  op: string;
  method: string;
  path: string;
  missing: string;
  body?: Record<string, unknown>;
  onTarget?: boolean;
}

/** Values the sandbox accepts for the body fields the contract makes a permission depend on. */
const FIELD_VALUES: Record<string, unknown> = {
  name: 'renamed', description: 'walked', done_message: 'Done!', stop_command: 'stop', timezone: 'UTC', auto_stop: 30,
  start_on_join: true, autoupdate_mode: 'off', online_mode: true, application: 'minecraft', version: '1.21', image: 'ghcr.io/sandbox/java:21',
};

const cases: Case[] = contract.flatMap((e) => {
  const at = e.op;
  const base = { op: e.op, method: e.method, path: e.path };
  return [
    ...e.allOf.map((p) => ({ ...base, name: `${at} needs ${p}`, missing: p })),
    ...e.onTarget.map((p) => ({ ...base, name: `${at} needs ${p} on the target`, missing: p, onTarget: true })),
    ...Object.entries(e.byField).flatMap(([field, needs]) =>
      needs.map((p) => ({ ...base, name: `${at} field ${field} needs ${p}`, missing: p, body: { [field]: FIELD_VALUES[field] ?? 'x' } }))),
    ...Object.entries(e.byValue).flatMap(([field, values]) => Object.entries(values).flatMap(([value, needs]) =>
      needs.map((p) => ({ ...base, name: `${at} ${field}=${value} needs ${p}`, missing: p, body: { [field]: value } })))),
  ];
}).sort((a, b) => order(a) - order(b));

/** Installs before what uses them; then what empties, removes, or reinstalls (wiping files and players) what others use. */
function order(c: Case): number {
  if (c.path.endsWith('/addons/install')) return 0;
  if (c.path.endsWith('/files/trash/empty')) return 2;
  if (c.method === 'DELETE') return 3;
  if (/\/(reinstall|settings\/application)$/.test(c.path)) return 4;
  return 1;
}

/**
 * What a granted request needs beyond its path (ids from the walk's fixtures) to succeed: bodies
 * and queries the sandbox checks after authorization, by operation. Every granted case gets a 2xx.
 */
interface Granted {
  body?: Record<string, unknown>;
  query?: Record<string, string>;
  /** The walk server's state the request needs (default offline). */
  state?: 'offline' | 'running';
}
const S = '/servers/{server_id}';
/** Files the beforeAll writes on the walk server, one per operation that moves or removes one. */
const FILES = ['/walk.txt', '/move.txt', '/rename.txt', '/delete.txt', '/cut.txt', '/chmod.txt', '/zip.txt'];
/** Set by beforeAll: an archive on the walk server and the ids of two trash entries. */
let archive = '';
const trash: string[] = [];
const GRANTED: Record<string, Granted> = {
  [`POST ${S}/hooks`]: { body: { url: 'https://example.com/walk' } },
  [`POST ${S}/commands`]: { body: { command: 'say hi' }, state: 'running' },
  [`PATCH ${S}/startup`]: { body: { startup: 'java -Xms128M -jar server.jar' } },
  [`PATCH ${S}/startup/variables/{env_variable}`]: { body: { value: 'server.jar' } },
  [`PUT ${S}/properties`]: { body: { motd: 'walked' } },
  [`PUT ${S}/properties/configs/{config_type}`]: { body: { values: { 'settings.walk': 'yes' } } },
  [`POST ${S}/subusers`]: { body: { email: 'alex@example.com', permissions: ['file.read'] } },
  [`GET ${S}/files/content`]: { query: { path: '/walk.txt' } },
  [`PUT ${S}/files/content`]: { body: { path: '/written.txt', content: 'walked' } },
  [`POST ${S}/files/copy`]: { body: { location: '/walk.txt' } },
  [`POST ${S}/files/delete`]: { body: { files: ['/delete.txt'] } },
  [`POST ${S}/files/folder`]: { body: { path: '/', name: 'walked' } },
  [`POST ${S}/files/move`]: { body: { from: '/move.txt', to: '/moved.txt' } },
  [`POST ${S}/files/rename`]: { body: { from: '/rename.txt', to: '/renamed.txt' } },
  [`POST ${S}/files/chmod`]: { body: { files: ['/chmod.txt'], mode: '644' } },
  [`POST ${S}/files/compress`]: { body: { files: ['zip.txt'], directory: '/' } },
  [`GET ${S}/files/history`]: { query: { path: '/walk.txt' } },
  [`GET ${S}/files/search`]: { query: { query: 'walk' } },
  [`GET ${S}/files/search/content`]: { query: { query: 'walked' } },
  [`GET ${S}/files/nbt`]: { query: { path: '/world/level.dat' } },
  [`POST ${S}/files/copy-to`]: { body: { files: ['/cut.txt'], destination: '/walked' } },
  [`POST ${S}/files/download`]: { body: { file: '/walk.txt' } },
  [`POST ${S}/worlds/download`]: { body: { world: 'world' } },
  [`GET ${S}/worlds/nbt`]: { query: { world: 'world' } },
  [`PUT ${S}/players/max`]: { body: { max_players: 50 } },
  [`GET ${S}/players/resolve`]: { query: { name: 'Notch' } },
  [`POST ${S}/players/{uuid}/command`]: { body: { command: 'heal' } },
  [`PATCH ${S}/players/{uuid}/nbt`]: { body: { updates: [{ path: 'Health', value: 20 }] } },
  [`PATCH ${S}/players/{uuid}/inventory`]: { body: { action: 'clear' } },
  [`DELETE ${S}/players/{uuid}/files`]: { body: { type: 'stats' } },
  [`POST ${S}/addons/configure`]: { body: { slug: 'geyser' } },
  [`POST ${S}/addons/dependencies`]: { body: { ids: ['gvQqBUqZ'] } },
  [`POST ${S}/addons/install`]: { body: { source: 'provider_c', project_id: '1234', type: 'plugin' } },
  [`POST ${S}/addons/set-version`]: { body: { software: 'paper', version: '1.21.4' } },
  // The plugin addons/install put there (installs come first in the walk).
  [`POST ${S}/addons/toggle`]: { body: { filename: 'worldedit-7.3.4.jar', type: 'plugin' } },
  [`GET ${S}/addons/content/changelog`]: { query: { id: 'P7dR8mSH', source: 'provider_a', file_id: 'f1' } },
  [`GET ${S}/addons/content/changelog/timeline`]: { query: { id: 'P7dR8mSH', source: 'provider_a' } },
  [`GET ${S}/addons/content/details`]: { query: { id: 'P7dR8mSH', source: 'provider_a' } },
  [`GET ${S}/addons/content/related`]: { query: { id: 'P7dR8mSH', source: 'provider_a' } },
  [`GET ${S}/addons/content/versions`]: { query: { id: 'P7dR8mSH', source: 'provider_a' } },
  [`GET ${S}/addons/search`]: { query: { type: 'mods' } },
  [`POST ${S}/addons/custom-packs`]: { body: { name: 'walk pack', loader: 'fabric', version: '1.21.4' } },
  [`POST ${S}/addons/custom-packs/fork`]: { body: { source: 'provider_a', project_id: '1KVo5zza' } },
  [`POST ${S}/addons/custom-packs/{pack_id}/items`]: { body: { source: 'provider_a', project_id: 'AANobbMI' } },
  [`PATCH ${S}/addons/custom-packs/{pack_id}/items/{source}/{project_id}`]: { body: { version_id: '0.100.0' } },
};

/** Every permission a registry rule names, part by part, in the contract's terms. */
function registryNames(rule: PermissionRule | undefined): Record<string, string[]> {
  if (rule === undefined) return {};
  if (typeof rule === 'string') return { allOf: [rule] };
  const out: Record<string, string[]> = {};
  if (rule.allOf) out.allOf = [...rule.allOf].sort();
  if (rule.onServer) out.onTarget = [...rule.onServer.allOf].sort();
  for (const [f, needs] of Object.entries(rule.byField ?? {})) out[`field ${f}`] = [...needs].sort();
  for (const [v, needs] of Object.entries(rule.byValue?.values ?? {})) out[`${rule.byValue!.field}=${v}`] = [...needs].sort();
  return out;
}

let sb: Sandbox;
let fx: Fixtures;
let dir: string;
/** Walk server, transfer target; `running` (seeded running) and `spare` are left to the defect checks. */
let walk: ServerRecord, target: ServerRecord, running: ServerRecord, spare: ServerRecord;
let seeded: Set<string>;

beforeAll(async () => {
  sb = await startSandbox({ timeScale: 0.02, servers: 5 });
  seeded = new Set(sb.state.servers.keys());
  dir = mkdtempSync(join(tmpdir(), 'gsh-authorization-'));
  fx = await makeFixtures(sb, ops, dir);
  const servers = [...sb.state.servers.values()].filter((s) => seeded.has(s.id));
  walk = sb.state.servers.get(fx.server)!;
  running = servers.find((s) => s.state === 'running')!;
  [target, spare] = servers.filter((s) => s !== running && s !== walk) as [ServerRecord, ServerRecord];
  for (const path of FILES) expect((await call(sb, 'PUT', `/servers/${walk.id}/files/content`, { body: { path, content: 'walked' } })).status).toBe(200);
  // Premium operations (document 2: resources, startup, start_on_join) want a paid plan.
  walk.plan = 'paid';
  const zip = await call(sb, 'POST', `/servers/${walk.id}/files/compress`, { body: { files: ['zip.txt'], directory: '/' } });
  expect(zip.status, zip.text).toBe(200);
  archive = zip.body.data.name;
  // The sandbox seeds one trash entry (the public delete does not trash); the walk needs two.
  const listed = await call(sb, 'GET', `/servers/${walk.id}/files/trash`);
  trash.push(listed.body.data[0].id, 'trash_walk');
  serverSlot<unknown[]>(sb.extensions.context, walk.id, 'trash', () => []).push({ id: 'trash_walk', path: '/gone.txt', data: Buffer.from('gone'), deleted_at: '2024-01-15T09:00:00Z' });
}, 60_000);
afterAll(() => {
  sb?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const userIdOf = (secret: string) => sb.extensions.context.keys.all().find((k) => k.secret === secret)!.userId!;

/** A key with every scope acting as a subuser holding `onPath` on `serverId` and `onOther` on the target. */
function subuserKey(serverId: string, onPath: string[], onOther?: string[]): string {
  const key = sb.createKey(['*'], { subuser: { serverId, permissions: onPath } });
  if (onOther) grant(sb.extensions.context, target.id, userIdOf(key), onOther);
  return key;
}

/** Operations whose setup is known only once beforeAll has run. */
function setupOf(op: string): Granted {
  switch (op) {
    case `POST ${S}/files/decompress`: return { body: { file: archive, directory: '/' } };
    case `GET ${S}/files/archive`: return { query: { path: archive } };
    case `POST ${S}/files/archive/extract`: return { body: { path: `/${archive}`, directory: '/walked' } };
    case `POST ${S}/files/trash/restore`: return { body: { entries: [trash[0]] } };
    case `POST ${S}/files/trash/delete`: return { body: { entries: [trash[1]] } };
    default: return GRANTED[op] ?? {};
  }
}

/** Puts the walk server in `state` with no transition or reinstall pending from an earlier case. */
function settle(state: 'offline' | 'running'): void {
  for (const cancel of walk.timers) cancel();
  walk.timers.clear();
  walk.lifecycleStatus = undefined;
  walk.state = state;
}

/** A custom pack owned by the key's user (03 "Custom packs": the pack must be owned by the key holder). */
async function packOf(key: string): Promise<string> {
  const r = await call(sb, 'POST', `/servers/${walk.id}/addons/custom-packs/fork`, { key, body: { source: 'provider_a', project_id: '1KVo5zza' } });
  expect(r.status, r.text).toBe(201);
  return r.body.data.id;
}

async function send(c: Case, key: string, owned = false): Promise<Reply> {
  const setup = setupOf(c.op);
  // Stop and restart act on a running server, start on an offline one.
  settle(setup.state ?? (c.body?.signal === 'stop' || c.body?.signal === 'restart' ? 'running' : 'offline'));
  const query = new URLSearchParams(setup.query ?? {}).toString();
  let path = fill(c.path, fx, walk.id);
  if (owned && c.path.includes('{pack_id}')) path = path.replace(fx.values.pack_id!, await packOf(key));
  // players/migrate/apply moves player data to new uuids: name a player there now.
  if (c.path.includes('{uuid}')) path = path.replace(fx.values.uuid!, (await call(sb, 'GET', `/servers/${walk.id}/players`)).body.data[0].uuid);
  path += query ? `?${query}` : '';
  const body = { ...setup.body, ...c.body, ...(c.op === 'POST /servers/{server_id}/files/transfer' ? { target_server_id: target.id, files: ['/walk.txt'] } : {}) };
  return call(sb, c.method, path, { key, ...(c.method === 'GET' ? {} : { body }) });
}

const refusedFor = (r: Reply) => (r.status === 403 ? /^Missing server permission (\S+)$/.exec(r.body?.error?.message ?? '')?.[1] : undefined);

describe('every operation the contract gives a server permission refuses a subuser without it (01-general-contract.md "Permission names used by endpoints")', () => {
  it('the registry names the contract\'s permissions, part by part (kill and the unnamed message-of-the-day fields are the registry\'s choices)', () => {
    const byOp = new Map(contract.map((e) => [e.op, e]));
    const mismatches: string[] = [];
    for (const op of ops) {
      const id = `${op.method} ${op.path}`;
      const reg = registryNames(op.permission);
      const e = byOp.get(id);
      const con: Record<string, string[]> = {};
      if (e?.allOf.length) con.allOf = [...e.allOf].sort();
      if (e?.onTarget.length) con.onTarget = [...e.onTarget].sort();
      for (const [f, needs] of Object.entries(e?.byField ?? {})) con[`field ${f}`] = [...needs].sort();
      for (const [f, values] of Object.entries(e?.byValue ?? {})) for (const [v, needs] of Object.entries(values)) con[`${f}=${v}`] = [...needs].sort();
      // The contract does not say what kill needs, nor name the message-of-the-day fields.
      if (id === 'POST /servers/{server_id}/power') delete reg['signal=kill'];
      if (id === 'PATCH /servers/{server_id}/settings') delete reg['field motd'];
      if (JSON.stringify(reg) !== JSON.stringify(con)) mismatches.push(`${id}: registry ${JSON.stringify(reg)}, contract ${JSON.stringify(con)}`);
    }
    expect(mismatches).toEqual([]);
  });

  it('the walk covers every permission the contract names', () => {
    expect(new Set(cases.map((c) => c.op)).size).toBeGreaterThan(100);
    // control.command is the console socket's (01 "Console socket"; checked below).
    expect(new Set([...cases.map((c) => c.missing), 'control.command'])).toEqual(new Set(ALL));
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s: 403 without it, 2xx with it', async (_name, c) => {
    const without = c.onTarget ? subuserKey(walk.id, ALL, allBut(c.missing)) : subuserKey(walk.id, allBut(c.missing), ALL);
    const refused = await send(c, without);
    expect(refused.status, refused.text).toBe(403);
    expect(refusedFor(refused)).toBe(c.missing);
    const granted = await send(c, subuserKey(walk.id, ALL, ALL), true);
    expect(granted.status, granted.text).toBeGreaterThanOrEqual(200);
    expect(granted.status, granted.text).toBeLessThan(300);
  });
});

describe('defect: power needs the permission of its signal (02-endpoints-part-a.md "Power")', () => {
  it('a subuser holding only control.console cannot stop, by REST or over the console socket', async () => {
    const key = subuserKey(running.id, ['control.console']);
    const before = sb.state.powerActions.length;
    const stop = await call(sb, 'POST', `/servers/${running.id}/power`, { key, body: { signal: 'stop' } });
    expect(stop.status).toBe(403);
    expect(refusedFor(stop)).toBe('control.stop');
    expect(refusedFor(await call(sb, 'POST', `/servers/${running.id}/power`, { key, body: { signal: 'kill' } }))).toBe('control.stop');
    expect(sb.state.powerActions.length).toBe(before);

    // 01 "Console socket": `set state` needs control.stop, `send command` control.command; the
    // token carries only what the subuser holds.
    const session = await call(sb, 'POST', `/servers/${running.id}/console/token`, { key });
    expect(session.status, session.text).toBe(201);
    expect(session.body.data.permissions).toEqual(['control.console']);
    const socket = await RawSocket.open(session.body.data.socket);
    try {
      socket.send('auth', session.body.data.token);
      await socket.next(isEvent('auth success'));
      socket.send('set state', 'stop');
      expect((await socket.next(isEvent('daemon error'))).args).toEqual(['permission denied: control.stop']);
    } finally {
      socket.close();
    }
    expect(running.state).toBe('running');
  });

  it('with control.stop the same subuser stops it', async () => {
    const r = await call(sb, 'POST', `/servers/${running.id}/power`, { key: subuserKey(running.id, ['control.stop']), body: { signal: 'stop' } });
    expect(r.status, r.text).toBe(202);
  });
});

describe('defect: files transfer needs servers:files:read and servers:files:write (03-endpoints-part-b.md "File transfers")', () => {
  const transfer = (key: string) =>
    call(sb, 'POST', `/servers/${spare.id}/files/transfer`, { key, body: { files: ['/note.txt'], target_server_id: running.id } });

  beforeAll(async () => {
    expect((await call(sb, 'PUT', `/servers/${spare.id}/files/content`, { body: { path: '/note.txt', content: 'hi' } })).status).toBe(200);
  });

  it('a key holding both scopes transfers', async () => {
    const r = await transfer(sb.createKey(['servers:files:read', 'servers:files:write']));
    expect(r.status, r.text).toBe(200);
  });

  it('a key holding only one of them is refused naming the other', async () => {
    const r = await transfer(sb.createKey(['servers:files:read']));
    expect(r.status).toBe(403);
    expect(r.body.error.message).toBe('This key lacks the scope servers:files:write');
  });
});

describe('defect: a credential reaches only its own account\'s servers (01-general-contract.md "API keys" rule 3; "Agent registration flow", Account reach)', () => {
  let agentToken: string;
  let agentServer: string;

  beforeAll(async () => {
    const before = new Set(sb.state.servers.keys());
    const identity = await call(sb, 'POST', '/agent/identity', { key: null, body: { type: 'anonymous' } });
    const res = await fetch(`${sb.baseUrl}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: identity.body.data.identity_assertion }),
    });
    agentToken = ((await res.json()) as { access_token: string }).access_token;
    // Registration made the temporary account's one free server: the one listed now and not before.
    agentServer = [...sb.state.servers.keys()].find((id) => !before.has(id))!;
  });

  const listedIds = async (key: string) => (await call(sb, 'GET', '/servers', { key })).body.data.map((s: { id: string }) => s.id);
  const transfer = (key: string, from: string, to: string) =>
    call(sb, 'POST', `/servers/${from}/files/transfer`, { key, body: { files: ['/note.txt'], target_server_id: to } });

  it('the temporary account sees and reaches only its own server, not even as a transfer target', async () => {
    expect(await listedIds(agentToken)).toEqual([agentServer]);
    expect((await call(sb, 'GET', `/servers/${spare.id}`, { key: agentToken })).status).toBe(404);
    const r = await transfer(agentToken, agentServer, spare.id);
    expect(r.status).toBe(404);
    expect(r.body.error.message).toBe('Target server not found');
  });

  it('the real account\'s key neither lists nor reaches the temporary account\'s server', async () => {
    const ids = await listedIds(sb.keys.all);
    expect(ids).toContain(spare.id);
    expect(ids).not.toContain(agentServer);
    expect((await call(sb, 'GET', `/servers/${agentServer}`)).status).toBe(404);
    expect((await call(sb, 'POST', `/servers/${agentServer}/power`, { body: { signal: 'stop' } })).status).toBe(404);
    expect((await transfer(sb.keys.all, spare.id, agentServer)).status).toBe(404);
  });

  it('a subuser key lists and reaches only the server it was shared on', async () => {
    const key = subuserKey(spare.id, ['file.read']);
    expect(await listedIds(key)).toEqual([spare.id]);
    expect((await call(sb, 'GET', `/servers/${running.id}`, { key })).status).toBe(404);
    expect((await call(sb, 'GET', `/servers/${agentServer}`, { key })).status).toBe(404);
  });
});
