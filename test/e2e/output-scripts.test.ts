import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type E2E, setup } from './helpers.js';

// Output for scripts (ARCHITECTURE.md "Output for scripts") against a sandbox with more servers
// than one page holds: lists page at 25 by default (01-general-contract.md, "Limits"), so --all
// takes several requests.

const SERVERS = 230; // three pages of 100 under --all
let t: E2E;
let ids: string[];
let lobby: { id: string; name: string };
beforeAll(async () => {
  t = await setup({ servers: SERVERS, clock: 'fast' });
  const servers = [...t.sandbox.state.servers.values()];
  ids = servers.map((s) => s.id);
  lobby = { id: servers[0]!.id, name: servers[0]!.name }; // a copy: the csv test renames the server and back
});
afterAll(() => t.close());

const pagesSince = (mark: number) => t.sandbox.log.slice(mark).filter((e) => e.method === 'GET' && e.path === '/servers').length;
const sentSince = (mark: number) => t.sandbox.log.slice(mark).map((e) => `${e.method} ${e.path}`);

describe('--jq', () => {
  it('runs once over every page merged with --all: sort and length see the whole list', async () => {
    const mark = t.sandbox.log.length;
    const r = await t.gsh(['servers', 'list', '--all', '--jq', 'length']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(String(SERVERS)); // the harness drops the final newline, as execa does
    expect(pagesSince(mark)).toBe(3);
    const names = await t.gsh(['servers', 'list', '--all', '--jq', '[.[].name] | sort | .[]']);
    expect(names.stdout.trim().split('\n')).toEqual([...t.sandbox.state.servers.values()].map((s) => s.name).sort());
  });

  it('strings print raw, one per line; other values as compact JSON when piped', async () => {
    const r = await t.gsh(['servers', 'get', lobby.id, '--jq', '.name, {id}']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${lobby.name}\n${JSON.stringify({ id: lobby.id })}`);
  });

  it('has jq semantics: select, test, map, join, @csv', async () => {
    const r = await t.gsh(['servers', 'list', '--all', '--jq', `map(select(.name | test("${lobby.name}$"))) | map(.id) | join(",")`]);
    expect(r.stdout.trim()).toBe(lobby.id);
    const csv = await t.gsh(['servers', 'get', lobby.id, '--jq', '[.id, .name] | @csv']);
    expect(csv.stdout).toBe(`"${lobby.id}","${lobby.name}"`);
  });

  it('a bad expression exits 2 before any request, even the server lookup', async () => {
    const mark = t.sandbox.log.length;
    const r = await t.gsh(['power', 'restart', lobby.name, '--jq', '.[', '--yes']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--jq/);
    expect(sentSince(mark)).toEqual([]);
  });

  it('does not combine with what it would silently override', async () => {
    for (const extra of [['-q'], ['-o', 'yaml'], ['--columns', 'id'], ['-o', 'jsonl'], ['-o', 'csv', '-q']]) {
      const r = await t.gsh(['servers', 'list', '--jq', '.', ...extra]);
      expect(r.exitCode, extra.join(' ')).toBe(2);
    }
  });

  it('with -o csv or tsv writes the objects it yields as rows (--columns, --no-header shape them); anything else is exit 1', async () => {
    const csv = await t.gsh(['servers', 'list', '--all', '--jq', '[.[] | {id, name}] | sort_by(.name)', '-o', 'csv']);
    expect(csv.exitCode, csv.stderr).toBe(0);
    const lines = csv.stdout.trim().split('\r\n');
    expect(lines[0]).toBe('id,name');
    expect(lines).toHaveLength(ids.length + 1);
    const tsv = await t.gsh(['servers', 'list', '--all', '--jq', '.[] | {id, name}', '-o', 'tsv', '--no-header', '--columns', 'name']);
    expect(tsv.exitCode, tsv.stderr).toBe(0);
    expect(tsv.stdout.trim().split('\n')).toHaveLength(ids.length);
    expect(tsv.stdout).not.toContain('\t');
    const bad = await t.gsh(['servers', 'list', '--jq', 'length', '-o', 'csv']);
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toContain('--jq with -o csv or tsv writes objects as rows: the expression yielded a number');
  });
});

describe('-q', () => {
  it('prints every id, one per line, over every page with --all', async () => {
    const mark = t.sandbox.log.length;
    const r = await t.gsh(['servers', 'list', '--all', '-q']);
    expect(pagesSince(mark)).toBe(3);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n').sort()).toEqual([...ids].sort());
  });
});

describe('column formats', () => {
  it('csv with chosen columns round-trips through a CSV parser, commas, quotes and newlines included', async () => {
    const tricky = 'lobby, "the big one"\nsecond line';
    const renamed = await t.gsh(['settings', 'update', '-s', lobby.id, '--name', tricky, '--json']);
    expect(renamed.exitCode, renamed.stderr).toBe(0);
    const r = await t.gsh(['servers', 'list', '--all', '-o', 'csv', '--columns', 'id,name']);
    expect(r.exitCode, r.stderr).toBe(0);
    const rows = parse(r.stdout) as string[][];
    expect(rows[0]).toEqual(['id', 'name']);
    expect(rows).toHaveLength(SERVERS + 1);
    expect(rows.find((row) => row[0] === lobby.id)).toEqual([lobby.id, tricky]);
    await t.gsh(['settings', 'update', '-s', lobby.id, '--name', lobby.name]);
  });

  it('tsv has a header; --no-header leaves it out; the default columns come from the registry', async () => {
    const r = await t.gsh(['servers', 'list', '-o', 'tsv', '--limit', '2']);
    const [header, ...rows] = r.stdout.trim().split('\n');
    expect(header!.split('\t')[0]).toBe('id');
    expect(rows).toHaveLength(2);
    const bare = await t.gsh(['servers', 'list', '-o', 'tsv', '--limit', '2', '--no-header']);
    expect(bare.stdout.trim().split('\n')).toEqual(rows);
  });

  it('--columns is checked before any request', async () => {
    const mark = t.sandbox.log.length;
    expect((await t.gsh(['servers', 'list', '--columns', 'id,,name'])).exitCode).toBe(2);
    expect((await t.gsh(['servers', 'list', '-o', 'json', '--columns', 'id'])).exitCode).toBe(2);
    expect(sentSince(mark)).toEqual([]);
  });

  it('on a terminal, ids are never cut even when the table is narrow', async () => {
    const r = await t.gsh(['servers', 'list', '--limit', '3'], { tty: { stdout: true, stderr: true, columns: 50 } });
    for (const id of r.stdout.split('\n').slice(1).filter(Boolean).map((l) => l.split(/\s+/)[0])) expect(ids).toContain(id);
  });
});

describe('a list cut at a page', () => {
  it('says on stderr how many there are and that --all fetches them, in every format', async () => {
    for (const format of ['table', 'json']) {
      const r = await t.gsh(['servers', 'list', '-o', format]);
      expect(r.stderr).toMatch(new RegExp(`showing 25 of ${SERVERS}; --all fetches every page`));
    }
    expect((await t.gsh(['servers', 'list', '--all', '-o', 'json'])).stderr).not.toMatch(/showing/);
  });
});

describe('positional server', () => {
  it('servers get, status and power take the server as an argument; -s keeps working', async () => {
    const byArg = await t.gsh(['servers', 'get', lobby.name, '--json']);
    expect(byArg.exitCode, byArg.stderr).toBe(0);
    expect(JSON.parse(byArg.stdout).id).toBe(lobby.id);
    const bySwitch = await t.gsh(['servers', 'get', '-s', lobby.name, '--json']);
    expect(JSON.parse(bySwitch.stdout).id).toBe(lobby.id);
    expect((await t.gsh(['servers', 'status', lobby.id, '--json'])).exitCode).toBe(0);
    const dry = await t.gsh(['power', 'restart', lobby.id, '--dry-run', '-o', 'json']);
    expect(JSON.parse(dry.stdout).requests[0].url).toContain(`/servers/${lobby.id}/power`);
  });

  it('two different servers, as argument and -s, is a usage error before any request', async () => {
    const mark = t.sandbox.log.length;
    const r = await t.gsh(['servers', 'delete', lobby.id, '-s', ids[1]!, '--yes']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/two servers/);
    expect(sentSince(mark)).toEqual([]);
  });

  it('console attach takes it too (dry run)', async () => {
    const r = await t.gsh(['console', 'attach', lobby.id, '--dry-run', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).requests[0].url).toContain(`/servers/${lobby.id}/console/token`);
  });
});

describe('whoami and version', () => {
  it('whoami shows the account, key name, scopes, rate limit, base URL and where the credential came from', async () => {
    const r = await t.gsh(['whoami', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const me = JSON.parse(r.stdout);
    expect(me.base_url).toBe(t.sandbox.baseUrl);
    expect(me.source).toMatch(/GSH_API_KEY/);
    expect(me.account).toBeDefined();
    expect(me.key).toEqual(expect.objectContaining({ name: expect.any(String), scopes: expect.any(Array) }));
    expect(JSON.stringify(me.key)).toMatch(/rate/);
    expect(r.stdout).not.toContain(t.sandbox.keys.all);
  });

  it('version prints gsh, Node.js and the platform, as text or JSON', async () => {
    const text = await t.gsh(['version']);
    expect(text.stdout).toMatch(/^gsh \d+\.\d+\.\d+\nnode \d+\.\d+\.\d+\nplatform \w+-\w+$/);
    const json = JSON.parse((await t.gsh(['version', '-o', 'json'])).stdout);
    expect(Object.keys(json)).toEqual(['gsh', 'node', 'platform']);
  });
});

describe('binary safety (files get)', () => {
  it('refuses to write binary content to a terminal, with a hint; piped or --to - it writes the bytes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsh-binary-'));
    writeFileSync(join(dir, 'blob.bin'), Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0xff, 0x00, 0x10]));
    const put = await t.gsh(['files', 'put', join(dir, 'blob.bin'), '-s', lobby.id, '--dir', '/']);
    rmSync(dir, { recursive: true, force: true });
    expect(put.exitCode, put.stderr).toBe(0);
    const tty = { stdout: true, stderr: true, columns: 100 };
    const refused = await t.gsh(['files', 'get', '/blob.bin', '-s', lobby.id], { tty });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/binary.*--to FILE/s);
    expect(refused.stdout).toBe('');
    const piped = await t.gsh(['files', 'get', '/blob.bin', '-s', lobby.id]);
    expect(piped.exitCode, piped.stderr).toBe(0);
    const forced = await t.gsh(['files', 'get', '/blob.bin', '-s', lobby.id, '--to', '-'], { tty });
    expect(forced.exitCode, forced.stderr).toBe(0);
    const text = await t.gsh(['files', 'get', '/server.properties', '-s', lobby.id], { tty });
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/=/);
  });
});
