import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerRecord } from '../../src/sandbox/index.js';
import { type E2E, ensureRunning, setup } from './helpers.js';
import { long, makeFixtures, planOf, reference, registryOps } from './walk-plan.js';

// Issue 46 item 5: every server-scoped command takes several servers (README "Many servers":
// -s repeated or comma-separated, globs, `-s -`), the hand-written ones (files put, files get,
// the waits, init status, console history and stats) through the same fleet runner
// (core/fleet/fleet-command.ts → core/fleet/fleet.ts): one result per server, exit 0 when all succeeded and
// 11 when some failed. files get to several servers writes DIR/<server name>/.

let t: E2E;
let dir: string;
let running: ServerRecord[];
let stored: ServerRecord;
beforeAll(async () => {
  t = await setup({ servers: 6, clock: 'fast' });
  dir = mkdtempSync(join(tmpdir(), 'gsh-many-'));
  const all = [...t.sandbox.state.servers.values()];
  running = all.filter((s) => !s.stored).slice(0, 3);
  stored = all.find((s) => s.stored)!;
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

function tree(name: string): string {
  const root = join(dir, name);
  mkdirSync(join(root, 'sub'), { recursive: true });
  writeFileSync(join(root, 'a.txt'), `alpha ${name}`);
  writeFileSync(join(root, 'sub', 'b.txt'), `beta ${name}`);
  return root;
}

describe('files put and files get on several servers', () => {
  it('files put DIR -s A,B,C uploads the tree to the three servers (exit 0), and files get --to DIR/ brings each back under its name', async () => {
    const root = tree('three');
    const names = running.map((s) => s.name);
    const put = await t.gsh(['files', 'put', root, '-s', names.join(','), '--dir', '/three', '-o', 'json']);
    expect(put.exitCode, put.stderr).toBe(0);
    const results = JSON.parse(put.stdout) as { server_id: string; server_name: string; ok: boolean; data: { summary: string; files: { path: string; ok: boolean }[] } }[];
    expect(results.map((r) => r.server_name).sort()).toEqual([...names].sort());
    for (const r of results) {
      expect(r.ok).toBe(true);
      expect(r.data.files.map((f) => f.path).sort()).toEqual(['/three/a.txt', '/three/sub/b.txt']);
      expect(r.data.summary).toBe('2 of 2 files uploaded (21 B) into /three');
    }
    const into = join(dir, 'got');
    mkdirSync(into);
    const get = await t.gsh(['files', 'get', '/three/sub/b.txt', '-s', names.join(','), '--to', `${into}/`]);
    expect(get.exitCode, get.stderr).toBe(0);
    expect(readdirSync(into).sort()).toEqual([...names].sort());
    for (const n of names) expect(readFileSync(join(into, n, 'b.txt'), 'utf8')).toBe('beta three');
    // Piped table: one row per server.
    expect(get.stdout.trim().split('\n')).toHaveLength(3);
  });

  it('one server that fails gives exit 11 with every server\'s outcome', async () => {
    const root = tree('mixed');
    const refs = [running[0]!.id, stored.id];
    const put = await t.gsh(['files', 'put', root, '-s', refs.join(','), '--dir', '/mixed', '-o', 'json']);
    expect(put.exitCode, put.stderr).toBe(11);
    const results = JSON.parse(put.stdout) as { server_id: string; ok: boolean; exit_code: number; error?: { message: string } }[];
    expect(results.map((r) => r.server_id).sort()).toEqual([...refs].sort());
    expect(results.find((r) => r.server_id === running[0]!.id)?.ok).toBe(true);
    const failed = results.find((r) => r.server_id === stored.id)!;
    expect(failed).toMatchObject({ ok: false, exit_code: 11 });
    expect(failed.error?.message).toMatch(/^0 of 2 files uploaded \(0 B\) into \/mixed; 2 failed: /);
    expect(put.stderr).toContain(`1 of 2 failed: ${stored.name}`);
    // A single file too.
    const one = await t.gsh(['files', 'put', join(root, 'a.txt'), '-s', refs.join(','), '--dir', '/mixed']);
    expect(one.exitCode, one.stderr).toBe(11);
  });

  it('files get to several servers without --to DIR is a usage error that says what to use, before anything is sent', async () => {
    const refs = running.slice(0, 2).map((s) => s.id).join(',');
    for (const to of [[], ['--to', '-'], ['--to', join(dir, 'one-file.txt')]]) {
      const mark = t.sandbox.log.length;
      const r = await t.gsh(['files', 'get', '/x.txt', '-s', refs, ...to]);
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/several servers: --to .* would mix their files\nGive --to DIR: each server's file goes to DIR\/<server name>\//);
      expect(t.sandbox.log.slice(mark).filter((e) => e.method !== 'GET')).toEqual([]);
    }
    // One Idempotency-Key cannot name several servers' requests.
    const keyed = await t.gsh(['files', 'get', '/x.txt', '-s', refs, '--to', `${dir}/`, '--idempotency-key', 'k-1']);
    expect(keyed.exitCode, keyed.stderr).toBe(2);
    expect(keyed.stderr).toContain('--idempotency-key names one request');
  });

  it('-s - and a glob name the servers too', async () => {
    const root = tree('stdin');
    const r = await t.gsh(['files', 'put', join(root, 'a.txt'), '-s', '-', '--dir', '/', '--dry-run'], { input: `${running[0]!.id}\n${running[1]!.id}\n` });
    expect(r.exitCode, r.stderr).toBe(0);
    for (const s of running.slice(0, 2)) expect(r.stdout).toContain(`/servers/${s.id}/files/upload`);
    const glob = await t.gsh(['files', 'get', '/a.txt', '-s', '*', '--to', `${dir}/`, '--dry-run']);
    expect(glob.exitCode, glob.stderr).toBe(0);
    for (const s of t.sandbox.state.servers.values()) expect(glob.stdout).toContain(`/servers/${s.id}/files/download`);
  });
});

describe('the console\'s one-answer commands on several servers', () => {
  it('console stats and console history: one result per server, exit 0; stats --watch stays one server', async () => {
    const two = [await ensureRunning(t.sandbox, running[0]!), await ensureRunning(t.sandbox, running[1]!)];
    const refs = two.map((s) => s.id).join(',');
    for (const argv of [['console', 'stats', '-s', refs, '-o', 'json'], ['console', 'history', '-s', refs, '--limit', '5', '-o', 'json']]) {
      const r = await t.gsh(argv);
      expect(r.exitCode, `${argv.join(' ')}: ${r.stderr}`).toBe(0);
      const results = JSON.parse(r.stdout) as { server_id: string; ok: boolean; data: unknown }[];
      expect(results.map((x) => x.server_id).sort()).toEqual(two.map((s) => s.id).sort());
      for (const x of results) expect(x.ok && typeof x.data === 'object').toBe(true);
    }
    const watch = await t.gsh(['console', 'stats', '-s', refs, '--watch']);
    expect(watch.exitCode).toBe(2);
    expect(watch.stderr).toContain('gsh top -s SERVERS');
  });
});

describe('every command with a server option accepts two servers', () => {
  it('under --dry-run: exit 0, and both servers appear in the plan', async () => {
    const ops = await registryOps();
    const fx = await makeFixtures(t.sandbox, ops, mkdtempSync(join(dir, 'walk-')));
    const ref = await reference(t.env());
    const { steps } = planOf(ref, ops, fx);
    const two = [running[0]!, running[1]!];
    const withServer = ref.filter((e) => e.options.some((o) => long(o.flags) === 'server'));
    expect(withServer.length).toBeGreaterThan(100);
    const failures: string[] = [];
    const fleetFile = join(dir, 'fleet.yaml');
    writeFileSync(fleetFile, 'version: 1\nservers:\n  "*":\n    settings: {}\n');
    for (const e of withServer) {
      const s = steps.find((x) => x.command === e.command);
      if (!s) {
        failures.push(`${e.command}: no argv planned`);
        continue;
      }
      const argv = s.argv.flatMap((a, i) => (s.argv[i - 1] === '-s' ? [two.map((x) => x.id).join(',')] : a === '--json' ? [] : [a]));
      // Several servers' files go to a folder each (files get --help): the one flag this needs.
      if (e.command === 'files get') argv.push('--to', `${dir}/`);
      // A declaration names the servers it manages: a fleet file whose glob takes every server.
      if (e.command === 'config diff' || e.command === 'config apply') argv.splice(2, 1, fleetFile);
      const r = await t.gsh([...argv, '--dry-run'], { timeout: 10_000 });
      const shown = r.stdout + r.stderr;
      if (r.exitCode !== 0) failures.push(`gsh ${argv.join(' ')} --dry-run: exit ${r.exitCode}: ${r.stderr.slice(0, 300)}`);
      else for (const x of two) if (!shown.includes(x.id)) failures.push(`gsh ${argv.join(' ')} --dry-run: ${x.id} not shown`);
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
