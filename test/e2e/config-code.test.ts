import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

  it('--dry-run on export and diff lists the reads, reads no server and writes no file', async () => {
    const mark = t.sandbox.log.length;
    const ex = await t.gsh(['config', 'export', '-s', s.name, '--dir', join(dir, 'dry'), '--dry-run']);
    expect(ex.exitCode, ex.stderr).toBe(0);
    expect(ex.stdout).toMatch(/GET .*\/properties/);
    const diff = await t.gsh(['config', 'diff', dir, '--dry-run']);
    expect(diff.exitCode, diff.stderr).toBe(0);
    expect(diff.stdout).toMatch(/GET .*\/hooks/);
    expect(t.sandbox.log.slice(mark).map((e) => e.path)).toEqual(['/servers', '/servers']);
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
    // Changes pending: 14, as diff.
    expect(dry.exitCode, dry.stderr).toBe(14);
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

describe('webhooks: the secret from ${env:…}, pruning', () => {
  let s: ServerRecord;
  let dir: string;
  const secret = 'a-hook-secret-of-32-characters!!';
  beforeAll(async () => {
    s = minecraft()[1] ?? minecraft()[0]!;
    dir = dirFor('hooks');
    for (const url of ['https://hooks.example.com/keep', 'https://hooks.example.com/stray']) {
      expect((await t.gsh(['hooks', 'create', '-s', s.id, '--url', url, '--events', 'server.crashed'])).exitCode).toBe(0);
    }
  });

  const write = (prune: boolean) => writeFileSync(join(dir, 'x.yaml'), [
    'version: 1',
    `server: ${s.name}`,
    'hooks:',
    ...(prune ? ['  prune: true', '  items:'] : []),
    `${prune ? '    ' : '  '}- url: https://hooks.example.com/keep`,
    `${prune ? '    ' : '  '}  events: [server.crashed]`,
    `${prune ? '    ' : '  '}- url: https://hooks.example.com/new`,
    `${prune ? '    ' : '  '}  events: [backup.completed]`,
    `${prune ? '    ' : '  '}  secret: \${env:HOOK_SECRET}`,
    '',
  ].join('\n'));

  it('a webhook added with secret: ${env:HOOK_SECRET} is created once with that secret, which no output or file shows', async () => {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    write(false);
    const missing = await t.gsh(['config', 'apply', dir, '--yes']);
    expect(missing.exitCode).toBe(11);
    expect(missing.stderr).toMatch(/HOOK_SECRET/);
    const mark = t.sandbox.log.length;
    const dry = await t.gsh(['config', 'apply', dir, '--dry-run', '-o', 'json'], { env: { HOOK_SECRET: secret } });
    expect(dry.exitCode, dry.stderr).toBe(14);
    const r = await t.gsh(['config', 'apply', dir, '--yes', '-o', 'json'], { env: { HOOK_SECRET: secret } });
    expect(r.exitCode, r.stderr).toBe(0);
    const writes = writesSince(mark);
    expect(writes.map((w) => `${w.method} ${w.route}`)).toEqual(['POST /servers/{server_id}/hooks']);
    expect(writes[0]!.body).toEqual({ url: 'https://hooks.example.com/new', events: ['backup.completed'], secret });
    for (const out of [dry.stdout, dry.stderr, r.stdout, r.stderr, readFileSync(join(dir, 'x.yaml'), 'utf8')]) expect(out).not.toContain(secret);
    const diff = await t.gsh(['config', 'diff', dir, '-o', 'json'], { env: { HOOK_SECRET: secret } });
    expect(diff.exitCode, diff.stdout).toBe(0);
    expect(diff.stdout).not.toContain(secret);
    const again = await t.gsh(['config', 'apply', dir, '--yes'], { env: { HOOK_SECRET: secret } });
    expect(again.exitCode).toBe(0);
    expect([...writesSince(mark)]).toHaveLength(1);
  });

  it('a live webhook the file does not list stays without --prune hooks and is the only one deleted with it', async () => {
    write(true);
    const mark = t.sandbox.log.length;
    const kept = await t.gsh(['config', 'apply', dir, '--yes'], { env: { HOOK_SECRET: secret } });
    expect(kept.exitCode, kept.stderr).toBe(0);
    expect(kept.stderr).toMatch(/stray\] kept: apply deletes it only with --prune hooks/);
    expect(writesSince(mark)).toEqual([]);
    const diff = await t.gsh(['config', 'diff', dir]);
    expect(diff.exitCode).toBe(14);
    const tooMany = await t.gsh(['config', 'apply', dir, '--yes', '--prune', 'hooks', '--max-deletes', '0']);
    expect(tooMany.exitCode).toBe(1);
    expect(writesSince(mark)).toEqual([]);
    const pruned = await t.gsh(['config', 'apply', dir, '--yes', '--prune', 'hooks', '-o', 'json']);
    expect(pruned.exitCode, pruned.stderr).toBe(0);
    const writes = writesSince(mark);
    expect(writes.map((w) => `${w.method} ${w.route}`)).toEqual(['DELETE /servers/{server_id}/hooks/{hook_id}']);
    const left = JSON.parse((await t.gsh(['hooks', 'list', '-s', s.id, '--json'])).stdout) as Array<{ url: string }>;
    expect(left.map((h) => h.url).sort()).toEqual(['https://hooks.example.com/keep', 'https://hooks.example.com/new']);
  });
});

describe('lint and unreadable servers', () => {
  it('a misspelt section: lint exits 1 with its line and a did-you-mean, without any request', async () => {
    const dir = dirFor('lint');
    mkdirSync(dir, { recursive: true });
    const f = join(dir, 'bad.yaml');
    writeFileSync(f, 'version: 1\nserver: lobby\nproperites:\n  motd: hi\n');
    const mark = t.sandbox.log.length;
    const r = await t.gsh(['config', 'lint', f]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/bad\.yaml:3:1: .*unknown key `properites` at the top level; did you mean `properties`\?/);
    const diff = await t.gsh(['config', 'diff', f]);
    expect(diff.exitCode).toBe(2);
    expect(diff.stderr).toMatch(/properites/);
    expect(t.sandbox.log.length).toBe(mark);
    const json = await t.gsh(['config', 'lint', f, '--format', 'json']);
    expect(JSON.parse(json.stdout)[0].problems[0]).toMatchObject({ rule: 'unknown-key', line: 3 });
  });

  it('a server whose node cannot be read: diff exits 11 and names it', async () => {
    const s = minecraft()[0]!;
    const dir = dirFor('unreadable');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'a.yaml'), `version: 1\nserver: ${s.name}\nproperties:\n  motd: x\n`);
    s.nodeUnreachable = true;
    try {
      const r = await t.gsh(['config', 'diff', dir, '-o', 'json']);
      expect(r.exitCode).toBe(11);
      expect(r.stderr).toContain(`${s.name}: could not be read`);
      expect(JSON.parse(r.stdout)[0]).toMatchObject({ server_name: s.name, in_sync: null });
      const apply = await t.gsh(['config', 'apply', dir, '--yes']);
      expect(apply.exitCode).toBe(11);
    } finally {
      s.nodeUnreachable = false;
    }
  });
});

