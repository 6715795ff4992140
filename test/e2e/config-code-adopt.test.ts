import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerRecord } from '../../src/sandbox/index.js';
import { type E2E, setup } from './helpers.js';

// gsh config adopt (README "Configuration as code", "Adopt: taking a live change into the
// files"): after a live change made with a registry command, the files are edited in place so
// that diff is 0, sending reads only. Semantics from 02-endpoints-part-a.md "Properties" (values
// as text, free plans clamp), "Settings", "Webhooks" (the secret is never returned).

let t: E2E;
let root: string;
beforeAll(async () => {
  t = await setup({ servers: 4, clock: 'fast' });
  root = mkdtempSync(join(tmpdir(), 'gsh-config-adopt-'));
  t.sandbox.setFaults({});
  for (const s of t.sandbox.state.servers.values()) s.plan = 'paid';
});
afterAll(async () => {
  await t.close();
  rmSync(root, { recursive: true, force: true });
});

const minecraft = (): ServerRecord[] => [...t.sandbox.state.servers.values()].filter((s) => s.application === 'minecraft');
const writesSince = (mark: number) => t.sandbox.log.slice(mark).filter((e) => e.method !== 'GET');
const ok = async (argv: string[]) => {
  const r = await t.gsh(argv);
  expect(r.exitCode, `${argv.join(' ')}\n${r.stderr}`).toBe(0);
  return r;
};

