import { describe, expect, it } from 'vitest';
import { call, serverIds, until, withSandbox } from '../helpers.js';

// 03-endpoints-part-b.md "Custom packs", "Addons" and "Modules (runtime dependencies)".

describe('custom packs', () => {
  it('create, add with dependencies, confirm incompatible items, install full then diff', () =>
    withSandbox({}, async (sb) => {
      const [id] = serverIds(sb);
      const base = `/servers/${id}/addons/custom-packs`;
      expect((await call(sb, 'POST', base, { body: { name: 'x', loader: 'bukkit', version: '1.21.4' } })).status).toBe(400);
      const pack = (await call(sb, 'POST', base, { body: { name: 'Mine', loader: 'fabric', version: '1.21.4' } })).body.data;
      const added = await call(sb, 'POST', `${base}/${pack.id}/items`, { body: { source: 'provider_a', project_id: 'gvQqBUqZ' } });
      expect(added.status).toBe(201);
      expect(added.body.data.added.map((i: { project_id: string }) => i.project_id)).toEqual(['gvQqBUqZ', 'P7dR8mSH']);
      const jei = await call(sb, 'POST', `${base}/${pack.id}/items`, { body: { source: 'provider_b', project_id: 'jei' } });
      expect(jei.body.data).toMatchObject({ requires_confirmation: true });
      expect((await call(sb, 'POST', `${base}/${pack.id}/items`, { body: { source: 'provider_b', project_id: 'jei', force: true } })).status).toBe(201);
      expect((await call(sb, 'GET', `${base}/${pack.id}/diff`)).body.data.added).toHaveLength(3);
      expect((await call(sb, 'POST', `${base}/${pack.id}/install`)).body.data).toMatchObject({ mode: 'full', added: 3 });
      await call(sb, 'DELETE', `${base}/${pack.id}/items/provider_b/jei`);
      expect((await call(sb, 'POST', `${base}/${pack.id}/install`)).body.data).toMatchObject({ mode: 'diff', removed: 1 });
      const mods = (await call(sb, 'GET', `/servers/${id}/files?directory=/mods`)).body.data.map((f: { name: string }) => f.name);
      expect(mods.sort()).toEqual(['P7dR8mSH-0.102.0.jar', 'gvQqBUqZ-mc1.21-0.13.0.jar']);
      expect((await call(sb, 'GET', base)).body.data[0]).toMatchObject({ installed: true, pending_changes: 0 });
    }));

  it("another user's pack is forbidden", () =>
    withSandbox({}, async (sb) => {
      const [id] = serverIds(sb);
      const base = `/servers/${id}/addons/custom-packs`;
      const pack = (await call(sb, 'POST', `${base}/fork`, { body: { source: 'provider_a', project_id: '1KVo5zza' } })).body.data;
      expect(pack.items).toHaveLength(3);
      const key = sb.createKey(['*'], { subuser: { serverId: id!, permissions: ['file.read', 'file.update'] } });
      expect((await call(sb, 'GET', `${base}/${pack.id}`, { key })).status).toBe(403);
      expect((await call(sb, 'GET', base, { key })).body.data).toEqual([]);
    }));
});

describe('addons', () => {
  it('install resolves dependencies and skips present files; toggle renames with .disabled', () =>
    withSandbox({}, async (sb) => {
      const [id] = serverIds(sb);
      const a = `/servers/${id}/addons`;
      const first = (await call(sb, 'POST', `${a}/install`, { body: { source: 'provider_a', project_id: 'gvQqBUqZ', type: 'mod' } })).body.data;
      expect(first.installed).toEqual(['/mods/fabric-api-0.102.0.jar', '/mods/lithium-mc1.21-0.13.0.jar']);
      const again = (await call(sb, 'POST', `${a}/install`, { body: { source: 'provider_a', project_id: 'P7dR8mSH', type: 'mod' } })).body.data;
      expect(again).toMatchObject({ installed: [], skipped: ['/mods/fabric-api-0.102.0.jar'] });
      await call(sb, 'POST', `${a}/toggle`, { body: { filename: 'lithium-mc1.21-0.13.0.jar', type: 'mod' } });
      const list = (await call(sb, 'GET', `${a}?detailed=false`)).body.data;
      expect(list.find((x: { filename: string }) => x.filename.startsWith('lithium'))).toMatchObject({ filename: 'lithium-mc1.21-0.13.0.jar.disabled', enabled: false });
      expect((await call(sb, 'POST', `${a}/install`, { body: { source: 'provider_z', project_id: 'x', type: 'mod' } })).status).toBe(400);
      expect((await call(sb, 'GET', `/servers/${id}/software/versions?software=paper&version=1.21.4`)).body.data.map((b: { build: number }) => b.build)).toEqual([200, 201, 232]);
    }));
});

describe('module tasks', () => {
  it('install is a background task that edits package.json; tasks can be cancelled', () =>
    withSandbox({}, async (sb) => {
      const id = [...sb.state.servers.values()].find((s) => s.application === 'minecraft')!.id;
      const m = `/servers/${id}/modules`;
      expect((await call(sb, 'POST', `${m}/install`, { body: { name: 'ws' } })).status).toBe(409);
      await call(sb, 'PUT', `/servers/${id}/files/content`, { body: { path: '/package.json', content: '{"dependencies":{"express":"^4.19.2"}}' } });
      expect((await call(sb, 'GET', `${m}/capabilities`)).body.data.manifests).toEqual([{ file: 'package.json', ecosystem: 'npm' }]);
      const task = (await call(sb, 'POST', `${m}/install`, { body: { name: 'ws' } })).body.data;
      expect(task).toMatchObject({ object: 'module_task', state: 'queued', job_id: task.id });
      const cancelled = (await call(sb, 'POST', `${m}/update`, { body: { name: 'express' } })).body.data;
      expect((await call(sb, 'DELETE', `${m}/tasks/${cancelled.id}`)).body.data).toMatchObject({ state: 'failed', message: 'Cancelled' });
      await until(async () => (await call(sb, 'GET', `${m}/tasks/${task.id}`)).body.data.state === 'completed');
      expect((await call(sb, 'GET', m)).body.data.map((d: { name: string }) => d.name)).toEqual(['express', 'ws']);
      expect((await call(sb, 'GET', `${m}/tasks/${task.id}/logs`)).body.data.lines).toEqual(['install ws', 'resolving versions', 'done']);
    }));
});
