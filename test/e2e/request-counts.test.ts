import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/core/run/context.js';
import { CACHE_FILE } from '../../src/core/fleet/server-cache.js';
import type { RequestLogEntry } from '../../src/sandbox/index.js';
import { fastClock } from '../helpers/context.js';
import { expectRequests } from '../helpers/request-expectations.js';
import { type E2E, setup } from './helpers.js';

// Every request counts (a key's budget is shared by every script that uses it): the requests of
// common commands, counted in the sandbox's request log, so that a regression fails here.
// README "Remembered servers" and "Waiting on many servers".

let t: E2E;
const dirs: string[] = [];
beforeAll(async () => {
  t = await setup({ servers: 13, clock: 'fast' });
});
afterAll(async () => {
  await t.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A config dir of its own: nothing remembered yet. */
function freshDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'gsh-counts-'));
  dirs.push(d);
  return d;
}

const servers = () => [...t.sandbox.state.servers.values()].sort((a, b) => a.name.localeCompare(b.name));
const line = (e: RequestLogEntry) => `${e.method} ${e.path}`;

/** Runs gsh and gives what it sent, as `METHOD /path` lines. */
async function sent(args: string[], env: Record<string, string | undefined> = {}, clock?: Clock) {
  const mark = t.sandbox.log.length;
  const r = await t.gsh(args, { env, ...(clock ? { clock } : {}) });
  return { r, requests: t.sandbox.log.slice(mark).map(line) };
}

