import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runGsh, testContext } from '../helpers/context.js';
import { runEnv, setup, type E2E } from './helpers.js';

// Init templates as a kind of gsh config (README "Configuration as code", "Init templates"):
// declared for the account in a file of its own, by name, with a description and a manifest file
// beside it. Semantics: 02-endpoints-part-a.md "Init templates and manifest validation" (names
// unique per account; PATCH takes any subset of name, description, manifest; the manifest is
// validated at the paid caps); 01-general-contract.md "Resource table" (name, description,
// manifest) and "Init manifest". Exit codes: ARCHITECTURE.md "Exit codes" (2 usage, 6 conflict,
// 14 drift).

let t: E2E;
let root: string;
beforeAll(async () => {
  t = await setup();
  root = mkdtempSync(join(tmpdir(), 'gsh-config-templates-'));
});
afterAll(async () => {
  await t.close();
  rmSync(root, { recursive: true, force: true });
});
// The account is shared by every test of the file: each starts with no template.
beforeEach(() => t.sandbox.state.generic.collection('/init/templates').clear());

const LOBBY = '#service-init\nversion: 1\nenv:\n  MODE: lobby\nrun: [say ready]\n';
// version 2 on line 2 and an unknown key on line 6: init lint's errors.
const BROKEN = '#service-init\nversion: 2\nfiles:\n  - path: motd.txt\n    content: hi\n    colour: red\n';

let n = 0;
/** A directory with account.yaml declaring the templates, and their manifests under manifests/. */
function declare(templates: Array<{ name: string; description?: string; manifest: string }>, opts: { prune?: boolean } = {}): string {
  const dir = join(root, `d${++n}`);
  mkdirSync(join(dir, 'manifests'), { recursive: true });
  const items = templates.flatMap((tpl) => {
    writeFileSync(join(dir, 'manifests', `${tpl.name}.yaml`), tpl.manifest);
    return [`  - name: ${tpl.name}`, ...(tpl.description !== undefined ? [`    description: ${tpl.description}`] : []), `    manifest: manifests/${tpl.name}.yaml`];
  });
  const body = opts.prune ? ['templates:', '  prune: true', '  items:', ...items.map((l) => `  ${l}`)] : ['templates:', ...items];
  writeFileSync(join(dir, 'account.yaml'), ['version: 1', ...body, ''].join('\n'));
  return dir;
}

const since = (mark: number) => t.sandbox.log.slice(mark);
const writes = (mark: number) => since(mark).filter((e) => e.method !== 'GET').map((e) => `${e.method} ${e.path}`);
const live = () => [...t.sandbox.state.generic.collection('/init/templates').values()];

async function applied(...args: string[]) {
  const r = await t.gsh(['config', 'apply', ...args, '--yes', '-o', 'json']);
  expect(r.exitCode, r.stderr).toBe(0);
  return r;
}

