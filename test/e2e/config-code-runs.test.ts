import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerRecord } from '../../src/sandbox/index.js';
import { runGsh, testContext } from '../helpers/context.js';
import { runEnv, setup, type E2E } from './helpers.js';

// How `gsh config apply` plans, dry-runs and stops (README "Configuration as code"; the brief's
// "Nothing is sent until everything typed is checked"): the --yes check before any request, a dry
// run that says which reads it sent and names servers beside their ids, exit 14 while changes are
// pending (as diff; DESIGN.md "Exit codes"), and Ctrl-C during the reads listing every server.
// Semantics of the reads: 02-endpoints-part-a.md "Properties" (GET returns every entry).

let t: E2E;
let root: string;
let servers: ServerRecord[];
beforeAll(async () => {
  t = await setup({ servers: 4, clock: 'fast' });
  root = mkdtempSync(join(tmpdir(), 'gsh-config-runs-'));
  servers = [...t.sandbox.state.servers.values()].filter((s) => s.application === 'minecraft').slice(0, 2);
  servers.forEach((s, i) => {
    s.plan = 'paid';
    s.name = `runs-${i}`;
  });
});
afterAll(async () => {
  await t.close();
  rmSync(root, { recursive: true, force: true });
});

/** A directory declaring `motd` on both servers. */
function declare(name: string, motd: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  for (const s of servers) writeFileSync(join(dir, `${s.name}.yaml`), `version: 1\nserver: ${s.name}\nproperties:\n  motd: ${motd}\n`);
  return dir;
}