describe('a remembered server costs one request per command', () => {
  it.each([
    ['servers get', (ref: string) => ['servers', 'get', ref, '--json'], 'GET /servers/ID'],
    ['power stop', (ref: string) => ['power', 'stop', '-s', ref], 'POST /servers/ID/power'],
    ['settings update', (ref: string) => ['settings', 'update', '-s', ref, '--description', 'counted'], 'PATCH /servers/ID/settings'],
  ])('%s by name and by id: the lookup once, then only its own request', async (_what, argv, own) => {
    const s = servers()[0]!;
    const dir = freshDir();
    const env = { GSH_CONFIG_DIR: dir };
    const expected = own.replace('ID', s.id);
    const first = await sent(argv(s.name), env);
    expect(first.requests).toEqual([`GET /servers`, expected]);
    for (const ref of [s.name, s.id]) {
      const again = await sent(argv(ref), env);
      expect(again.r.exitCode, again.r.stderr).not.toBe(2);
      expect(again.requests).toEqual([expected]);
    }
  });

  it('by id on a fresh config dir: one lookup, then the id alone; -s id:… is never looked up', async () => {
    const s = servers()[1]!;
    const dir = freshDir();
    expect((await sent(['servers', 'get', s.id, '--json'], { GSH_CONFIG_DIR: dir })).requests).toEqual(['GET /servers', `GET /servers/${s.id}`]);
    expect((await sent(['servers', 'get', s.id, '--json'], { GSH_CONFIG_DIR: dir })).requests).toEqual([`GET /servers/${s.id}`]);
    const once = expectRequests(t.sandbox, [{ method: 'POST', path: `/servers/${s.id}/power`, times: 1 }], { only: 'all' });
    await sent(['power', 'stop', '-s', `id:${s.id}`], { GSH_CONFIG_DIR: freshDir() });
    once.verify();
    const several = await sent(['servers', 'get', '-s', `id:${servers()[2]!.id},id:${servers()[3]!.id}`, '--json'], { GSH_CONFIG_DIR: freshDir() });
    expect(several.r.exitCode, several.r.stderr).toBe(0);
    expect(several.requests.sort()).toEqual([`GET /servers/${servers()[2]!.id}`, `GET /servers/${servers()[3]!.id}`].sort());
    expect((await t.gsh(['servers', 'get', '-s', 'id:'], { env: { GSH_CONFIG_DIR: freshDir() } })).exitCode).toBe(2);
  });

  it('the cache file is 0600, holds no credential, and is per credential', async () => {
    const s = servers()[4]!;
    const dir = freshDir();
    await sent(['servers', 'get', s.name, '--json'], { GSH_CONFIG_DIR: dir });
    const file = join(dir, CACHE_FILE);
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain(s.id);
    expect(text).not.toContain(t.sandbox.keys.all);
    // Another key (another account, maybe) does not see what this one looked up.
    const other = t.sandbox.createKey(['*']);
    expect((await sent(['servers', 'get', s.name, '--json'], { GSH_CONFIG_DIR: dir, GSH_API_KEY: other })).requests).toEqual(['GET /servers', `GET /servers/${s.id}`]);
    expect(readFileSync(file, 'utf8')).not.toContain(other);
  });

  it('a name is remembered for an hour, an id for a day', async () => {
    const s = servers()[5]!;
    const dir = freshDir();
    await sent(['servers', 'get', s.name, '--json'], { GSH_CONFIG_DIR: dir });
    const later = (ms: number): Clock => ({ now: () => Date.now() + ms, sleep: (n) => new Promise((r) => setTimeout(r, n)) });
    expect((await sent(['servers', 'get', s.name, '--json'], { GSH_CONFIG_DIR: dir }, later(59 * 60_000))).requests).toHaveLength(1);
    expect((await sent(['servers', 'get', s.id, '--json'], { GSH_CONFIG_DIR: dir }, later(23 * 3600_000))).requests).toHaveLength(1);
    expect((await sent(['servers', 'get', s.name, '--json'], { GSH_CONFIG_DIR: dir }, later(61 * 60_000))).requests).toEqual(['GET /servers', `GET /servers/${s.id}`]);
  });

  it('gsh cache clear forgets them (the next command looks up again); gsh cache path names the file', async () => {
    const s = servers()[9]!;
    const dir = freshDir();
    await sent(['servers', 'get', s.name, '--json'], { GSH_CONFIG_DIR: dir });
    const path = await t.gsh(['cache', 'path'], { env: { GSH_CONFIG_DIR: dir } });
    expect(path.stdout).toBe(join(dir, CACHE_FILE));
    const dry = await t.gsh(['cache', 'clear', '--dry-run'], { env: { GSH_CONFIG_DIR: dir } });
    expect(dry.exitCode).toBe(0);
    expect(statSync(join(dir, CACHE_FILE)).isFile()).toBe(true);
    const cleared = await sent(['cache', 'clear'], { GSH_CONFIG_DIR: dir });
    expect(cleared.r.exitCode).toBe(0);
    expect(cleared.requests).toEqual([]);
    expect(() => statSync(join(dir, CACHE_FILE))).toThrow();
    expect((await sent(['servers', 'get', s.name, '--json'], { GSH_CONFIG_DIR: dir })).requests).toEqual(['GET /servers', `GET /servers/${s.id}`]);
  });

  it('a dry run reads the cache but does not write it', async () => {
    const s = servers()[6]!;
    const dir = freshDir();
    const dry = await sent(['power', 'stop', '-s', s.name, '--dry-run'], { GSH_CONFIG_DIR: dir });
    expect(dry.requests).toEqual(['GET /servers']);
    expect(() => statSync(join(dir, CACHE_FILE))).toThrow();
    await sent(['servers', 'get', s.name, '--json'], { GSH_CONFIG_DIR: dir });
    expect((await sent(['power', 'stop', '-s', s.name, '--dry-run'], { GSH_CONFIG_DIR: dir })).requests).toEqual([]);
  });

  it('404 for a remembered id: looked up again once, said on stderr, and the command goes to the new id', async () => {
    const [gone, heir] = [servers()[7]!, servers()[8]!];
    const dir = freshDir();
    const name = gone.name;
    await sent(['servers', 'get', name, '--json'], { GSH_CONFIG_DIR: dir });
    // The server is deleted and another one takes its name.
    t.sandbox.state.servers.delete(gone.id);
    heir.name = name;
    const again = await sent(['servers', 'get', name, '--json'], { GSH_CONFIG_DIR: dir });
    expect(again.r.exitCode, again.r.stderr).toBe(0);
    expect(again.requests).toEqual([`GET /servers/${gone.id}`, 'GET /servers', `GET /servers/${heir.id}`]);
    expect(JSON.parse(again.r.stdout).id).toBe(heir.id);
    expect(again.r.stderr).toMatch(new RegExp(`"${name}" was remembered as server ${gone.id}.*404.*looked it up again: ${heir.id}`));
    // Remembered anew: the next command sends only its own request.
    expect((await sent(['servers', 'get', name, '--json'], { GSH_CONFIG_DIR: dir })).requests).toEqual([`GET /servers/${heir.id}`]);
    // A mutation that met the 404 is sent once to the new id (nothing was applied to the old one).
    const dir2 = freshDir();
    await sent(['servers', 'get', heir.id, '--json'], { GSH_CONFIG_DIR: dir2 });
    t.sandbox.state.servers.delete(heir.id);
    const stop = await sent(['power', 'stop', '-s', heir.id], { GSH_CONFIG_DIR: dir2 });
    expect(stop.r.exitCode).toBe(5);
    expect(stop.requests).toEqual([`POST /servers/${heir.id}/power`, 'GET /servers']);
  });

  it('hand-written commands too: gsh wait on a remembered name whose server is gone looks it up again once', async () => {
    const [gone, heir] = [servers()[0]!, servers()[1]!];
    const dir = freshDir();
    const name = gone.name;
    await sent(['servers', 'get', name, '--json'], { GSH_CONFIG_DIR: dir });
    t.sandbox.state.servers.delete(gone.id);
    heir.name = name;
    heir.state = 'running';
    const waited = await sent(['wait', '-s', name, '--for', 'running', '-o', 'json'], { GSH_CONFIG_DIR: dir });
    expect(waited.r.exitCode, waited.r.stderr).toBe(0);
    expect(waited.requests).toEqual([`GET /servers/${gone.id}/status`, 'GET /servers', `GET /servers/${heir.id}/status`]);
    expect(waited.r.stderr).toMatch(/looked it up again/);
  });
});

