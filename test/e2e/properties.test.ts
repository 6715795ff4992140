import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_PROPERTIES } from '../../src/sandbox/node/server-files.js';
import { type E2E, setup } from './helpers.js';

// Properties (02-endpoints-part-a.md "Properties"): PUT /properties is a bulk key/value merge —
// only sent keys change, comments and ordering are kept, resource-related keys are clamped on
// free-plan servers; GET lists server_property objects sorted by key; config files merge by dot
// notation and keep what was not sent.

let t: E2E;
beforeAll(async () => {
  t = await setup({ servers: 3, clock: 'fast' });
});
afterAll(async () => {
  await t.close();
});

const json = (r: { stdout: unknown }) => JSON.parse(String(r.stdout));
const minecraft = () => [...t.sandbox.state.servers.values()].filter((s) => s.application === 'minecraft');

describe('properties update', () => {
  it('merges only the sent keys, keeping comments and order, appending new keys', async () => {
    const s = minecraft()[0]!;
    s.plan = 'paid';
    const r = await t.gsh(['properties', 'update', '-s', s.id, '-f', 'motd=Welcome to the lobby', '-F', 'max-players=40', '-f', 'spawn-protection=0', '--json']);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(t.sandbox.log.at(-1)!.body).toEqual({ motd: 'Welcome to the lobby', 'max-players': 40, 'spawn-protection': '0' });
    const file = await t.gsh(['files', 'content', 'get', '-s', s.id, '--path', '/server.properties']);
    expect(String(file.stdout)).toBe(SERVER_PROPERTIES
      .replace('motd=A Minecraft Server', 'motd=Welcome to the lobby')
      .replace('max-players=20', 'max-players=40')
      .concat('spawn-protection=0\n')
      .trimEnd());
    const list = json(r) as Array<{ object: string; key: string; value: string }>;
    expect(list.map((p) => p.key)).toEqual([...list.map((p) => p.key)].sort());
    expect(list.find((p) => p.key === 'max-players')).toEqual({ object: 'server_property', key: 'max-players', value: '40' });
  });

  it('clamps resource-related keys on a free-plan server', async () => {
    const s = minecraft()[1] ?? minecraft()[0]!;
    s.plan = 'free';
    const r = await t.gsh(['properties', 'update', '-s', s.id, '-F', 'max-players=500', '-F', 'view-distance=32', '-f', 'difficulty=hard', '--json']);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const values = Object.fromEntries((json(r) as Array<{ key: string; value: string }>).map((p) => [p.key, p.value]));
    expect(values).toMatchObject({ 'max-players': '20', 'view-distance': '10', difficulty: 'hard' });
  });

  it('an empty merge is a bad request', async () => {
    const r = await t.gsh(['properties', 'update', '-s', minecraft()[0]!.id]);
    expect(r.exitCode).not.toBe(0);
    expect(t.sandbox.log.at(-1)).toMatchObject({ status: 400, errorCode: 'bad_request' });
  });
});

describe('config files', () => {
  it('lists known configs and merges dot-notation keys into YAML, keeping comments', async () => {
    const s = minecraft()[0]!;
    const configs = json(await t.gsh(['properties', 'configs', 'list', '-s', s.id, '--json'])) as Array<{ type: string }>;
    expect(configs.map((c) => c.type)).toEqual(['bukkit', 'spigot']);
    const r = await t.gsh(['properties', 'configs', 'update', '-s', s.id, 'bukkit', '-F', 'settings.allow-end=false', '-F', 'spawn-limits.monsters=50', '--json']);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const got = json(await t.gsh(['properties', 'configs', 'get', '-s', s.id, 'bukkit', '--json']));
    expect(got.values).toEqual({
      'settings.allow-end': false, 'settings.warn-on-overload': true, 'settings.connection-throttle': 4000,
      'spawn-limits.monsters': 50, 'spawn-limits.animals': 10,
    });
    expect(got.raw).toMatch(/^# Bukkit configuration\n/);
    const refused = await t.gsh(['properties', 'configs', 'update', '-s', s.id, 'server.properties', '-f', 'motd=x']);
    expect(refused.exitCode).not.toBe(0);
    expect(t.sandbox.log.at(-1)).toMatchObject({ status: 400 });
    expect((await t.gsh(['properties', 'configs', 'get', '-s', s.id, 'nope'])).exitCode).toBe(5);
  });

  it('players max reads and writes max-players in the same file', async () => {
    const s = minecraft()[0]!;
    expect(json(await t.gsh(['players', 'max', 'update', '-s', s.id, '--max-players', '64', '--json']))).toMatchObject({ max_players: 64 });
    const list = json(await t.gsh(['properties', 'list', '-s', s.id, '--json'])) as Array<{ key: string; value: string }>;
    expect(list.find((p) => p.key === 'max-players')?.value).toBe('64');
  });
});
