import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type E2E, setup } from './helpers.js';

// The auth store never loses a profile (ARCHITECTURE.md "Auth store"): every write is a locked
// read-modify-write replaced atomically; a file of the wrong shape is an error and is left alone.

let t: E2E;
const dirs: string[] = [];
beforeAll(async () => {
  t = await setup({ servers: 1 });
});
afterAll(async () => {
  await t.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function freshDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'gsh-store-'));
  dirs.push(d);
  return d;
}

describe('concurrent writers', () => {
  // Subprocesses: the lock is between processes, which only real processes show.
  it('20 auth logins in parallel leave exactly 20 profiles, valid JSON, mode 0600', async () => {
    const dir = freshDir();
    const runs = await Promise.all(Array.from({ length: 20 }, (_v, i) =>
      t.gshProcess(['auth', 'login', '--profile', `p${i}`], { env: { GSH_CONFIG_DIR: dir, GSH_API_KEY: undefined }, input: `${t.sandbox.keys.all}\n` })));
    expect(runs.map((r) => r.exitCode)).toEqual(Array(20).fill(0));
    const file = join(dir, 'config.json');
    const data = JSON.parse(readFileSync(file, 'utf8')) as { profiles: Record<string, unknown> };
    expect(Object.keys(data.profiles).sort()).toEqual(Array.from({ length: 20 }, (_v, i) => `p${i}`).sort());
    expect(statSync(file).mode & 0o777).toBe(0o600);
  }, 60_000);

  it('a lock left by a crashed writer is taken over once it is stale', async () => {
    const dir = freshDir();
    mkdirSync(join(dir, 'config.json.lock'), { recursive: true });
    const old = new Date(Date.now() - 60_000);
    utimesSync(join(dir, 'config.json.lock'), old, old);
    const r = await t.gsh(['auth', 'login', '--profile', 'after-crash'], { env: { GSH_CONFIG_DIR: dir, GSH_API_KEY: undefined }, input: `${t.sandbox.keys.all}\n` });
    expect(r.exitCode, r.stderr).toBe(0);
  });
});

describe('schema on read', () => {
  const wrong: [string, string, RegExp][] = [
    ['an array', '[1,2]', /the top level is an array/],
    ['profiles null', '{"profiles": null}', /"profiles" is null/],
    ['a number as current', '{"current": 3, "profiles": {}}', /"current" is not a profile name/],
    ['a profile that is a string', '{"profiles": {"ci": "key"}}', /profile "ci" is not an object/],
    ['an api_key that is a number', '{"profiles": {"ci": {"api_key": 5}}}', /profile "ci": "api_key" is not a string/],
  ];
  it.each(wrong)('%s: a clear error naming the file, and the file is never rewritten', async (_name, text, problem) => {
    const dir = freshDir();
    const file = join(dir, 'config.json');
    writeFileSync(file, text);
    for (const argv of [['auth', 'login', '--profile', 'x'], ['auth', 'profiles'], ['auth', 'switch', 'x']]) {
      const r = await t.gsh(argv, { env: { GSH_CONFIG_DIR: dir, GSH_API_KEY: undefined }, input: `${t.sandbox.keys.all}\n` });
      expect(r.exitCode, argv.join(' ')).toBe(1);
      expect(r.stderr).toContain(`the config file ${file} is not a gsh config`);
      expect(r.stderr).toMatch(problem);
      expect(r.stderr).not.toMatch(/bug in gsh|internal error/);
    }
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('auth status reports a current profile that does not exist', async () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ current: 'gone', profiles: {} }));
    const r = await t.gsh(['auth', 'status'], { env: { GSH_CONFIG_DIR: dir } });
    expect(r.stderr).toMatch(/"current" names the profile "gone", which does not exist/);
  });

  it('unknown extra fields are kept through a write', async () => {
    const dir = freshDir();
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ editor_note: 'keep me', profiles: { old: { base_url: 'https://x/api/v2', extra: 1 } } }));
    const r = await t.gsh(['auth', 'login', '--profile', 'new'], { env: { GSH_CONFIG_DIR: dir, GSH_API_KEY: undefined }, input: `${t.sandbox.keys.all}\n` });
    expect(r.exitCode, r.stderr).toBe(0);
    const data = JSON.parse(readFileSync(file, 'utf8'));
    expect(data.editor_note).toBe('keep me');
    expect(data.profiles.old.extra).toBe(1);
    expect(Object.keys(data.profiles).sort()).toEqual(['new', 'old']);
  });
});

describe('secrets at the edges', () => {
  it('auth login --debug traces its check with the key redacted', async () => {
    const dir = freshDir();
    const r = await t.gsh(['auth', 'login', '--profile', 'dbg', '--debug'], { env: { GSH_CONFIG_DIR: dir, GSH_API_KEY: undefined }, input: `${t.sandbox.keys.all}\n` });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^> GET .*\/me$/m);
    expect(r.stderr).toMatch(/authorization: Bearer gsh_…\[redacted\]/);
    expect(r.stderr).not.toContain(t.sandbox.keys.all);
  });

  it('files put and get --debug never show a signed URL\'s signature, in request lines or bodies', async () => {
    const dir = freshDir();
    const server = [...t.sandbox.state.servers.keys()][0]!;
    writeFileSync(join(dir, 'up.txt'), 'hello\n');
    const put = await t.gsh(['files', 'put', join(dir, 'up.txt'), '-s', server, '--dir', '/', '--debug']);
    const get = await t.gsh(['files', 'get', '/up.txt', '-s', server, '--debug']);
    for (const r of [put, get]) {
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/__node\/(upload|download)\?.*signature=\[redacted\]/);
      expect(r.stderr).not.toMatch(/signature=[0-9a-f]{16}/);
    }
  });
});

describe('paths and vocabularies are checked while planning', () => {
  const server = () => [...t.sandbox.state.servers.keys()][0]!;
  const sends = (mark: number) => t.sandbox.log.slice(mark).filter((e) => !(e.method === 'GET' && e.path === '/servers'));

  it('files get --to a directory that does not exist exits 2 before any request', async () => {
    const mark = t.sandbox.log.length;
    const r = await t.gsh(['files', 'get', '/README.md', '-s', server(), '--to', '/nonexistent/dir/f']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/the directory \/nonexistent\/dir does not exist/);
    expect(r.stderr).not.toMatch(/bug in gsh|internal error/);
    expect(sends(mark)).toEqual([]);
  });

  it.each([
    [['hooks', 'create', '--url', 'https://example.com/h', '--events', 'server.stated'], /"server.stated" is not a documented value \(did you mean server.started\?\)/, "-f 'events[]=server.stated'"],
    [['subusers', 'create', '-f', 'email=a@example.com', '--permissions', 'control.stat'], /did you mean control.start/, "-f 'permissions[]=control.stat'"],
    [['addons', 'modpack', 'install', '-f', 'project_id=1', '--mode', 'bogus'], /"bogus" is not a documented value/, "-f 'mode=bogus'"],
  ])('%j: a value outside the contract\'s vocabulary exits 2 with a did-you-mean and the -f escape', async (argv, message, escape) => {
    const mark = t.sandbox.log.length;
    const r = await t.gsh([...argv, '-s', server()]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toContain(escape);
    expect(sends(mark)).toEqual([]);
  });

  it('the -f escape sends an undocumented value anyway', async () => {
    const r = await t.gsh(['hooks', 'create', '-s', server(), '--url', 'https://example.com/escape', '-f', 'events[]=server.custom', '--dry-run', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).requests[0].body.events).toEqual(['server.custom']);
  });
});