describe('every kind, failures and clamps', () => {
  let s: ServerRecord;
  let dir: string;
  beforeAll(() => {
    s = minecraft()[2] ?? minecraft()[0]!;
    dir = dirFor('kinds');
    mkdirSync(dir, { recursive: true });
  });

  it('settings, startup variables, a config file and subusers: one write each, then in sync', async () => {
    s.plan = 'paid';
    writeFileSync(join(dir, 'k.yaml'), [
      'version: 1', `server: ${s.name}`,
      'settings:', '  description: Declared description', '  stop_command: end',
      'startup:', '  variables:', '    SERVER_JARFILE: paper.jar',
      'configs:', '  bukkit:', '    settings.allow-end: false',
      'subusers:', '  - user_id: 101', '    permissions: [control.console, file.read]',
      '',
    ].join('\n'));
    const mark = t.sandbox.log.length;
    const r = await t.gsh(['config', 'apply', dir, '--yes', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(writesSince(mark).map((w) => `${w.method} ${w.route} ${JSON.stringify(w.body)}`)).toEqual([
      'PATCH /servers/{server_id}/settings {"description":"Declared description","stop_command":"end"}',
      'PATCH /servers/{server_id}/startup/variables/{env_variable} {"value":"paper.jar"}',
      'PUT /servers/{server_id}/properties/configs/{config_type} {"settings.allow-end":false}',
      'POST /servers/{server_id}/subusers {"user_id":101,"permissions":["control.console","file.read"]}',
    ]);
    expect((await t.gsh(['config', 'diff', dir])).exitCode).toBe(0);
    // The permission set is replaced, compared as a set.
    writeFileSync(join(dir, 'k.yaml'), `version: 1\nserver: ${s.name}\nsubusers:\n  - user_id: 101\n    permissions: [file.read]\n`);
    const m2 = t.sandbox.log.length;
    expect((await t.gsh(['config', 'apply', dir, '--yes'])).exitCode).toBe(0);
    expect(writesSince(m2).map((w) => `${w.method} ${w.route} ${JSON.stringify(w.body)}`)).toEqual(['PUT /servers/{server_id}/subusers/{user_id} {"permissions":["file.read"]}']);
  });

  it('a variable that is not the egg\'s: that server is not changed (exit 11), nothing sent for it', async () => {
    writeFileSync(join(dir, 'k.yaml'), `version: 1\nserver: ${s.name}\nstartup:\n  variables:\n    NOT_IN_EGG: x\n`);
    const mark = t.sandbox.log.length;
    const r = await t.gsh(['config', 'apply', dir, '--yes']);
    expect(r.exitCode).toBe(11);
    expect(r.stderr).toMatch(/NOT_IN_EGG does not belong to the server's egg/);
    expect(writesSince(mark)).toEqual([]);
  });

  it('a failed write skips what depends on it; other kinds go on; -o json says which; exit 11', async () => {
    writeFileSync(join(dir, 'k.yaml'), [
      'version: 1', `server: ${s.name}`,
      'properties:', '  motd: Failure test',
      'hooks:', '  - url: https://hooks.example.com/disabled', '    enabled: false', '    secret: ${env:S}',
      '',
    ].join('\n'));
    t.sandbox.inject({ kind: 503, method: 'POST', path: '/servers/{server_id}/hooks', count: 1 });
    const mark = t.sandbox.log.length;
    const r = await t.gsh(['config', 'apply', dir, '--yes', '--retries', '0', '-o', 'json', '--debug'], { env: { S: 'secret-value-for-the-test' } });
    expect(r.exitCode, r.stderr).toBe(11);
    const results = JSON.parse(r.stdout) as Array<{ item: string; action: string; status: string; idempotency_key: string | null }>;
    expect(results.map((x) => [x.item, x.action, x.status])).toEqual([
      ['properties', 'update', 'applied'],
      ['hooks[https://hooks.example.com/disabled]', 'create', 'unknown'],
      ['hooks[https://hooks.example.com/disabled]', 'update', 'skipped'],
    ]);
    expect(results[1]!.idempotency_key).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.stderr).not.toContain('secret-value-for-the-test');
    expect(writesSince(mark).filter((w) => w.method === 'PATCH')).toEqual([]);
  });

  it('a free-plan clamp is not a success: apply says clamped with the value stored (exit 11); diff names the clamp and the next step', async () => {
    s.plan = 'free';
    try {
      writeFileSync(join(dir, 'k.yaml'), `version: 1\nserver: ${s.name}\nproperties:\n  max-players: 500\n`);
      const r = await t.gsh(['config', 'apply', dir, '--yes', '-o', 'json']);
      expect(r.exitCode, r.stderr).toBe(11);
      expect(r.stderr).toMatch(/properties\.max-players was sent as 500 and stored as 20 \(clamped/);
      expect(JSON.parse(r.stdout)).toEqual([expect.objectContaining({ item: 'properties', status: 'clamped', stored: { 'properties.max-players': '20' } })]);
      const diff = await t.gsh(['config', 'diff', dir]);
      expect(diff.exitCode).toBe(14);
      expect(diff.stdout).toMatch(/update \(clamped\)\s+properties\.max-players\s+20\s+500/);
      expect(diff.stderr).toContain('properties.max-players is clamped: the service stored 20 when 500 was sent, so another apply cannot change it. Declare 20 (gsh config adopt takes it into the file), add ignore: [properties.max-players], or move the server to a plan that allows more.');
      // Declared as stored: in sync, and no longer named as a clamp.
      writeFileSync(join(dir, 'k.yaml'), `version: 1\nserver: ${s.name}\nproperties:\n  max-players: 20\n`);
      const fixed = await t.gsh(['config', 'diff', dir]);
      expect(fixed.exitCode, fixed.stdout).toBe(0);
      expect(fixed.stderr).not.toMatch(/clamped/);
    } finally {
      s.plan = 'paid';
    }
  });
});

describe('export of a server that cannot be read, and a rename through an id pin', () => {
  it('export: exit 11 naming the server whose node does not answer; the others are written', async () => {
    const [a, b] = minecraft();
    const dir = dirFor('export-11');
    b!.nodeUnreachable = true;
    try {
      const r = await t.gsh(['config', 'export', '-s', `${a!.name},${b!.name}`, '--dir', dir, '--only', 'properties', '--retries', '0']);
      expect(r.exitCode).toBe(11);
      expect(r.stderr).toContain(`${b!.name}: not exported`);
      expect(readdirSync(dir)).toEqual([`${a!.name}.yaml`]);
    } finally {
      b!.nodeUnreachable = false;
    }
  });

  it('settings.name with id: renames the server; the pinned file still finds it', async () => {
    const s = minecraft()[0]!;
    const old = s.name;
    const dir = dirFor('rename');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'r.yaml'), `version: 1\nid: ${s.id}\nsettings:\n  name: ${old}-renamed\n`);
    try {
      const r = await t.gsh(['config', 'apply', dir, '--yes']);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(s.name).toBe(`${old}-renamed`);
      expect((await t.gsh(['config', 'diff', dir])).exitCode).toBe(0);
    } finally {
      s.name = old;
    }
  });
});

describe('--replace: the only way to change a webhook\'s secret', () => {
  it('deletes the webhook and creates it again with the file\'s secret; an undeclared URL is refused before any write', async () => {
    const s = minecraft()[0]!;
    const dir = dirFor('replace');
    mkdirSync(dir, { recursive: true });
    const url = 'https://hooks.example.com/rotate';
    writeFileSync(join(dir, 'r.yaml'), `version: 1\nserver: ${s.name}\nhooks:\n  - url: ${url}\n    events: [server.crashed]\n    secret: \${env:ROTATE}\n`);
    expect((await t.gsh(['config', 'apply', dir, '--yes'], { env: { ROTATE: 'first-secret-0123456789' } })).exitCode).toBe(0);
    const mark = t.sandbox.log.length;
    const bad = await t.gsh(['config', 'apply', dir, '--yes', '--replace', 'https://hooks.example.com/other'], { env: { ROTATE: 'second-secret-0123456789' } });
    expect(bad.exitCode).toBe(2);
    const r = await t.gsh(['config', 'apply', dir, '--yes', '--replace', url, '-o', 'json'], { env: { ROTATE: 'second-secret-0123456789' } });
    expect(r.exitCode, r.stderr).toBe(0);
    const writes = writesSince(mark);
    expect(writes.map((w) => `${w.method} ${w.route}`)).toEqual(['DELETE /servers/{server_id}/hooks/{hook_id}', 'POST /servers/{server_id}/hooks']);
    expect((writes[1]!.body as { secret: string }).secret).toBe('second-secret-0123456789');
    expect(r.stdout).not.toContain('second-secret');
  });
});

// Issue 47: subusers prune like webhooks (02-endpoints-part-a.md "Subusers": the panel user id is
// the identity, the permission set is replaced; a subuser is removed by DELETE
// /servers/{server_id}/subusers/{user_id}). A live subuser the file does not name is deleted only
// when the file marks `subusers: {prune: true, …}` AND the run says --prune subusers, at most
// --max-deletes of them, refused before any write.
describe('subusers: pruning, and export round-trips them', () => {
  let s: ServerRecord;
  let dir: string;
  const live = async () => (JSON.parse((await t.gsh(['subusers', 'list', '-s', s.id, '--json'])).stdout) as Array<{ user_id: number; permissions: string[] }>)
    .map((u) => `${u.user_id}:${[...u.permissions].sort().join('+')}`).sort();
  const write = (prune: boolean) => writeFileSync(join(dir, 'u.yaml'), [
    'version: 1',
    `server: ${s.name}`,
    'subusers:',
    ...(prune
      ? ['  prune: true', '  items:', '    - user_id: 101', '      permissions: [file.read]']
      : ['  - user_id: 101', '    permissions: [file.read]', '  - user_id: 102', '    permissions: [control.console]']),
    '',
  ].join('\n'));

  beforeAll(async () => {
    // A server no other block of this file changes.
    const used = new Set(minecraft().slice(0, 3).map((m) => m.id));
    s = [...t.sandbox.state.servers.values()].find((m) => !used.has(m.id))!;
    dir = dirFor('subusers');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    // Two live subusers (the sandbox's panel users 101 and 102): 101 the file keeps, 102 it will no longer name.
    write(false);
    const made = await t.gsh(['config', 'apply', dir, '--yes']);
    expect(made.exitCode, made.stderr + made.stdout).toBe(0);
    expect(await live()).toEqual(['101:file.read', '102:control.console']);
  });

  it('a live subuser the file does not list stays without --prune subusers and is the only one deleted with it; --max-deletes refuses before any write', async () => {
    write(true);
    const mark = t.sandbox.log.length;
    const kept = await t.gsh(['config', 'apply', dir, '--yes']);
    expect(kept.exitCode, kept.stderr).toBe(0);
    expect(kept.stderr).toMatch(/subusers\[102\] kept: apply deletes it only with --prune subusers/);
    expect(writesSince(mark)).toEqual([]);
    // --prune of another kind does not reach subusers.
    const otherKind = await t.gsh(['config', 'apply', dir, '--yes', '--prune', 'hooks']);
    expect(otherKind.exitCode, otherKind.stderr).toBe(0);
    expect(writesSince(mark)).toEqual([]);
    // The drift is there: diff says so (exit 14).
    expect((await t.gsh(['config', 'diff', dir])).exitCode).toBe(14);
    const tooMany = await t.gsh(['config', 'apply', dir, '--yes', '--prune', 'subusers', '--max-deletes', '0']);
    expect(tooMany.exitCode, tooMany.stderr).toBe(1);
    expect(tooMany.stderr).toMatch(/--max-deletes/);
    expect(writesSince(mark)).toEqual([]);
    expect(await live()).toEqual(['101:file.read', '102:control.console']);
    const pruned = await t.gsh(['config', 'apply', dir, '--yes', '--prune', 'subusers', '-o', 'json']);
    expect(pruned.exitCode, pruned.stderr).toBe(0);
    expect(writesSince(mark).map((w) => `${w.method} ${w.route} ${w.path.split('/').pop()}`)).toEqual(['DELETE /servers/{server_id}/subusers/{user_id} 102']);
    expect(await live()).toEqual(['101:file.read']);
    expect((await t.gsh(['config', 'diff', dir])).exitCode).toBe(0);
  });

  it('config export writes the subusers; diff of the exported file right after exits 0 with reads only', async () => {
    // A second subuser with two permissions, so the export has more than one entry to get right.
    const out = join(root, 'subusers-export');
    rmSync(out, { recursive: true, force: true });
    writeFileSync(join(dir, 'u.yaml'), `version: 1\nserver: ${s.name}\nsubusers:\n  - user_id: 101\n    permissions: [file.read]\n  - user_id: 103\n    permissions: [control.console, file.read]\n`);
    expect((await t.gsh(['config', 'apply', dir, '--yes'])).exitCode).toBe(0);
    const r = await t.gsh(['config', 'export', '-s', s.name, '--dir', out]);
    expect(r.exitCode, r.stderr).toBe(0);
    const text = readFileSync(join(out, `${s.name}.yaml`), 'utf8');
    expect(text).toMatch(/^subusers:\n/m);
    expect(text).toMatch(/user_id: 101/);
    expect(text).toMatch(/user_id: 103/);
    const mark = t.sandbox.log.length;
    const diff = await t.gsh(['config', 'diff', out]);
    expect(diff.exitCode, diff.stdout + diff.stderr).toBe(0);
    expect(writesSince(mark)).toEqual([]);
    // And the export is what the file compares: a permission changed live is drift.
    const changed = await t.gsh(['subusers', 'update', '-s', s.id, '101', '--permissions', 'control.console']);
    expect(changed.exitCode, changed.stderr).toBe(0);
    expect((await t.gsh(['config', 'diff', out])).exitCode).toBe(14);
  });
});