describe('one server: comments and layout kept, then diff 0', () => {
  let s: ServerRecord;
  let file: string;
  let text: string;
  let hookId: string;
  beforeAll(async () => {
    s = minecraft()[0]!;
    const dir = join(root, 'one');
    mkdirSync(dir, { recursive: true });
    file = join(dir, 'lobby.yaml');
    const created = JSON.parse((await ok(['hooks', 'create', '-s', s.id, '--url', 'https://hooks.example.com/adopt', '--events', 'server.crashed', '--json'])).stdout) as { id?: unknown; data?: { id?: unknown } };
    hookId = String(created.data?.id ?? created.id);
    text = [
      '# The lobby, as we keep it',
      'version: 1',
      `server: ${s.name}`,
      'settings:',
      '  description: "The lobby"   # shown in the list',
      'properties:            # compared as text',
      '  motd: Welcome        # the greeting',
      '  max-players: 40',
      '',
      '  pvp: true',
      'hooks:',
      '  - url: https://hooks.example.com/adopt',
      '    events: [server.crashed]   # what we hear about',
      '    secret: ${env:LOBBY_HOOK_SECRET}',
      '',
    ].join('\n');
    writeFileSync(file, text);
    await ok(['config', 'apply', file, '--yes']);
    // The live changes, by hand.
    await ok(['properties', 'update', '-s', s.id, '-f', 'motd=Changed by hand', '-f', 'max-players=33']);
    await ok(['settings', 'update', '-s', s.id, '-f', 'description=Renamed by hand']);
    await ok(['hooks', 'update', '-s', s.id, hookId, '--events', 'server.crashed,backup.completed']);
  });

  it('diff 14, adopt --yes 0 with reads only, every other byte of the file kept, then diff 0', async () => {
    expect((await t.gsh(['config', 'diff', file])).exitCode).toBe(14);
    const mark = t.sandbox.log.length;
    const r = await t.gsh(['config', 'adopt', file, '--yes', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(writesSince(mark)).toEqual([]);
    const rows = JSON.parse(r.stdout) as Array<{ status: string; at: string; old: unknown; new: unknown }>;
    expect(rows.map((x) => [x.status, x.at, x.old, x.new]).sort()).toEqual([
      ['written', 'hooks[0].events', ['server.crashed'], ['server.crashed', 'backup.completed']],
      ['written', 'properties.max-players', 40, 33],
      ['written', 'properties.motd', 'Welcome', 'Changed by hand'],
      ['written', 'settings.description', 'The lobby', 'Renamed by hand'],
    ]);
    expect(readFileSync(file, 'utf8')).toBe(text
      .replace('"The lobby"   #', '"Renamed by hand"   #')
      .replace('motd: Welcome        #', 'motd: Changed by hand        #')
      .replace('max-players: 40', 'max-players: 33')
      .replace('events: [server.crashed]   #', 'events: [server.crashed, backup.completed]   #'));
    const diff = await t.gsh(['config', 'diff', file]);
    expect(diff.exitCode, diff.stdout).toBe(0);
    // Nothing left to take in: a second adopt changes nothing.
    const again = await t.gsh(['config', 'adopt', file, '--yes']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/Nothing to adopt: 1 server is as declared/);
  });

  it('--dry-run prints each key old -> new and writes nothing', async () => {
    await ok(['properties', 'update', '-s', s.id, '-f', 'motd=Dry run']);
    const before = readFileSync(file, 'utf8');
    const mark = t.sandbox.log.length;
    const r = await t.gsh(['config', 'adopt', file, '--dry-run']);
    expect(r.exitCode, r.stderr).toBe(0);
    // The plan: no request to send, the file write it would make, and the reads that found it.
    expect(r.stdout).toMatch(/^No requests would be sent\.$/m);
    expect(r.stdout).toContain(`then: write ${file}: properties.motd: Changed by hand -> Dry run (${s.name})`);
    expect(r.stderr).toMatch(/Dry run: only the \d+ reads that found the differences .* were sent; nothing else was/);
    expect(r.stderr).toMatch(/1 value would be written into 1 file\. Nothing was written \(--dry-run\)/);
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(writesSince(mark)).toEqual([]);
    expect((await t.gsh(['config', 'diff', file])).exitCode).toBe(14);
  });

  it('no terminal and no --yes: exit 2 before any request, the file unchanged', async () => {
    const before = readFileSync(file, 'utf8');
    const mark = t.sandbox.log.length;
    const r = await t.gsh(['config', 'adopt', file]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/refusing without --yes when not interactive; nothing was read/);
    expect(t.sandbox.log.length).toBe(mark);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('on a terminal it names the files and keys and asks; no keeps the file, yes writes it', async () => {
    const tty = { stdin: true, stderr: true };
    const before = readFileSync(file, 'utf8');
    const no = await t.gsh(['config', 'adopt', file], { tty, input: 'n\n' });
    expect(no.exitCode).toBe(2);
    expect(no.stderr).toMatch(/lobby\.yaml: properties\.motd: Changed by hand -> Dry run/);
    expect(no.stderr).toMatch(/Write 1 live value into 1 file \(\S*lobby\.yaml\)\? \[y\/N\]/);
    expect(readFileSync(file, 'utf8')).toBe(before);
    const yes = await t.gsh(['config', 'adopt', file], { tty, input: 'y\n' });
    expect(yes.exitCode, yes.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(before.replace('motd: Changed by hand ', 'motd: Dry run '));
    expect((await t.gsh(['config', 'diff', file])).exitCode).toBe(0);
  });
});

describe('secrets are never written', () => {
  it('a key declared as ${env:NAME} and a secret-looking key are left and named (exit 11); the live value is nowhere', async () => {
    const s = minecraft()[1]!;
    const file = join(root, 'secret.yaml');
    const text = `version: 1\nserver: ${s.name}\nproperties:\n  rcon.password: \${env:RCON_PASSWORD}\n  motd: Before\n  db_password: old-literal\n`;
    writeFileSync(file, text);
    await ok(['properties', 'update', '-s', s.id, '-f', 'rcon.password=live-secret-1', '-f', 'db_password=live-secret-2', '-f', 'motd=After']);
    const r = await t.gsh(['config', 'adopt', file, '--yes', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(11);
    const rows = JSON.parse(r.stdout) as Array<{ status: string; key: string; code?: string }>;
    expect(rows.map((x) => [x.status, x.key, x.code ?? null]).sort()).toEqual([
      ['left', 'properties.db_password', 'secret'],
      ['left', 'properties.rcon.password', 'env_reference'],
      ['written', 'properties.motd', null],
    ]);
    const after = readFileSync(file, 'utf8');
    expect(after).toBe(text.replace('motd: Before', 'motd: After'));
    for (const out of [after, r.stdout, r.stderr]) expect(out).not.toMatch(/live-secret/);
  });
});

describe('a clamped value: adopting what the service stored is the fix diff names', () => {
  it('apply clamps (11), adopt takes the stored value in, diff 0', async () => {
    const s = minecraft()[2] ?? minecraft()[0]!;
    const file = join(root, 'clamp.yaml');
    s.plan = 'free';
    try {
      writeFileSync(file, `version: 1\nserver: ${s.name}\nproperties:\n  max-players: 500   # as many as we can\n`);
      expect((await t.gsh(['config', 'apply', file, '--yes'])).exitCode).toBe(11);
      const r = await t.gsh(['config', 'adopt', file, '--yes']);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(readFileSync(file, 'utf8')).toBe(`version: 1\nserver: ${s.name}\nproperties:\n  max-players: 20   # as many as we can\n`);
      const diff = await t.gsh(['config', 'diff', file]);
      expect(diff.exitCode, diff.stdout).toBe(0);
      expect(diff.stderr).not.toMatch(/clamped/);
    } finally {
      s.plan = 'paid';
    }
  });
});

describe('a fleet file: the most specific entry changes', () => {
  let a: ServerRecord;
  let b: ServerRecord;
  let file: string;
  const fleet = [
    'version: 1',
    'defaults:',
    '  properties:',
    '    motd: Welcome   # everyone',
    'servers:',
    '  "fleet-*":',
    '    properties: { max-players: 60, difficulty: easy }',
    '  fleet-a:',
    '    properties:',
    '      motd: The first',
    '',
  ].join('\n');
  beforeAll(async () => {
    [a, b] = minecraft().slice(0, 2) as [ServerRecord, ServerRecord];
    a.name = 'fleet-a';
    b.name = 'fleet-b';
    file = join(root, 'fleet.yaml');
    writeFileSync(file, fleet);
    await ok(['config', 'apply', file, '--yes']);
  });

  it('a server\'s own entry takes its change; the defaults and the glob do not', async () => {
    await ok(['properties', 'update', '-s', a.id, '-f', 'motd=Changed on a']);
    const r = await t.gsh(['config', 'adopt', file, '--yes']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(fleet.replace('motd: The first', 'motd: Changed on a'));
    expect((await t.gsh(['config', 'diff', file])).exitCode).toBe(0);
  });

  it('a glob two servers share, one of them changed: left, both named, per-server entry suggested (exit 11), even with -s on one', async () => {
    await ok(['properties', 'update', '-s', b.id, '-f', 'max-players=70']);
    const before = readFileSync(file, 'utf8');
    for (const argv of [['config', 'adopt', file, '--yes'], ['config', 'adopt', file, '-s', 'fleet-b', '--yes']]) {
      const r = await t.gsh(argv);
      expect(r.exitCode, r.stderr).toBe(11);
      expect(r.stdout).toMatch(/left/);
      expect(r.stdout.replace(/\s+/g, ' ')).toMatch(/fleet-b has 70 for properties\.max-players but fleet-a has 60 as declared, and both take it from servers\["fleet-\*"\] of \S+fleet\.yaml: writing it would change fleet-a too; declare it for fleet-b alone \(servers: "fleet-b": properties: …\)/);
      expect(readFileSync(file, 'utf8')).toBe(before);
    }
  });

  it('both changed to one value: the glob takes it, the defaults and the other entries unchanged', async () => {
    await ok(['properties', 'update', '-s', a.id, '-f', 'max-players=70']);
    const r = await t.gsh(['config', 'adopt', file, '-s', 'fleet-a', '--yes']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(fleet.replace('motd: The first', 'motd: Changed on a').replace('max-players: 60,', 'max-players: 70,'));
    expect((await t.gsh(['config', 'diff', file])).exitCode).toBe(0);
  });

  it('two servers drifted to different values on one entry: both named', async () => {
    await ok(['properties', 'update', '-s', a.id, '-f', 'difficulty=hard']);
    await ok(['properties', 'update', '-s', b.id, '-f', 'difficulty=normal']);
    const r = await t.gsh(['config', 'adopt', file, '--yes']);
    expect(r.exitCode).toBe(11);
    expect(r.stdout.replace(/\s+/g, ' ')).toMatch(/fleet-a has hard and fleet-b has normal for properties\.difficulty, which both take from servers\["fleet-\*"\]/);
    expect(readFileSync(file, 'utf8')).toMatch(/difficulty: easy/);
  });
});