describe('gsh config: init templates', () => {
  it('Ctrl-C during the account\'s writes: exit 130, and -o json still lists every change, the one not sent as not_started', async () => {
    const dir = declare([{ name: 'cut-a', manifest: LOBBY }, { name: 'cut-b', manifest: LOBBY }]);
    const ctx = testContext({ env: runEnv(t.env()) });
    const off = t.sandbox.onRequest((e) => {
      if (e.method === 'POST' && e.path === '/init/templates') setImmediate(() => ctx.signals.emit('SIGINT'));
    });
    const r = await runGsh(['config', 'apply', dir, '--yes', '-o', 'json'], ctx).finally(off);
    expect(r.exitCode, r.stderr).toBe(130);
    const rows = JSON.parse(r.stdout) as Array<{ account?: true; item: string; status: string }>;
    expect(rows.map((x) => x.item)).toEqual(['templates[cut-a]', 'templates[cut-b]']);
    expect(rows.every((x) => x.account === true)).toBe(true);
    expect(rows[1]!.status).toBe('not_started');
    expect(r.stderr).toMatch(/Interrupted: \d change/);
  });

  it('adopt takes a live description into account.yaml (comments kept), then diff is 0; a live manifest is left, its file not rewritten', async () => {
    const dir = declare([{ name: 'adopt-lobby', description: 'first words', manifest: LOBBY }]);
    const file = join(dir, 'account.yaml');
    writeFileSync(file, `# the account's templates\n${readFileSync(file, 'utf8')}`);
    await applied(dir);
    const [tpl] = live();
    expect((await t.gsh(['init', 'templates', 'update', String(tpl!.id), '--description', 'changed live'])).exitCode).toBe(0);
    const r = await t.gsh(['config', 'adopt', dir, '--yes', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(`# the account's templates\nversion: 1\ntemplates:\n  - name: adopt-lobby\n    description: changed live\n    manifest: manifests/adopt-lobby.yaml\n`);
    expect((await t.gsh(['config', 'diff', dir])).exitCode).toBe(0);

    const arena = join(root, `arena-${n}.yaml`);
    writeFileSync(arena, LOBBY.replace('lobby', 'arena'));
    expect((await t.gsh(['init', 'templates', 'update', String(tpl!.id), arena])).exitCode).toBe(0);
    const left = await t.gsh(['config', 'adopt', dir, '--yes', '-o', 'json']);
    expect(left.exitCode, left.stderr).toBe(11);
    expect(JSON.parse(left.stdout)).toMatchObject([{ status: 'left', code: 'not_adoptable', servers: ['account'] }]);
    expect(readFileSync(join(dir, 'manifests', 'adopt-lobby.yaml'), 'utf8')).toBe(LOBBY);
  });

  it('with --shard the account is written by the first shard alone (README "Rollouts"): two runners create it once', async () => {
    const dir = declare([{ name: 'shard-lobby', description: 'one of', manifest: LOBBY }]);
    const second = t.sandbox.log.length;
    const r2 = await t.gsh(['config', 'apply', dir, '--shard', '2/2', '--yes', '-o', 'json']);
    expect(r2.exitCode, r2.stderr).toBe(0);
    expect(writes(second)).toEqual([]);
    const first = t.sandbox.log.length;
    const r1 = await applied(dir, '--shard', '1/2');
    expect(writes(first)).toEqual(['POST /init/templates']);
    expect(JSON.parse(r1.stdout)).toMatchObject([{ account: true, status: 'applied' }]);
    expect(live().map((x) => x.name)).toEqual(['shard-lobby']);
  });

  it('a declared template is created by one POST, then diff is 0 and apply sends nothing', async () => {
    const dir = declare([{ name: 'paper-lobby', description: 'Paper lobby', manifest: LOBBY }]);
    const first = await t.gsh(['config', 'diff', dir, '-o', 'json']);
    expect(first.exitCode, first.stderr).toBe(14);
    const report = JSON.parse(first.stdout) as Array<Record<string, unknown>>;
    expect(report).toMatchObject([{ account: true, server_id: null, in_sync: false, changes: [{ kind: 'templates', action: 'create', item: 'templates[paper-lobby]' }] }]);

    const mark = t.sandbox.log.length;
    const r = await applied(dir);
    expect(writes(mark)).toEqual(['POST /init/templates']);
    const post = since(mark).find((e) => e.method === 'POST')!;
    // The manifest travels as its text (src/operations/init.ts), the #service-init header kept.
    expect(post.body).toEqual({ name: 'paper-lobby', description: 'Paper lobby', manifest: LOBBY });
    expect(JSON.parse(r.stdout)).toMatchObject([{ account: true, kind: 'templates', action: 'create', status: 'applied' }]);
    // No server file: the run reads no server listing.
    expect(since(mark).filter((e) => e.path === '/servers')).toEqual([]);
    expect(live().map((x) => x.name)).toEqual(['paper-lobby']);

    const again = await t.gsh(['config', 'diff', dir]);
    expect(again.exitCode, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toMatch(/account\s+in sync/);
    const mark2 = t.sandbox.log.length;
    await applied(dir);
    expect(writes(mark2)).toEqual([]);
  });

  it('a changed description is one PATCH of the description alone; a changed manifest one PATCH sending its text', async () => {
    await applied(declare([{ name: 'paper-lobby', description: 'Paper lobby', manifest: LOBBY }]));
    const id = live()[0]!.id as string;
    const changed = declare([{ name: 'paper-lobby', description: 'Paper lobby, 1.21', manifest: LOBBY }]);
    const diff = await t.gsh(['config', 'diff', changed]);
    expect(diff.exitCode).toBe(14);
    expect(diff.stdout).toMatch(/account\s+update\s+templates\[paper-lobby\]\.description\s+Paper lobby\s+Paper lobby, 1\.21/);

    let mark = t.sandbox.log.length;
    await applied(changed);
    expect(writes(mark)).toEqual([`PATCH /init/templates/${id}`]);
    expect(since(mark).find((e) => e.method === 'PATCH')!.body).toEqual({ description: 'Paper lobby, 1.21' });

    // Comments and layout are not the manifest's data: no write for them.
    const recommented = declare([{ name: 'paper-lobby', description: 'Paper lobby, 1.21', manifest: `${LOBBY}# the lobby's manifest\n` }]);
    expect((await t.gsh(['config', 'diff', recommented])).exitCode).toBe(0);

    const manifest = LOBBY.replace('MODE: lobby', 'MODE: hub');
    mark = t.sandbox.log.length;
    await applied(declare([{ name: 'paper-lobby', description: 'Paper lobby, 1.21', manifest }]));
    expect(writes(mark)).toEqual([`PATCH /init/templates/${id}`]);
    expect(since(mark).find((e) => e.method === 'PATCH')!.body).toEqual({ manifest });
    expect(live()[0]!.manifest).toBe(manifest);
  });

  it('a live template the file does not declare: kept without --prune templates (prune: true), one DELETE with it', async () => {
    await applied(declare([{ name: 'old', manifest: LOBBY }, { name: 'kept', manifest: LOBBY }]));
    const old = live().find((x) => x.name === 'old')!.id as string;

    // Without prune: true the file manages only what it lists.
    const listed = declare([{ name: 'kept', manifest: LOBBY }]);
    expect((await t.gsh(['config', 'diff', listed])).exitCode).toBe(0);

    const pruning = declare([{ name: 'kept', manifest: LOBBY }], { prune: true });
    const diff = await t.gsh(['config', 'diff', pruning, '-o', 'json']);
    expect(diff.exitCode).toBe(14);
    expect(JSON.parse(diff.stdout)[0].changes).toEqual([expect.objectContaining({ action: 'delete', item: 'templates[old]', held: true, reason: { code: 'prune_not_requested', flag: '--prune templates' } })]);

    let mark = t.sandbox.log.length;
    const kept = await applied(pruning);
    expect(writes(mark)).toEqual([]);
    expect(kept.stderr).toContain('account: templates[old] kept: apply deletes it only with --prune templates');
    expect(live().map((x) => x.name).sort()).toEqual(['kept', 'old']);

    mark = t.sandbox.log.length;
    await applied(pruning, '--prune', 'templates');
    expect(writes(mark)).toEqual([`DELETE /init/templates/${old}`]);
    expect(live().map((x) => x.name)).toEqual(['kept']);
    expect((await t.gsh(['config', 'diff', pruning])).exitCode).toBe(0);
  });

  it('a manifest with an init lint error stops diff and apply before any request, with the lint\'s own messages', async () => {
    const dir = declare([{ name: 'broken', manifest: BROKEN }]);
    const mark = t.sandbox.log.length;
    for (const cmd of [['diff', dir], ['apply', dir, '--yes']]) {
      const r = await t.gsh(['config', ...cmd]);
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toContain('manifests/broken.yaml:2:10:');
      expect(r.stderr).toContain('manifests/broken.yaml:6:5:');
      expect(r.stderr).toMatch(/nothing was sent/);
    }
    expect(since(mark)).toEqual([]);
    // gsh config lint finds the same, offline.
    const lint = await t.gsh(['config', 'lint', dir]);
    expect(lint.exitCode).toBe(1);
    expect(lint.stdout).toContain('manifests/broken.yaml:6:5:');
  });

  it('a manifest path that leaves the declaration\'s directory is refused before any request', async () => {
    const dir = declare([{ name: 'x', manifest: LOBBY }]);
    writeFileSync(join(dir, 'account.yaml'), 'version: 1\ntemplates:\n  - name: x\n    manifest: ../outside.yaml\n');
    const mark = t.sandbox.log.length;
    const r = await t.gsh(['config', 'diff', dir]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('no .. step');
    expect(since(mark)).toEqual([]);
  });

  it('apply --dry-run sends no write and exits 14 while a template is pending', async () => {
    const dir = declare([{ name: 'dry', description: 'Dry run', manifest: LOBBY }]);
    const mark = t.sandbox.log.length;
    const r = await t.gsh(['config', 'apply', dir, '--dry-run']);
    expect(r.exitCode, r.stderr).toBe(14);
    expect(r.stdout + r.stderr).toMatch(/POST \S*\/init\/templates\b/);
    expect(r.stderr).toContain('the account\'s declared kinds');
    expect(writes(mark)).toEqual([]);
    expect(live()).toEqual([]);
  });

  it('two live templates with the declared name: exit 6 naming both, nothing written', async () => {
    const store = t.sandbox.state.generic.collection('/init/templates');
    for (const id of ['tpl_a1', 'tpl_b2']) store.set(id, { object: 'init_template', id, name: 'twin', manifest: LOBBY });
    const dir = declare([{ name: 'twin', description: 'Which one?', manifest: LOBBY }]);
    const mark = t.sandbox.log.length;
    for (const cmd of [['diff', dir], ['apply', dir, '--yes']]) {
      const r = await t.gsh(['config', ...cmd]);
      expect(r.exitCode, r.stderr).toBe(6);
      expect(r.stderr).toMatch(/2 live init templates are named "twin" \(tpl_a1, tpl_b2\)/);
    }
    expect(writes(mark)).toEqual([]);
  });

  it('declared in a server\'s file, templates are a lint error (they are the account\'s)', async () => {
    const dir = join(root, `d${++n}`);
    mkdirSync(join(dir, 'manifests'), { recursive: true });
    writeFileSync(join(dir, 'manifests', 'a.yaml'), LOBBY);
    writeFileSync(join(dir, 'lobby.yaml'), 'version: 1\nserver: lobby\ntemplates:\n  - name: a\n    manifest: manifests/a.yaml\n');
    const r = await t.gsh(['config', 'lint', dir]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain('belongs to the account, not to a server');
  });

  it('with -s the account is compared only when --only names templates', async () => {
    const server = [...t.sandbox.state.servers.values()][0]!;
    const dir = declare([{ name: 'narrowed', manifest: LOBBY }]);
    writeFileSync(join(dir, 'server.yaml'), `version: 1\nid: ${server.id}\nserver: ${server.name}\n`);
    const servers = await t.gsh(['config', 'diff', dir, '-s', `id:${server.id}`, '-o', 'json']);
    expect(servers.exitCode, servers.stderr).toBe(0);
    expect((JSON.parse(servers.stdout) as Array<{ account?: true }>).some((r) => r.account)).toBe(false);
    const both = await t.gsh(['config', 'diff', dir, '-s', `id:${server.id}`, '--only', 'templates', '-o', 'json']);
    expect(both.exitCode, both.stderr).toBe(14);
    expect((JSON.parse(both.stdout) as Array<{ account?: true }>).filter((r) => r.account)).toHaveLength(1);
    // No -s: servers and the account.
    expect((await t.gsh(['config', 'diff', dir])).exitCode).toBe(14);
  });

  it('diff --out then apply --plan: exactly the planned POST; a template created meanwhile makes the plan stale (exit 6)', async () => {
    const dir = declare([{ name: 'planned', description: 'Planned', manifest: LOBBY }]);
    const plan = join(root, `plan${++n}.json`);
    expect((await t.gsh(['config', 'diff', dir, '--out', plan])).exitCode).toBe(14);
    expect(JSON.parse(readFileSync(plan, 'utf8')).servers).toMatchObject([{ account: true, server_id: null }]);
    const stale = join(root, `plan${++n}.json`);
    expect((await t.gsh(['config', 'diff', dir, '--out', stale])).exitCode).toBe(14);
    let mark = t.sandbox.log.length;
    await applied('--plan', plan);
    expect(writes(mark)).toEqual(['POST /init/templates']);
    mark = t.sandbox.log.length;
    const refused = await t.gsh(['config', 'apply', '--plan', stale, '--yes']);
    expect(refused.exitCode, refused.stderr).toBe(6);
    expect(refused.stderr).toContain('stale');
    expect(writes(mark)).toEqual([]);
  });

  it('export --only templates writes account.yaml and each manifest beside it; diff of it is 0', async () => {
    await applied(declare([{ name: 'paper-lobby', description: 'Paper lobby', manifest: LOBBY }, { name: 'hub', manifest: LOBBY.replace('lobby', 'hub') }]));
    const out = join(root, `export${++n}`);
    const r = await t.gsh(['config', 'export', '--only', 'templates', '--dir', out]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readFileSync(join(out, 'templates', 'paper-lobby.yaml'), 'utf8')).toBe(LOBBY);
    const text = readFileSync(join(out, 'account.yaml'), 'utf8');
    expect(text).toContain('manifest: templates/paper-lobby.yaml');
    expect(text).toContain('description: Paper lobby');
    expect((await t.gsh(['config', 'diff', out])).exitCode).toBe(0);
    // Without --force nothing is replaced.
    const again = await t.gsh(['config', 'export', '--only', 'templates', '--dir', out]);
    expect(again.exitCode).toBe(2);
    expect(existsSync(join(out, 'templates', 'hub.yaml'))).toBe(true);
  });
});
