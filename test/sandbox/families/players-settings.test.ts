import { describe, expect, it } from 'vitest';
import { requiredPermissions } from '../../../src/sandbox/permissions.js';
import { offlineUuid } from '../../../src/sandbox/handlers/players.js';
import { call, withSandbox } from '../helpers.js';
import type { Sandbox } from '../../../src/sandbox/index.js';

// 03-endpoints-part-b.md "Players"; 02-endpoints-part-a.md "Settings" and "Startup";
// 01-general-contract.md "Permission names used by endpoints".

const minecraft = (sb: Sandbox) => [...sb.state.servers.values()].find((s) => s.application === 'minecraft')!;

describe('players', () => {
  it('lists, searches, resolves names and validates UUIDs', () =>
    withSandbox({}, async (sb) => {
      const s = minecraft(sb);
      const p = `/servers/${s.id}/players`;
      const all = (await call(sb, 'GET', p)).body;
      expect(all.pagination.total).toBe(3);
      expect((await call(sb, 'GET', `${p}?search=steve`)).body.data.map((x: { name: string }) => x.name)).toEqual(['SteveMines']);
      expect((await call(sb, 'GET', `${p}/resolve?name=Notch`)).body.data.uuid).toBe('069a79f4-44e9-4726-a5be-fca90e38aaf5');
      expect((await call(sb, 'GET', `${p}/resolve?name=Steve&online_mode=false`)).body.data.uuid).toBe(offlineUuid('Steve'));
      expect((await call(sb, 'GET', `${p}/resolve?name=a`)).status).toBe(400);
      expect((await call(sb, 'GET', `${p}/not-a-uuid`)).status).toBe(400);
      expect((await call(sb, 'GET', `${p}/${all.data[0].uuid}?section=stats`)).body.data.stats).toBeDefined();
      expect((await call(sb, 'PUT', `${p}/max`, { body: { max_players: 1001 } })).status).toBe(400);
    }));

  it('the offline UUID is the version-3 UUID of "OfflinePlayer:<name>"', () => {
    expect(offlineUuid('Notch')).toBe('b50ad385-829d-3141-a216-7e7d7539ba7f');
  });

  it('migrate apply needs a stopped server and flips online-mode', () =>
    withSandbox({}, async (sb) => {
      const running = [...sb.state.servers.values()].find((s) => s.state === 'running')!;
      expect((await call(sb, 'POST', `/servers/${running.id}/players/migrate/apply`, { body: {} })).status).toBe(409);
      const s = [...sb.state.servers.values()].find((x) => x.state === 'offline' && x.application === 'minecraft')!;
      const plan = (await call(sb, 'POST', `/servers/${s.id}/players/migrate/preview`)).body.data.players;
      const applied = (await call(sb, 'POST', `/servers/${s.id}/players/migrate/apply`, { body: {} })).body.data.players;
      expect(applied).toEqual(plan);
      expect((await call(sb, 'GET', `/servers/${s.id}/settings`)).body.data.online_mode).toBe(false);
    }));
});

describe('settings and startup', () => {
  it('PATCH settings writes each field; online_mode lands in server.properties; empty is 400', () =>
    withSandbox({}, async (sb) => {
      const s = minecraft(sb);
      const r = await call(sb, 'PATCH', `/servers/${s.id}/settings`, { body: { name: 'hub', stop_command: 'end', online_mode: false } });
      expect(r.body.data).toMatchObject({ object: 'server_settings', name: 'hub', stop_command: 'end', online_mode: false });
      expect(sb.state.servers.get(s.id)!.name).toBe('hub');
      expect((await call(sb, 'PATCH', `/servers/${s.id}/settings`, { body: {} })).status).toBe(400);
      expect((await call(sb, 'PATCH', `/servers/${s.id}/settings`, { body: { owner: 'x' } })).status).toBe(400);
    }));

  it('resources and startup command need a premium (paid) plan', () =>
    withSandbox({}, async (sb) => {
      const s = minecraft(sb);
      s.plan = 'free';
      expect((await call(sb, 'PUT', `/servers/${s.id}/resources`, { body: { memory_mb: 4096 } })).status).toBe(403);
      expect((await call(sb, 'PATCH', `/servers/${s.id}/startup`, { body: { startup: 'java -jar x.jar' } })).status).toBe(403);
      s.plan = 'paid';
      expect((await call(sb, 'PUT', `/servers/${s.id}/resources`, { body: { memory_mb: 4096 } })).body.data.memory_mb).toBe(4096);
      expect((await call(sb, 'PUT', `/servers/${s.id}/resources`, { body: { memory_mb: 10 ** 9 } })).status).toBe(400);
      expect((await call(sb, 'PATCH', `/servers/${s.id}/startup`, { body: { startup: 'java -jar x.jar' } })).body.data.startup).toBe('java -jar x.jar');
      expect((await call(sb, 'PATCH', `/servers/${s.id}/startup/variables/SERVER_JARFILE`, { body: { value: 'paper.jar' } })).body.data.value).toBe('paper.jar');
      expect((await call(sb, 'PATCH', `/servers/${s.id}/startup/variables/NOPE`, { body: { value: 'x' } })).status).toBe(404);
    }));

  it('the application switch takes exactly one of application, version, image', () =>
    withSandbox({}, async (sb) => {
      const s = minecraft(sb);
      const path = `/servers/${s.id}/settings/application`;
      expect((await call(sb, 'PUT', path, { body: { version: '1.21', image: 'x' } })).status).toBe(400);
      expect((await call(sb, 'PUT', path, { body: { image: 'ghcr.io/sandbox/java:17' } })).status).toBe(200);
      const sw = await call(sb, 'PUT', path, { body: { application: 'terraria' } });
      expect(sw.body.data).toMatchObject({ application: 'terraria', reinstalling: true });
      expect((await call(sb, 'PUT', path, { body: { application: 'minecraft' } })).body.error.code).toBe('server_installing');
    }));
});

describe('permission rules the pipeline checks', () => {
  it('reads the registry structure: one name, allOf, per body field, per field value', () => {
    expect(requiredPermissions('file.read', undefined)).toEqual(['file.read']);
    expect(requiredPermissions({ allOf: ['file.read', 'file.update'] }, {})).toEqual(['file.read', 'file.update']);
    const modpack = { allOf: ['file.update'], byValue: { field: 'mode', values: { clean: ['file.delete'] } } };
    expect(requiredPermissions(modpack, {})).toEqual(['file.update']);
    expect(requiredPermissions(modpack, { mode: 'clean' })).toEqual(['file.update', 'file.delete']);
    const app = { byField: { application: ['file.delete'], version: ['startup.update'] } };
    expect(requiredPermissions(app, { version: '1.21' })).toEqual(['startup.update']);
    expect(requiredPermissions(app, { application: 'x' })).toEqual(['file.delete']);
    // Only the rule's own keys: a value naming an Object.prototype member finds nothing.
    expect(requiredPermissions({ byValue: { field: 'mode', values: { cut: ['file.update'] } } }, { mode: 'constructor' })).toEqual([]);
  });
});
