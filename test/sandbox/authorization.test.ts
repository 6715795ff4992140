import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAllFamilies } from '../../src/operations/index.js';
import type { Operation } from '../../src/operations/types.js';
import { PERMISSIONS } from '../../src/operations/vocabulary.js';
import { startSandbox, type Sandbox, type ServerRecord } from '../../src/sandbox/index.js';
import { grant } from '../../src/sandbox/permissions.js';
import { isEvent, RawSocket } from '../console/raw-socket.js';
import { call, type Reply } from './helpers.js';

// Sandbox authorization from the registry's structured `scope` and `permission`
// (src/operations/types.ts). 01-general-contract.md "Authentication" rule 5 and "Permission names
// used by endpoints": the owner always passes, a subuser needs the named permission. One sandbox
// for the file; the walk runs on its own servers, the defect checks on others.

const ops = (await loadAllFamilies()).flatMap((f) => f.operations);

/** One request that needs `missing`: the body that triggers it; `onServer` when it is needed on the target. */
interface Case {
  name: string;
  op: Operation;
  missing: string;
  body?: Record<string, unknown>;
  onServer?: string;
}

/** Every permission each part of an operation's rule names, with a body that makes the part apply. */
function casesOf(op: Operation): Case[] {
  const rule = op.permission;
  const at = `${op.method} ${op.path}`;
  if (rule === undefined) return [];
  if (typeof rule === 'string') return [{ name: `${at} needs ${rule}`, op, missing: rule }];
  const out: Case[] = (rule.allOf ?? []).map((p) => ({ name: `${at} needs ${p}`, op, missing: p }));
  for (const [field, needs] of Object.entries(rule.byField ?? {})) {
    for (const p of needs) out.push({ name: `${at} field ${field} needs ${p}`, op, missing: p, body: { [field]: 'x' } });
  }
  const byValue = rule.byValue;
  for (const [value, needs] of Object.entries(byValue?.values ?? {})) {
    for (const p of needs) out.push({ name: `${at} ${byValue!.field}=${value} needs ${p}`, op, missing: p, body: { [byValue!.field]: value } });
  }
  for (const p of rule.onServer?.allOf ?? []) {
    out.push({ name: `${at} needs ${p} on the server in ${rule.onServer!.field}`, op, missing: p, onServer: rule.onServer!.field });
  }
  return out;
}

const cases = ops.flatMap(casesOf);
const ALL = [...PERMISSIONS];
const allBut = (p: string) => ALL.filter((x) => x !== p);

let sb: Sandbox;
/** Walk server, transfer target; `running` (seeded running) and `spare` are left to the defect checks. */
let walk: ServerRecord, target: ServerRecord, running: ServerRecord, spare: ServerRecord;

beforeAll(async () => {
  sb = await startSandbox({ timeScale: 0.02, servers: 4 });
  const servers = [...sb.state.servers.values()];
  running = servers.find((s) => s.state === 'running')!;
  [walk, target, spare] = servers.filter((s) => s !== running) as [ServerRecord, ServerRecord, ServerRecord];
});
afterAll(() => sb?.close());

const userIdOf = (secret: string) => sb.extensions.context.keys.all().find((k) => k.secret === secret)!.userId!;

/** A key with every scope acting as a subuser holding `onPath` on `serverId` and `onOther` on the target. */
function subuserKey(serverId: string, onPath: string[], onOther?: string[]): string {
  const key = sb.createKey(['*'], { subuser: { serverId, permissions: onPath } });
  if (onOther) grant(sb.extensions.context, target.id, userIdOf(key), onOther);
  return key;
}

function send(c: Case, key: string): Promise<Reply> {
  const path = c.op.path.replace('{server_id}', walk.id).replace(/\{\w+\}/g, 'x1');
  const body = { ...c.body, ...(c.onServer ? { [c.onServer]: target.id, files: ['/x'] } : {}) };
  return call(sb, c.op.method, path, { key, ...(c.op.method === 'GET' ? {} : { body }) });
}

const refusedFor = (r: Reply) => (r.status === 403 ? /^Missing server permission (\S+)$/.exec(r.body?.error?.message ?? '')?.[1] : undefined);

describe('every operation naming a server permission refuses a subuser without it (01-general-contract.md "Permission names used by endpoints")', () => {
  it('the walk covers every operation with a permission and every permission the contract names', () => {
    const withPermission = ops.filter((op) => op.permission !== undefined);
    expect(withPermission.length).toBeGreaterThan(100);
    expect(new Set(cases.map((c) => c.op))).toEqual(new Set(withPermission));
    // control.command is the console socket's (01 "Console socket"; checked below).
    expect(new Set([...cases.map((c) => c.missing), 'control.command'])).toEqual(new Set(ALL));
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s: 403 without it, not refused with it', async (_name, c) => {
    const without = c.onServer ? subuserKey(walk.id, ALL, allBut(c.missing)) : subuserKey(walk.id, allBut(c.missing));
    const refused = await send(c, without);
    expect(refused.status, refused.text).toBe(403);
    expect(refusedFor(refused)).toBe(c.missing);
    const granted = await send(c, c.onServer ? subuserKey(walk.id, ALL, ALL) : subuserKey(walk.id, ALL));
    expect(refusedFor(granted), granted.text).toBeUndefined();
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
    const identity = await call(sb, 'POST', '/agent/identity', { key: null, body: { type: 'anonymous' } });
    const res = await fetch(`${sb.baseUrl}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: identity.body.data.identity_assertion }),
    });
    agentToken = ((await res.json()) as { access_token: string }).access_token;
    // Registration made the temporary account's one free server: the only one not seeded.
    agentServer = [...sb.state.servers.keys()].find((id) => ![walk, target, running, spare].some((s) => s.id === id))!;
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