describe('fleets wait in pages', () => {
  it('13 servers restarted with --wait: at most 2 requests per server plus 5, the listing included', async () => {
    for (const s of t.sandbox.state.servers.values()) s.state = 'running';
    const n = t.sandbox.state.servers.size;
    // One restart per server and no other mutation; the waits read the list with statuses.
    expectRequests(t.sandbox, [
      ...servers().map((s) => ({ method: 'POST', path: `/servers/${s.id}/power`, times: 1 })),
      { method: 'GET', path: '/servers', query: { include: 'status' } },
    ], { only: 'mutations' });
    const mark = t.sandbox.log.length;
    const { r, requests } = await sent(['power', 'restart', '--all-servers', '--wait', '--yes', '-o', 'json'], { GSH_CONFIG_DIR: freshDir() });
    expect(r.exitCode, r.stderr).toBe(0);
    // A server's own status is read only while it waits alone (src/core/fleet/status-poller.ts: one
    // server costs one request either way; on a busy machine the last one can be left waiting
    // alone): so between two list polls at most one server is read alone, and only once restarted.
    let alone = new Set<string>();
    const restarted = new Set<string>();
    for (const e of t.sandbox.log.slice(mark)) {
      const own = /^\/servers\/([^/]+)\/(power|status)$/.exec(e.path);
      if (e.path === '/servers' && e.query.include === 'status') alone = new Set();
      else if (own?.[2] === 'power') restarted.add(own[1]!);
      else if (own?.[2] === 'status') {
        expect(restarted, `${line(e)} before its restart`).toContain(own[1]);
        alone.add(own[1]!);
        expect([...alone], 'servers read alone between two list polls').toHaveLength(1);
      }
    }
    const results = JSON.parse(r.stdout) as { ok: boolean; data: { state: string } }[];
    expect(results).toHaveLength(n);
    expect(results.every((x) => x.ok && x.data.state === 'running')).toBe(true);
    expect(requests.length).toBeLessThanOrEqual(2 * n + 5);
  });

  it('a server only waiting frees its --parallel slot: with --parallel 1 every restart is sent before the first poll', async () => {
    const targets = servers().slice(0, 3);
    for (const s of targets) s.state = 'running';
    const mark = t.sandbox.log.length;
    // Pauses at a fifth of their length: the first poll comes 200 ms after the first restart.
    const r = await t.gsh(['power', 'restart', '-s', targets.map((s) => s.id).join(','), '--parallel', '1', '--wait', '--yes', '-o', 'json'], { env: { GSH_CONFIG_DIR: freshDir() }, clock: fastClock(0.2) });
    expect(r.exitCode, r.stderr).toBe(0);
    const log = t.sandbox.log.slice(mark);
    const restarts = log.flatMap((e, i) => (e.path.endsWith('/power') ? [i] : []));
    const firstPoll = log.findIndex((e) => e.path === '/servers' && e.query.include === 'status');
    expect(restarts).toHaveLength(3);
    expect(firstPoll).toBeGreaterThan(0);
    expect(Math.max(...restarts)).toBeLessThan(firstPoll);
  });

  it('gsh wait over many servers reads the list with statuses, not each server', async () => {
    for (const s of t.sandbox.state.servers.values()) s.state = 'offline';
    const mark = t.sandbox.log.length;
    const r = await t.gsh(['wait', '--all-servers', '--for', 'offline', '-o', 'json'], { env: { GSH_CONFIG_DIR: freshDir() } });
    expect(r.exitCode, r.stderr).toBe(0);
    const log = t.sandbox.log.slice(mark);
    expect(log.filter((e) => e.path.endsWith('/status'))).toEqual([]);
    const polls = log.filter((e) => e.path === '/servers' && e.query.include === 'status');
    expect(polls.length).toBeGreaterThan(0);
    expect(polls.every((e) => e.query.limit === '100')).toBe(true);
    // One listing of the targets, one round of polls (every server is offline already).
    expect(log).toHaveLength(2);
  });
});
