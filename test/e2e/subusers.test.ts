import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type E2E, setup } from './helpers.js';

// Subusers and server permissions (02-endpoints-part-a.md "Subusers"; 01-general-contract.md
// "Permission names used by endpoints" and "Authentication" rule 5: the owner always passes, a
// subuser needs the named permission). A key made with the sandbox's `subuser` option acts as a
// panel user who is a subuser of one server.

let t: E2E;
let S: string;
let other: string;
beforeAll(async () => {
  t = await setup({ servers: 3, clock: 'fast' });
  [S, other] = [...t.sandbox.state.servers.keys()] as [string, string];
});
afterAll(async () => {
  await t.close();
});

const json = (r: { stdout: unknown }) => JSON.parse(String(r.stdout));
const as = (key: string, args: string[]) => t.gsh(args, { env: { GSH_API_KEY: key } });

describe('a subuser key', () => {
  it('passes with a granted permission and is denied (403, exit 4) without one', async () => {
    const key = t.sandbox.createKey(['*'], { subuser: { serverId: S, permissions: ['file.read'] } });
    expect((await as(key, ['files', 'list', '-s', S, '--json'])).exitCode).toBe(0);
    const denied = await as(key, ['files', 'content', 'update', '-s', S, '-f', 'path=/x.txt', '-f', 'content=x']);
    expect(denied.exitCode).toBe(4);
    expect(t.sandbox.log.at(-1)).toMatchObject({ method: 'PUT', status: 403, errorCode: 'forbidden' });
    expect(String(denied.stderr)).toContain('file.update');
    expect((await as(key, ['hooks', 'list', '-s', S])).exitCode).toBe(4);
    expect((await as(key, ['servers', 'delete', '-s', S, '--yes'])).exitCode).toBe(4);
    expect(t.sandbox.state.servers.has(S)).toBe(true);
  });

  it('cannot see servers it is not a subuser of (404, and absent from servers list)', async () => {
    const key = t.sandbox.createKey(['*'], { subuser: { serverId: S, permissions: ['file.read'] } });
    expect((await as(key, ['files', 'list', '-s', other])).exitCode).toBe(5);
    expect(json(await as(key, ['servers', 'list', '--json'])).map((s: { id: string }) => s.id)).toEqual([S]);
  });

  it("follows the owner's changes to its permission set at once", async () => {
    const key = t.sandbox.createKey(['*'], { subuser: { serverId: S, permissions: ['user.read'] } });
    const listed = json(await t.gsh(['subusers', 'list', '-s', S, '--json'])) as Array<{ user_id: number; permissions: string[] }>;
    const me = listed.find((u) => u.permissions.join() === 'user.read')!;
    expect((await as(key, ['hooks', 'list', '-s', S])).exitCode).toBe(4);
    const updated = await t.gsh(['subusers', 'update', '-s', S, String(me.user_id), '--permissions', 'user.read,settings.edit', '--json']);
    expect(json(updated).permissions).toEqual(['user.read', 'settings.edit']);
    expect((await as(key, ['hooks', 'list', '-s', S])).exitCode).toBe(0);
    expect((await t.gsh(['subusers', 'delete', '-s', S, String(me.user_id)])).exitCode).toBe(0);
    expect((await as(key, ['hooks', 'list', '-s', S])).exitCode).toBe(5);
  });

  it('settings fields each need their own permission ("Settings": writable fields)', async () => {
    const key = t.sandbox.createKey(['*'], { subuser: { serverId: S, permissions: ['settings.rename'] } });
    expect((await as(key, ['settings', 'update', '-s', S, '--name', 'renamed-by-subuser'])).exitCode).toBe(0);
    expect(t.sandbox.state.servers.get(S)!.name).toBe('renamed-by-subuser');
    const denied = await as(key, ['settings', 'update', '-s', S, '--name', 'again', '--description', 'nope']);
    expect(denied.exitCode).toBe(4);
    expect(t.sandbox.state.servers.get(S)!.name).toBe('renamed-by-subuser');
  });
});

describe('subusers management', () => {
  it('adds by exactly one identifier, replaces an existing set, refuses the own entry and unknown users', async () => {
    const added = await t.gsh(['subusers', 'create', '-s', S, '--email', 'sam@example.com', '--permissions', 'file.read', '--json']);
    expect(added.exitCode, String(added.stderr)).toBe(0);
    expect(json(added)).toMatchObject({ object: 'server_subuser', user_id: 102, username: 'sam', permissions: ['file.read'] });
    expect(t.sandbox.log.at(-1)!.status).toBe(201);
    const again = json(await t.gsh(['subusers', 'create', '-s', S, '--username', 'sam', '--permissions', 'control.console', '--json']));
    expect(again.permissions).toEqual(['control.console']);
    expect((await t.gsh(['subusers', 'create', '-s', S, '--email', 'sam@example.com', '--username', 'sam'])).exitCode).not.toBe(0);
    expect(t.sandbox.log.at(-1)!.status).toBe(400);
    expect((await t.gsh(['subusers', 'create', '-s', S, '--email', 'nobody@example.com'])).exitCode).toBe(5);
    expect((await t.gsh(['subusers', 'create', '-s', S, '--username', 'demo'])).exitCode).toBe(4);
    // An unknown permission is refused while planning (exit 2, nothing sent); sent anyway with -f, the API answers 400.
    const mark = t.sandbox.log.length;
    expect((await t.gsh(['subusers', 'update', '-s', S, '102', '--permissions', 'not.a.permission'])).exitCode).toBe(2);
    expect(t.sandbox.log.slice(mark).filter((e) => e.method !== 'GET')).toEqual([]);
    expect((await t.gsh(['subusers', 'update', '-s', S, '102', '-f', 'permissions[]=not.a.permission'])).exitCode).not.toBe(0);
    expect(t.sandbox.log.at(-1)!.status).toBe(400);
  });
});