describe('config apply plans before it sends (issue 50 item 5)', () => {
  it('not interactive, without --yes: exit 2 and not one request', async () => {
    const dir = declare('no-yes', 'Needs a yes');
    const mark = t.sandbox.log.length;
    const r = await t.gsh(['config', 'apply', dir]);
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/refusing without --yes when not interactive; nothing was sent/);
    expect(t.sandbox.log.slice(mark)).toEqual([]);
  });

  it('--dry-run: exit 14 with changes pending, names servers beside ids and says which reads were sent', async () => {
    const dir = declare('dry', 'Dry run');
    const mark = t.sandbox.log.length;
    const r = await t.gsh(['config', 'apply', dir, '--dry-run']);
    expect(r.exitCode, r.stderr).toBe(14);
    const sent = t.sandbox.log.slice(mark);
    expect(sent.every((e) => e.method === 'GET')).toBe(true);
    // The listing and one properties read per server: three reads, as the note says.
    expect(sent).toHaveLength(3);
    expect(r.stderr).toContain('Dry run: only the 3 reads that found the changes (the server listing and the declared kinds of 2 servers) were sent; none of the requests above was.');
    for (const s of servers) expect(r.stdout).toContain(`"${s.name}": the name of server ${s.id}`);
    expect(r.stdout.match(/^PUT .*\/properties$/gm)).toHaveLength(2);
    const json = await t.gsh(['config', 'apply', dir, '--dry-run', '-o', 'json']);
    expect(json.exitCode).toBe(14);
    expect(JSON.parse(json.stdout)).toMatchObject({ sent: { requests: 3 }, servers: servers.map((s) => ({ ref: s.name, servers: [{ id: s.id, name: s.name }] })) });
  });

  it('--dry-run with nothing pending: exit 0, naming the servers it compared', async () => {
    const dir = declare('dry-none', 'In sync already');
    expect((await t.gsh(['config', 'apply', dir, '--yes'])).exitCode).toBe(0);
    const r = await t.gsh(['config', 'apply', dir, '--dry-run']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Nothing to apply: 2 servers are as declared (${servers.map((s) => `${s.name} (${s.id})`).join(', ')})`);
    expect(r.stderr).toMatch(/Dry run: only the 3 reads .* were sent; nothing else was\./);
  });
});

describe('config apply -o json interrupted during its reads (issue 50 item 8)', () => {
  it('lists every server on stdout: the one read with its pending change, the other as not read; exit 130, nothing written', async () => {
    const dir = declare('cut', 'Interrupted');
    const ctx = testContext({ env: runEnv(t.env()) });
    // Ctrl-C while the second server's properties are being read (one server at a time).
    let reads = 0;
    const stop = t.sandbox.onRequest((e) => {
      if (e.route === '/servers/{server_id}/properties' && ++reads === 2) ctx.signals.emit('SIGINT');
    });
    const mark = t.sandbox.log.length;
    let r;
    try {
      r = await runGsh(['config', 'apply', dir, '--yes', '--parallel', '1', '-o', 'json'], ctx);
    } finally {
      stop();
    }
    expect(r.exitCode, r.stderr).toBe(130);
    expect(t.sandbox.log.slice(mark).filter((e) => e.method !== 'GET')).toEqual([]);
    const listed = JSON.parse(r.stdout) as Array<{ server_name: string; status: string; item: string | null; error?: { message: string; code: string | null; exit_code: number } }>;
    expect(listed.map((x) => [x.server_name, x.status, x.item])).toEqual([
      [servers[0]!.name, 'not_started', 'properties'],
      [servers[1]!.name, 'not_started', null],
    ]);
    // The shared error object of a fleet entry (core/terminal/report.ts), with gsh's own code.
    expect(listed[1]!.error).toMatchObject({ message: 'not read: interrupted first', code: 'not_read', exit_code: 130 });
    expect(r.stderr).toMatch(/Interrupted while reading: 1 of 2 servers read, nothing written/);
  });
});

describe('-s and --only through the shared parsers; problems as the shared error object', () => {
  it('-s takes the selection grammar of every fleet command: id:…, a name in any case, a glob', async () => {
    const dir = declare('select', 'Selected');
    for (const [sel, want] of [[`id:${servers[1]!.id}`, [servers[1]!]], [servers[0]!.name.toUpperCase(), [servers[0]!]], ['runs-*', servers]] as const) {
      const r = await t.gsh(['config', 'diff', dir, '-s', sel, '-o', 'json']);
      expect(r.exitCode, r.stderr).toBe(14);
      expect((JSON.parse(r.stdout) as Array<{ server_id: string }>).map((x) => x.server_id).sort(), sel).toEqual(want.map((s) => s.id).sort());
    }
  });

  it('an unknown --only kind or an empty -s: exit 2 with the nearest kind, before any request', async () => {
    const dir = declare('usage', 'Usage');
    const mark = t.sandbox.log.length;
    const only = await t.gsh(['config', 'diff', dir, '--only', 'propertes']);
    expect(only.exitCode).toBe(2);
    expect(only.stderr).toMatch(/--only: unknown kind "propertes"; did you mean "properties"\?/);
    const empty = await t.gsh(['config', 'apply', dir, '--yes', '-s', 'runs-0,']);
    expect(empty.exitCode).toBe(2);
    expect(empty.stderr).toMatch(/-s has an empty server reference/);
    expect(t.sandbox.log.slice(mark)).toEqual([]);
  });

  it('a file whose server does not exist: diff -o json gives the shared error object with code no_such_server (exit 11)', async () => {
    const dir = join(root, 'missing');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'gone.yaml'), 'version: 1\nserver: no-such-server\nproperties:\n  motd: x\n');
    const r = await t.gsh(['config', 'diff', dir, '-o', 'json']);
    expect(r.exitCode).toBe(11);
    expect(JSON.parse(r.stdout)).toEqual([expect.objectContaining({ server_name: 'no-such-server', error: expect.objectContaining({ code: 'no_such_server', exit_code: 11, message: expect.stringContaining('no server is named no-such-server') }) })]);
  });
});

describe('diff -o markdown over 110 drifted servers (README "Configuration as code")', () => {
  it('one comment within 65,000 characters: the summary, the table, the rest counted; -o markdown on a list is a table', async () => {
    const { startSandbox } = await import('../../src/sandbox/index.js');
    const sb = await startSandbox({ servers: 110, timeScale: 0.01 });
    try {
      const all = [...sb.state.servers.values()];
      all.forEach((s, i) => {
        s.application = 'minecraft';
        s.plan = 'paid';
        s.name = `md-${String(i).padStart(3, '0')}`;
      });
      const file = join(root, 'markdown-fleet.yaml');
      writeFileSync(file, `version: 1\nservers:\n  "md-*":\n    properties:\n${Array.from({ length: 6 }, (_, k) => `      key-${k}: "${'declared value '.repeat(8)}${k}"`).join('\n')}\n`);
      const env = runEnv({ GSH_BASE_URL: sb.baseUrl, GSH_API_KEY: sb.keys.all, GSH_CONFIG_DIR: root, NO_COLOR: '1' });
      const r = await runGsh(['config', 'diff', file, '-o', 'markdown', '--parallel', '8'], { env });
      expect(r.exitCode, r.stderr).toBe(14);
      expect(r.stdout.length).toBeLessThanOrEqual(65_000);
      expect(r.stdout.split('\n')[0]).toBe('### gsh config diff: 110 servers of 110 differ');
      expect(r.stdout).toContain('660 differences: properties 660.');
      expect(r.stdout).toMatch(/^\| md-000 \| properties\.key-0 \| - \| declared value/m);
      expect(r.stdout).toMatch(/Not shown, to keep this comment within 65,000 characters: \d+ more differences \(properties \d+\) on \d+ servers/);
      const list = await runGsh(['servers', 'list', '-o', 'markdown', '--columns', 'id,name'], { env });
      expect(list.exitCode, list.stderr).toBe(0);
      expect(list.stdout.split('\n').slice(0, 2)).toEqual(['| id | name |', '| --- | --- |']);
    } finally {
      await sb.close();
    }
  }, 60_000);
});
