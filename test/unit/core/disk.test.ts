import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBeside, createFile, makePrivateDir, privateDirProblem, readPrivateFile, replaceFile } from '../../../src/core/disk/disk.js';

// The disk door (src/core/disk/disk.ts, ARCHITECTURE.md "Doors"): how gsh replaces a file (never
// through a link, at the temporary name or the final one) and which directories it trusts with
// its own files (as ssh trusts ~/.ssh). Tests run as root, so another user is simulated with
// chown to a uid no one has (root may give a file away).

const OTHER_UID = 12345;
let root: string;
let victim: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gsh-disk-'));
  victim = join(root, 'victim');
  writeFileSync(victim, 'precious\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('replaceFile', () => {
  it('writes the whole file 0600 whatever the umask, and leaves no temporary file', () => {
    const dir = join(root, 'd');
    mkdirSync(dir);
    const old = process.umask(0o000);
    try {
      replaceFile(join(dir, 'f'), 'one\n');
      replaceFile(join(dir, 'f'), Buffer.from('two\n'));
    } finally {
      process.umask(old);
    }
    expect(readFileSync(join(dir, 'f'), 'utf8')).toBe('two\n');
    expect(statSync(join(dir, 'f')).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['f']);
  });

  it('replaces a symbolic link at the final path with the file, leaving what it pointed to alone', () => {
    const file = join(root, 'cache');
    symlinkSync(victim, file);
    replaceFile(file, 'cache text\n');
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(lstatSync(file).isSymbolicLink()).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe('cache text\n');
  });

  it('never writes through a link planted at a predictable temporary name (<file>.<pid>.tmp and others)', () => {
    const file = join(root, 'help.txt');
    for (let pid = Math.max(1, process.pid - 100); pid < process.pid + 100; pid++) {
      symlinkSync(victim, `${file}.${pid}.tmp`);
      symlinkSync(victim, `${file}.${pid}.1.tmp`);
    }
    for (let i = 0; i < 10; i++) replaceFile(file, `help ${i}\n`);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(readFileSync(file, 'utf8')).toBe('help 9\n');
    // Each write took a name of its own: nothing but the planted links and the file is left.
    expect(readdirSync(root).filter((n) => !n.endsWith('.tmp'))).toEqual(['help.txt', 'victim']);
  });

  it('fails, writing nothing, when it cannot create its temporary file', () => {
    expect(() => replaceFile(join(root, 'missing', 'f'), 'x')).toThrow(/ENOENT/);
  });
});

describe('createFile (config export without --force)', () => {
  it('creates a new file whole with the mode asked for, and leaves no temporary file', () => {
    const file = join(root, 'lobby.yaml');
    createFile(file, 'version: 1\n', { mode: 0o644 });
    expect(readFileSync(file, 'utf8')).toBe('version: 1\n');
    expect(statSync(file).mode & 0o777).toBe(0o644);
    expect(readdirSync(root).sort()).toEqual(['lobby.yaml', 'victim']);
  });

  it('refuses (EEXIST) where a file or a link stands, writing through neither', () => {
    expect(() => createFile(victim, 'other\n')).toThrow(expect.objectContaining({ code: 'EEXIST' }));
    const link = join(root, 'link.yaml');
    symlinkSync(victim, link);
    expect(() => createFile(link, 'other\n')).toThrow(expect.objectContaining({ code: 'EEXIST' }));
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(readdirSync(root).sort()).toEqual(['link.yaml', 'victim']);
  });
});

describe('createBeside (a download)', () => {
  it('commit() replaces a link at the target without writing through it; discard() leaves nothing', async () => {
    const target = join(root, 'out.bin');
    symlinkSync(victim, target);
    const file = await createBeside(target);
    await file.handle.write('downloaded');
    await file.commit();
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(readFileSync(target, 'utf8')).toBe('downloaded');
    const other = await createBeside(join(root, 'other.bin'), { mode: 0o600 });
    await other.discard();
    expect(readdirSync(root).sort()).toEqual(['out.bin', 'victim']);
  });
});

