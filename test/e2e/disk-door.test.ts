import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GSH } from './helpers.js';

// The launcher's caches on a machine shared with another user (ARCHITECTURE.md "Doors",
// README "Security"): the help cache and the code cache are written through core/disk/disk.ts, never
// through a link planted where gsh writes, and read only from a directory that is the user's own
// and that no one else can write to. Subprocess: only the real launcher writes these files.
// Tests run as root: another user is a chown to a uid no one has.

const BUILD_ID = readFileSync(fileURLToPath(new URL('../../bin/dist/build-id', import.meta.url)), 'latin1').trim();
const OTHER_UID = 12345;
/** A clipboard write (OSC 52) and a title change: what a planted help would send the terminal. */
const OSC = '\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;owned\x07';

let root: string;
let victim: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gsh-disk-door-'));
  victim = join(root, 'victim');
  writeFileSync(victim, 'precious\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const codeDir = (cache: string) => join(cache, `code-${process.version}-${process.arch}`);
const helpFile = (cache: string, words: string) => join(codeDir(cache), `help-${BUILD_ID}-80-gsh.${words}.txt`);

function gsh(cache: string, args: string[]) {
  return execa(process.execPath, [GSH, ...args], {
    reject: false,
    env: { ...process.env, GSH_CACHE_DIR: cache, GSH_BASE_URL: 'http://127.0.0.1:9/api/v2', GSH_API_KEY: 'k', NO_COLOR: '1' },
  });
}

/** The PID the next process gets is the last one given plus one (Linux). */
function lastPid(): number {
  return Number(readFileSync('/proc/sys/kernel/ns_last_pid', 'utf8'));
}

describe('links planted where the caches are written', () => {
  it('links at <file>.<pid>.tmp for the next several hundred PIDs are never written through (gsh files --help, servers list)', async () => {
    const runs = [['files', '--help'], ['servers', 'list', '--dry-run']];
    // The names the caches take, from a run in a directory of its own.
    const scout = join(root, 'scout');
    for (const args of runs) expect((await gsh(scout, args)).exitCode).toBe(0);
    const names = readdirSync(codeDir(scout));
    expect(names).toContain(`help-${BUILD_ID}-80-gsh.files.txt`);
    expect(names).toContain(`${BUILD_ID}-start.cjs.default`);

    const cache = join(root, 'cache');
    mkdirSync(codeDir(cache), { recursive: true, mode: 0o700 });
    const from = lastPid() + 1;
    for (const name of names) for (let pid = from; pid < from + 300; pid++) symlinkSync(victim, join(codeDir(cache), `${name}.${pid}.tmp`));
    for (const args of [...runs, runs[0]!]) {
      const r = await gsh(cache, args);
      expect(r.exitCode, args.join(' ')).toBe(0);
      expect(r.stderr).not.toMatch(/warning|error/);
    }
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    // The caches were written all the same, as plain files.
    for (const name of names) expect(lstatSync(join(codeDir(cache), name)).isFile(), name).toBe(true);
  }, 60_000);

  it('a link at the kept help\'s own name is neither printed nor written through: it is replaced', async () => {
    const cache = join(root, 'cache');
    mkdirSync(codeDir(cache), { recursive: true, mode: 0o700 });
    writeFileSync(victim, `root:secret-hash:19000:0:99999:7:::\n`);
    symlinkSync(victim, helpFile(cache, 'files'));
    const r = await gsh(cache, ['files', '--help']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^Usage: gsh files/);
    expect(r.stdout).not.toContain('secret-hash');
    expect(readFileSync(victim, 'utf8')).toBe('root:secret-hash:19000:0:99999:7:::\n');
    expect(lstatSync(helpFile(cache, 'files')).isSymbolicLink()).toBe(false);
    expect(readFileSync(helpFile(cache, 'files'), 'utf8')).toBe(`${r.stdout}\n`);
  });
});

describe('a cache directory someone else can write to is not used', () => {
  /** A cache with a planted help for `gsh files --help`. */
  function planted(): string {
    const cache = join(root, 'cache');
    mkdirSync(codeDir(cache), { recursive: true, mode: 0o700 });
    writeFileSync(helpFile(cache, 'files'), `Usage: gsh files ${OSC}\n`, { mode: 0o600 });
    return cache;
  }

  async function notUsed(cache: string, faulty: string, why: RegExp) {
    const r = await gsh(cache, ['files', '--help']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^Usage: gsh files \[options\] \[command\]/);
    expect(r.stdout).not.toContain('\x1b');
    // One line, naming the directory at fault and why; gsh ran without its caches.
    const lines = r.stderr.split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^gsh: warning: caches not used: ${faulty.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));
    expect(lines[0]).toMatch(why);
    // Nothing written there either.
    expect(readdirSync(codeDir(cache))).toEqual([`help-${BUILD_ID}-80-gsh.files.txt`]);
    expect(readFileSync(helpFile(cache, 'files'), 'utf8')).toContain(OSC);
  }

  it('writable by everyone: the planted help is not printed', async () => {
    const cache = planted();
    chmodSync(codeDir(cache), 0o777);
    await notUsed(cache, codeDir(cache), /writable by its group and others \(mode 0777\); run: chmod go-w /);
  });

  it('writable by its group', async () => {
    const cache = planted();
    chmodSync(codeDir(cache), 0o770);
    await notUsed(cache, codeDir(cache), /writable by its group \(mode 0770\)/);
  });

  it('owned by another user', async () => {
    const cache = planted();
    chownSync(codeDir(cache), OTHER_UID, OTHER_UID);
    await notUsed(cache, codeDir(cache), new RegExp(`belongs to another user \\(uid ${OTHER_UID}\\)`));
  });

  it('under a directory everyone can write to (the cache could be swapped for another)', async () => {
    const cache = planted();
    chmodSync(cache, 0o777);
    await notUsed(cache, cache, /writable by its group and others/);
  });

  it('a planted help file of another user in the user\'s own directory is not printed either', async () => {
    const cache = planted();
    chownSync(helpFile(cache, 'files'), OTHER_UID, OTHER_UID);
    const r = await gsh(cache, ['files', '--help']);
    expect({ exitCode: r.exitCode, stderr: r.stderr }).toEqual({ exitCode: 0, stderr: '' });
    expect(r.stdout).toMatch(/^Usage: gsh files \[options\]/);
    expect(r.stdout).not.toContain('\x1b');
  });
});

describe('a kept help is printed only when it is plain text', () => {
  it('one holding an escape sequence or another control character is rendered again, and replaced', async () => {
    const cache = join(root, 'cache');
    const first = await gsh(cache, ['files', '--help']);
    for (const bad of [OSC, '\t', '\u202e']) {
      writeFileSync(helpFile(cache, 'files'), `Usage: gsh files ${bad}\n`);
      const r = await gsh(cache, ['files', '--help']);
      expect({ exitCode: r.exitCode, stderr: r.stderr, stdout: r.stdout }, JSON.stringify(bad)).toEqual({ exitCode: 0, stderr: '', stdout: first.stdout });
      expect(readFileSync(helpFile(cache, 'files'), 'utf8')).toBe(`${first.stdout}\n`);
    }
    expect(existsSync(helpFile(cache, 'files'))).toBe(true);
  }, 60_000);
});
