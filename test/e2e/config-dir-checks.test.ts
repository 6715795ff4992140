import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type E2E, setup } from './helpers.js';

// The config dir is used as ssh uses ~/.ssh (README "Authentication and configuration",
// ARCHITECTURE.md "Doors"): gsh reads credentials only from a directory that is the user's own and
// that no one else can write to, and only from a file of the user's own that no one else can
// write; else it stops with the chmod that fixes it. Anyone who can write there could swap in a
// key and a service of their own. Its caches (remembered servers) are then neither read nor
// written. Tests run as root: another user is a chown to a uid no one has.

const OTHER_UID = 12345;
let t: E2E;
const dirs: string[] = [];
beforeAll(async () => {
  t = await setup({ servers: 1 });
});
afterAll(async () => {
  await t.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A config dir holding a profile with the sandbox's key. */
function configured(): { dir: string; file: string; text: string } {
  const dir = mkdtempSync(join(tmpdir(), 'gsh-config-check-'));
  dirs.push(dir);
  const file = join(dir, 'config.json');
  const text = `${JSON.stringify({ current: 'default', profiles: { default: { base_url: t.sandbox.baseUrl, api_key: t.sandbox.keys.all } } })}\n`;
  writeFileSync(file, text, { mode: 0o600 });
  return { dir, file, text };
}

const fromStore = (dir: string) => ({ GSH_CONFIG_DIR: dir, GSH_API_KEY: undefined, GSH_BASE_URL: undefined });

describe('the auth store is read only from a directory no one else can write to', () => {
  it('a config dir that works: whoami answers from the saved profile (the check lets it through)', async () => {
    const { dir } = configured();
    const r = await t.gsh(['whoami'], { env: fromStore(dir) });
    expect(r.exitCode, r.stderr).toBe(0);
  });

  it.each([
    ['writable by its group', (dir: string) => chmodSync(dir, 0o770), /it is writable by its group \(mode 0770\)/, /Run: chmod go-w /],
    ['writable by everyone', (dir: string) => chmodSync(dir, 0o777), /it is writable by its group and others \(mode 0777\)/, /Run: chmod go-w /],
    ['owned by another user', (dir: string) => chownSync(dir, OTHER_UID, OTHER_UID), new RegExp(`it belongs to another user \\(uid ${OTHER_UID}\\)`), /Remove it, or use a directory of your own/],
  ])('%s: exit 1 naming the directory, why and the fix; nothing read, nothing written', async (_name, spoil, why, fix) => {
    const { dir, file, text } = configured();
    spoil(dir);
    const read = await t.gsh(['whoami'], { env: fromStore(dir) });
    expect(read.exitCode).toBe(1);
    expect(read.stderr).toContain(`not reading ${file}: ${dir}: `);
    expect(read.stderr).toMatch(why);
    expect(read.stderr).toMatch(fix);
    expect(read.stderr).not.toMatch(/internal error|bug in gsh|\n\s+at /);
    const login = await t.gsh(['auth', 'login', '--profile', 'other'], { env: fromStore(dir), input: `${t.sandbox.keys.all}\n` });
    expect(login.exitCode).toBe(1);
    expect(login.stderr).toContain(`not reading ${file}: ${dir}: `);
    expect(readFileSync(file, 'utf8')).toBe(text);
    // With no config file yet: the first login stops before the key is sent, and writes nothing.
    rmSync(file);
    const mark = t.sandbox.log.length;
    const first = await t.gsh(['auth', 'login', '--profile', 'other'], { env: { GSH_CONFIG_DIR: dir, GSH_API_KEY: undefined }, input: `${t.sandbox.keys.all}\n` });
    expect(first.exitCode).toBe(1);
    expect(t.sandbox.log.slice(mark)).toEqual([]);
    expect(first.stderr).toContain(`not writing ${file}: ${dir}: `);
    expect(first.stderr).toMatch(why);
    expect(existsSync(file)).toBe(false);
  });

  it('a config file another user owns, or that others can write, is not read either', async () => {
    const { dir, file } = configured();
    chmodSync(file, 0o664);
    const writable = await t.gsh(['whoami'], { env: fromStore(dir) });
    expect(writable.exitCode).toBe(1);
    expect(writable.stderr).toContain(`not reading ${file}: ${file}: it is writable by its group (mode 0664)`);
    expect(writable.stderr).toContain(`Run: chmod 600 ${file}`);
    chmodSync(file, 0o600);
    chownSync(file, OTHER_UID, OTHER_UID);
    const foreign = await t.gsh(['whoami'], { env: fromStore(dir) });
    expect(foreign.exitCode).toBe(1);
    expect(foreign.stderr).toMatch(new RegExp(`it belongs to another user \\(uid ${OTHER_UID}\\)`));
  });
});

describe('remembered servers in a config dir others can write to', () => {
  it('are neither read nor written: the command works, with one warning', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsh-config-check-'));
    dirs.push(dir);
    const server = [...t.sandbox.state.servers.values()][0]!;
    // A planted answer for the name: it must not be believed.
    writeFileSync(join(dir, 'server-refs.json'), JSON.stringify({ version: 1, scopes: {} }));
    chmodSync(dir, 0o777);
    const r = await t.gsh(['servers', 'get', server.name, '--json'], { env: { GSH_CONFIG_DIR: dir } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: server.id });
    expect(r.stderr.trim().split('\n')).toEqual([`warning: remembered servers not used: ${dir}: it is writable by its group and others (mode 0777); run: chmod go-w ${dir}`]);
    expect(readFileSync(join(dir, 'server-refs.json'), 'utf8')).toBe(JSON.stringify({ version: 1, scopes: {} }));
    chmodSync(dir, 0o700);
    const remembered = await t.gsh(['servers', 'get', server.name, '--json'], { env: { GSH_CONFIG_DIR: dir } });
    expect(remembered.stderr).toBe('');
    expect(existsSync(join(dir, 'server-refs.json'))).toBe(true);
    expect(readFileSync(join(dir, 'server-refs.json'), 'utf8')).toContain(server.id);
  });
});