describe('privateDirProblem: gsh uses a directory as ssh uses ~/.ssh', () => {
  it('accepts the user\'s own directory that only they can write, one that does not exist yet, and one under /tmp (sticky)', () => {
    const dir = join(root, 'cache');
    expect(privateDirProblem(join(dir, 'code'))).toBeUndefined();
    expect(makePrivateDir(join(dir, 'code'))).toBeUndefined();
    expect(statSync(join(dir, 'code')).mode & 0o777).toBe(0o700);
    chmodSync(join(dir, 'code'), 0o755);
    expect(privateDirProblem(join(dir, 'code'))).toBeUndefined();
    expect(statSync(tmpdir()).mode & 0o1000).toBe(0o1000);
  });

  it('refuses a directory writable by its group or by others, with the chmod that fixes it', () => {
    const dir = join(root, 'cache');
    mkdirSync(dir, { mode: 0o700 });
    chmodSync(dir, 0o777);
    expect(privateDirProblem(dir)).toEqual({ path: dir, why: 'it is writable by its group and others (mode 0777)', fix: `run: chmod go-w ${dir}` });
    chmodSync(dir, 0o770);
    expect(privateDirProblem(dir)?.why).toBe('it is writable by its group (mode 0770)');
    // Sticky is no excuse for the directory itself: others may still add files to it.
    chmodSync(dir, 0o1777);
    expect(privateDirProblem(dir)?.why).toBe('it is writable by its group and others (mode 1777)');
  });

  it('refuses a directory of another user', () => {
    const dir = join(root, 'cache');
    mkdirSync(dir, { mode: 0o700 });
    chownSync(dir, OTHER_UID, OTHER_UID);
    expect(privateDirProblem(dir)).toMatchObject({ path: dir, why: `it belongs to another user (uid ${OTHER_UID}), not to you (uid ${process.getuid!()})` });
  });

  it('refuses a directory under one that others can write to (it could be swapped), or that another user owns; sticky parents are fine', () => {
    const parent = join(root, 'shared');
    const dir = join(parent, 'gsh', 'code');
    expect(makePrivateDir(dir)).toBeUndefined();
    chmodSync(parent, 0o777);
    expect(privateDirProblem(dir)).toMatchObject({ path: parent, fix: `run: chmod go-w ${parent}` });
    // Not yet made is no way round it.
    expect(privateDirProblem(join(parent, 'new'))).toMatchObject({ path: parent });
    expect(makePrivateDir(join(parent, 'new'))).toMatchObject({ path: parent });
    chmodSync(parent, 0o1777);
    expect(privateDirProblem(dir)).toBeUndefined();
    chmodSync(parent, 0o755);
    chownSync(parent, OTHER_UID, OTHER_UID);
    expect(privateDirProblem(dir)).toMatchObject({ path: parent, why: expect.stringContaining(`uid ${OTHER_UID}`) });
  });

  it('follows a link and checks where it leads, and the way there', () => {
    const real = join(root, 'real');
    mkdirSync(real, { mode: 0o700 });
    const link = join(root, 'link');
    symlinkSync(real, link);
    expect(privateDirProblem(join(link, 'code'))).toBeUndefined();
    chmodSync(real, 0o777);
    expect(privateDirProblem(join(link, 'code'))).toMatchObject({ path: real });
  });

  it('a file where a directory should be holds nothing to read: no problem to report, and nothing is made there', () => {
    expect(privateDirProblem(victim)).toBeUndefined();
    expect(privateDirProblem(join(victim, 'code'))).toBeUndefined();
    expect(() => makePrivateDir(join(victim, 'code'))).toThrow(/ENOTDIR|EEXIST/);
  });
});

describe('readPrivateFile', () => {
  it('reads a plain file of the user\'s own, and nothing through a link, of another user, or writable by others', () => {
    const file = join(root, 'kept');
    writeFileSync(file, 'kept\n', { mode: 0o600 });
    expect(readPrivateFile(file)?.toString()).toBe('kept\n');
    chmodSync(file, 0o622);
    expect(readPrivateFile(file)).toBeUndefined();
    chmodSync(file, 0o600);
    chownSync(file, OTHER_UID, OTHER_UID);
    expect(readPrivateFile(file)).toBeUndefined();
    symlinkSync(victim, join(root, 'link'));
    expect(readPrivateFile(join(root, 'link'))).toBeUndefined();
    expect(readPrivateFile(join(root, 'missing'))).toBeUndefined();
    expect(readPrivateFile(root)).toBeUndefined();
  });
});
