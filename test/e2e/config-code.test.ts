import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerRecord } from '../../src/sandbox/index.js';
import { type E2E, setup } from './helpers.js';

// Configuration as code (README "Configuration as code"): export, diff, apply and lint against the
// sandbox. Semantics from 02-endpoints-part-a.md: "Properties" (PUT merges the sent keys, free
// plans clamp), "Webhooks" (the secret is returned only at creation; PATCH any subset of url,
// events, enabled), "Subusers" (the permission set is replaced), "Startup" (one variable by key,
// which must belong to the egg), "Settings" (the read returns name, description, startup-detection
// message, stop command).

let t: E2E;
let root: string;
beforeAll(async () => {
  t = await setup({ servers: 4, clock: 'fast' });
  root = mkdtempSync(join(tmpdir(), 'gsh-config-'));
  t.sandbox.setFaults({});
});
afterAll(async () => {
  await t.close();
  rmSync(root, { recursive: true, force: true });
});

const minecraft = (): ServerRecord[] => [...t.sandbox.state.servers.values()].filter((s) => s.application === 'minecraft');
const writesSince = (mark: number) => t.sandbox.log.slice(mark).filter((e) => e.method !== 'GET');
const dirFor = (name: string) => {
  const d = join(root, name);
  return d;
};

describe('export, diff, apply on one server', () => {
  let s: ServerRecord;
  let dir: string;
  let file: string;
  beforeAll(async () => {
    s = minecraft()[0]!;
    s.plan = 'paid';
    // A webhook to export (local URLs allowed for the test receiver's sake).
    const created = await t.gsh(['hooks', 'create', '-s', s.id, '--url', 'https://hooks.example.com/a', '--events', 'server.crashed', '--json']);
    expect(created.exitCode, created.stderr).toBe(0);
    dir = dirFor('one');
    file = join(dir, `${s.name}.yaml`);
  });

  it('export writes DIR/NAME.yaml with settings, properties, startup variables and webhooks, secrets as placeholders', async () => {
    const r = await t.gsh(['config', 'export', '-s', s.name, '--dir', dir]);
    expect(r.exitCode, r.stderr).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text).toMatch(new RegExp(`^server: ${s.name}$`, 'm'));
    expect(text).toMatch(/^settings:\n {2}done_message:/m);
    expect(text).toMatch(/^properties:\n(.|\n)*max-players: "?\d+"?/m);
    expect(text).toMatch(/^startup:\n {2}variables:\n {4}SERVER_JARFILE: server.jar/m);
    expect(text).toMatch(/url: https:\/\/hooks.example.com\/a/);
    expect(text).toMatch(/secret: \$\{env:[A-Z0-9_]+_HOOK_1_SECRET\}/);
  });

  it('a second export without --force changes nothing and exits 2; --force replaces the file', async () => {
    writeFileSync(file, `${readFileSync(file, 'utf8')}# edited\n`);
    const before = readFileSync(file, 'utf8');
    const mark = t.sandbox.log.length;
    const r = await t.gsh(['config', 'export', '-s', s.name, '--dir', dir]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/exists; nothing was exported/);
    expect(readFileSync(file, 'utf8')).toBe(before);
    // Only the name was resolved: no server was read.
    expect(t.sandbox.log.slice(mark).every((e) => e.path === '/servers')).toBe(true);
    const forced = await t.gsh(['config', 'export', '-s', s.name, '--dir', dir, '--force']);
    expect(forced.exitCode, forced.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).not.toMatch(/# edited/);
    expect(readdirSync(dir)).toEqual([`${s.name}.yaml`]);
  });

  it('diff right after the export: exit 0, reads only', async () => {
    const mark = t.sandbox.log.length;
    const r = await t.gsh(['config', 'diff', dir]);
    expect(r.exitCode, r.stderr + r.stdout).toBe(0);
    expect(writesSince(mark)).toEqual([]);
    expect(r.stdout).toMatch(/in sync/);
  });

  it('drift in a property and a webhook\'s events: diff exits 14 naming both; -o json names the fields', async () => {
    const set = await t.gsh(['properties', 'update', '-s', s.id, '-f', 'motd=Changed by hand']);
    expect(set.exitCode, set.stderr).toBe(0);
    const hooks = JSON.parse((await t.gsh(['hooks', 'list', '-s', s.id, '--json'])).stdout) as Array<{ id: string }>;
    const upd = await t.gsh(['hooks', 'update', '-s', s.id, hooks[0]!.id, '--events', 'server.crashed,backup.completed']);
    expect(upd.exitCode, upd.stderr).toBe(0);
    const r = await t.gsh(['config', 'diff', dir]);
    expect(r.exitCode, r.stderr).toBe(14);
    expect(r.stdout).toMatch(/properties\.motd/);
    expect(r.stdout).toMatch(/hooks\[https:\/\/hooks\.example\.com\/a\]\.events/);
    const j = await t.gsh(['config', 'diff', dir, '-o', 'json']);
    expect(j.exitCode).toBe(14);
    const [entry] = JSON.parse(j.stdout) as Array<{ in_sync: boolean; changes: Array<{ fields: Array<{ path: string }> }>; not_compared: string[] }>;
    expect(entry!.in_sync).toBe(false);
    expect(entry!.changes.flatMap((c) => c.fields.map((f) => f.path)).sort()).toEqual(['hooks[https://hooks.example.com/a].events', 'properties.motd']);
    expect(entry!.not_compared).toEqual(['hooks[https://hooks.example.com/a].secret']);
  });

  it('apply --dry-run sends nothing; apply --yes makes one properties write and one webhook update; diff is then 0', async () => {
    let mark = t.sandbox.log.length;
    const dry = await t.gsh(['config', 'apply', dir, '--dry-run']);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(writesSince(mark)).toEqual([]);
    expect(dry.stdout).toMatch(/PUT .*\/properties/);
    expect(dry.stdout).toMatch(/PATCH .*\/hooks\//);
    mark = t.sandbox.log.length;
    const r = await t.gsh(['config', 'apply', dir, '--yes', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const writes = writesSince(mark);
    expect(writes.map((w) => `${w.method} ${w.route}`)).toEqual(['PUT /servers/{server_id}/properties', 'PATCH /servers/{server_id}/hooks/{hook_id}']);
    expect(writes[0]!.body).toEqual({ motd: expect.not.stringMatching(/Changed/) });
    expect(writes[1]!.body).toEqual({ events: ['server.crashed'] });
    const results = JSON.parse(r.stdout) as Array<{ status: string; idempotency_key: string }>;
    expect(results.map((x) => x.status)).toEqual(['applied', 'applied']);
    for (const x of results) expect(x.idempotency_key).toMatch(/^[0-9a-f-]{36}$/);
    const again = await t.gsh(['config', 'diff', dir]);
    expect(again.exitCode, again.stdout).toBe(0);
  });
});
