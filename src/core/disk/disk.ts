import { appendFileSync, closeSync, constants, fchmodSync, fstatSync, fsyncSync, linkSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, realpathSync, renameSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';

// The disk door (ARCHITECTURE.md "Doors"): every file gsh writes is written here, and every file
// of its own it reads back (a kept help, a code cache, the auth store) is opened here.
// `test/unit/disk-door.test.ts` fails when another module under src/ calls a file-system write.
//
// - A file is replaced atomically: written to a temporary file created new (O_CREAT|O_EXCL, so
//   nothing that stands at that name, a planted symbolic link included, is ever opened) under a
//   random name in the target's directory, flushed to the disk (fsync), then renamed over the
//   target. rename() replaces a symbolic link at the target; it never writes through it.
// - gsh's own directories (the cache, the config) are used the way ssh uses ~/.ssh: only when
//   the directory is the user's and no one else can write to it or to any directory above it
//   (privateDirProblem). Files are 0600, directories 0700.
//
// The launcher (src/boot/) imports this module, so it imports nothing of gsh's and no costly
// built-in at its top: node:crypto (random names) is loaded only where /dev/urandom is missing.

/** O_NOFOLLOW where the platform has it (not on Windows, which has no such links to plant). */
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW;

/**
 * A name no other process can guess: the temporary file of a replace. Six bytes of the kernel's
 * random source where it is a file: node:crypto costs a fifth of `node -e 0` to load, which the
 * first run of a help paid on every such run for the names of its help cache and code caches.
 */
function randomName(): string {
  if (process.platform !== 'win32') {
    try {
      const fd = openSync('/dev/urandom', 'r');
      try {
        const bytes = Buffer.alloc(6);
        if (readSync(fd, bytes, 0, 6, null) === 6) return bytes.toString('hex');
      } finally {
        closeSync(fd);
      }
    } catch {
      // No /dev/urandom (a chroot without it): node:crypto's source, the same kernel's.
    }
  }
  return process.getBuiltinModule('node:crypto').randomBytes(6).toString('hex');
}

/** The temporary name beside `file`: in its directory, hidden, random, short enough for any name. */
function tempBeside(file: string): string {
  return join(dirname(file), `.${[...basename(file)].slice(0, 40).join('')}.gsh-${randomName()}.part`);
}

export interface ReplaceOptions {
  /** The new file's mode: 0600 (the default) for gsh's own files. */
  mode?: number;
  /** Flush the bytes to the disk before the rename (default); false for a file worth less than the time. */
  sync?: boolean;
}

/**
 * Replaces `file` with `data` atomically: a concurrent reader sees the old file or the new one,
 * never half of one, and a crash leaves the old one. Throws what the file system said; the
 * temporary file is removed on any failure.
 */
export function replaceFile(file: string, data: string | Uint8Array, { mode = 0o600, sync = true }: ReplaceOptions = {}): void {
  const tmp = writeBeside(file, data, mode, sync);
  try {
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/**
 * Creates `file` with `data`, whole or not at all, only where nothing stands at that name (a link
 * included): the bytes go to a temporary file first, which is then linked at the name (link()
 * fails with EEXIST instead of replacing). Throws what the file system said (EEXIST: something
 * stands there).
 */
export function createFile(file: string, data: string | Uint8Array, { mode = 0o600 }: ReplaceOptions = {}): void {
  const tmp = writeBeside(file, data, mode);
  try {
    linkSync(tmp, file);
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** Writes `data` to a new temporary file beside `file` (mode exact, fsynced); returns its name. */
function writeBeside(file: string, data: string | Uint8Array, mode: number, sync = true): string {
  const tmp = tempBeside(file);
  const fd = openSync(tmp, CREATE_NEW, mode);
  try {
    // The mode exactly, whatever the umask.
    fchmodSync(fd, mode);
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done);
    if (sync) fsyncSync(fd);
    closeSync(fd);
  } catch (err) {
    try {
      closeSync(fd);
    } catch {
      // Closed already.
    }
    rmSync(tmp, { force: true });
    throw err;
  }
  return tmp;
}

/** A file being written beside its target (a download): commit() renames it over the target. */
export interface FileBeside {
  readonly handle: FileHandle;
  /**
   * Writes all of `chunk` now, synchronously (a download drained from its socket's read buffer,
   * which is reused once this returns: core/wire/direct-body.ts).
   */
  writeNow(chunk: Uint8Array): void;
  /** Flushes, closes and renames the file over the target. */
  commit(): Promise<void>;
  /** Closes and removes the temporary file (after a failure). */
  discard(): Promise<void>;
}

/**
 * Opens a new temporary file beside `file` for streaming (the way replaceFile writes, for data
 * that arrives over time). `mode` is set exactly when given, else the file is `fallbackMode`
 * less the umask.
 */
export async function createBeside(file: string, { mode, fallbackMode = 0o644, replace = true }: { mode?: number | undefined; fallbackMode?: number; replace?: boolean } = {}): Promise<FileBeside> {
  const { link, open, rename, rm } = process.getBuiltinModule('node:fs/promises');
  const tmp = tempBeside(file);
  const handle = await open(tmp, CREATE_NEW, mode ?? fallbackMode);
  try {
    if (mode !== undefined) await handle.chmod(mode);
  } catch (err) {
    await handle.close().catch(() => {});
    await rm(tmp, { force: true });
    throw err;
  }
  return {
    handle,
    writeNow(chunk) {
      for (let done = 0; done < chunk.length; ) done += writeSync(handle.fd, chunk, done, chunk.length - done);
    },
    async commit() {
      await handle.sync();
      await handle.close();
      if (replace) return rename(tmp, file);
      // Not replacing: linked at the name, which fails (EEXIST) if anything stands there by now,
      // so a check made before the transfer holds against a file that appeared meanwhile.
      try {
        await link(tmp, file);
      } finally {
        await rm(tmp, { force: true });
      }
    },
    async discard() {
      await handle.close().catch(() => {});
      await rm(tmp, { force: true });
    },
  };
}

/** Appends `text` to `file` (a file another program hands gsh, such as a CI job's summary). */
export function appendToFile(file: string, text: string): void {
  appendFileSync(file, text);
}

/** How long a writer waits for another's lock (each is held for one small write). */
const APPEND_LOCK_WAIT_MS = 5000;
/** A lock older than this was left by a process that died while holding it. */
const APPEND_LOCK_STALE_MS = 10_000;

/**
 * Appends one whole line to `file` (a journal several processes may write at once): under a lock
 * beside it (`FILE.lock`, taken with takeLock), one write on a file opened O_APPEND (each line
 * lands whole at the end, never interleaved with another writer's), fsynced before the lock is
 * given back, so a line that was appended survives a crash. A link at `file` is never followed.
 */
export function appendLineSynced(file: string, line: string): void {
  withLock(`${file}.lock`, () => {
    const fd = openSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NOFOLLOW, 0o600);
    try {
      const bytes = Buffer.from(line.endsWith('\n') ? line : `${line}\n`);
      for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  });
}

/**
 * Reads one of gsh's own small files, and replaces it with what `update` makes of it (undefined:
 * leaves it), under a lock beside it, so processes that update it at once never lose each other's
 * change (the shared rate budget). Not fsynced: what it holds is worth less than the time.
 */
export function updateLocked(file: string, update: (old: Buffer | undefined) => string | undefined): void {
  withLock(`${file}.lock`, () => {
    const next = update(readPrivateFile(file));
    if (next !== undefined) replaceFile(file, next, { sync: false });
  });
}

/** Runs `fn` holding `lock` (takeLock), waiting in place for a holder (each holds it for one small write). */
function withLock(lock: string, fn: () => void): void {
  const until = Date.now() + APPEND_LOCK_WAIT_MS;
  while (!takeLock(lock)) {
    const st = lstatSync(lock, { throwIfNoEntry: false });
    if (st && Date.now() - st.mtimeMs > APPEND_LOCK_STALE_MS) releaseLock(lock);
    else if (Date.now() > until) throw new Error(`${lock} is held by another process`);
    // The holder writes one line or one small file: wait a few milliseconds in place.
    else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
  }
  try {
    fn();
  } finally {
    releaseLock(lock);
  }
}

/** Makes `dir` and its missing parents (for a directory the user names, such as `--dir`). */
export function makeDir(dir: string): void {
  mkdirSync(dir, { recursive: true });
}

/** Removes a file (never what a link points to); false when there was none. */
export function removeFile(file: string): boolean {
  try {
    unlinkSync(file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

/** Removes the entries of `dir` whose names `match` and that were last changed before `before` (ms). */
export function removeOld(dir: string, before: number, match: (name: string) => boolean = () => true): void {
  for (const name of readdirSync(dir)) {
    if (!match(name)) continue;
    const path = join(dir, name);
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (st && !st.isDirectory() && st.mtimeMs < before) rmSync(path, { force: true });
  }
}

/** Takes a lock: a directory, since making one is atomic everywhere (false when it exists). */
export function takeLock(lock: string): boolean {
  try {
    mkdirSync(lock, { mode: 0o700 });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

/** Gives a lock back (or breaks an abandoned one). */
export function releaseLock(lock: string): void {
  rmSync(lock, { recursive: true, force: true });
}

/** Why a directory cannot hold gsh's private files, with what fixes it. */
export interface DirProblem {
  /** The directory at fault: the one asked about or one above it. */
  path: string;
  /** What is wrong with it, in words: `it is writable by others (mode 0777)`. */
  why: string;
  /** What the user can run or do about it. */
  fix: string;
}

/** No check where the platform has no owners and modes to check (Windows). */
const CHECKS = process.platform !== 'win32' && typeof process.getuid === 'function';

function octal(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, '0');
}

function writableBy(mode: number): string {
  const group = (mode & 0o020) !== 0;
  const others = (mode & 0o002) !== 0;
  return group && others ? 'its group and others' : group ? 'its group' : 'others';
}

/**
 * Why `dir` may not hold gsh's private files (caches, the auth store), or undefined when it may.
 * As ssh checks ~/.ssh: `dir` is the user's own and not writable by its group or others; every
 * directory above it belongs to the user or to root and is not writable by group or others
 * unless it is sticky (/tmp), so no one else can put a file in `dir` or swap `dir` for another.
 * A `dir` that does not exist yet is no problem when everything above it that exists passes (no
 * one else can make it); whoever makes it checks it again. Nor is a file where a directory
 * should be: nothing can be read from under it, nor written. Links are followed and the
 * directories they lead through are checked too.
 */
export function privateDirProblem(dir: string): DirProblem | undefined {
  if (!CHECKS) return undefined;
  return checkChain(resolve(dir), process.getuid!(), 0);
}

function checkChain(abs: string, uid: number, depth: number): DirProblem | undefined {
  const parts = abs.split(sep).filter(Boolean);
  let path = '';
  for (let i = 0; i <= parts.length; i++) {
    path = i === 0 ? sep : `${path === sep ? '' : path}${sep}${parts[i - 1]}`;
    let st;
    try {
      st = lstatSync(path);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // Nothing there, or a file where a directory should be: nothing can be read below it.
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      return { path, why: `it cannot be checked (${code ?? (err as Error).message})`, fix: 'check its permissions' };
    }
    if (st.isSymbolicLink()) {
      // The link stands in a directory checked already: follow it and check where it leads.
      if (depth > 8) return { path, why: 'it leads through too many symbolic links', fix: 'use a path without links' };
      let real: string;
      try {
        real = realpathSync.native(path);
      } catch {
        return undefined; // A link to nothing: nothing can be read through it.
      }
      return checkChain(join(real, ...parts.slice(i)), uid, depth + 1);
    }
    const last = i === parts.length;
    // A file where a directory should be holds nothing to read (and nothing can be written there).
    if (!st.isDirectory()) return undefined;
    if (last ? st.uid !== uid : st.uid !== uid && st.uid !== 0) {
      return { path, why: `it belongs to another user (uid ${st.uid}), not to you (uid ${uid})`, fix: last ? `remove it, or use a directory of your own` : 'use a directory under one of your own' };
    }
    const sticky = (st.mode & 0o1000) !== 0;
    if ((st.mode & 0o022) !== 0 && (last || !sticky)) {
      return { path, why: `it is writable by ${writableBy(st.mode)} (mode ${octal(st.mode)})`, fix: `run: chmod go-w ${path}` };
    }
  }
  return undefined;
}

/** One line about a DirProblem: `<path>: <why>; <fix>`. */
export function describeProblem(p: DirProblem): string {
  return `${p.path}: ${p.why}; ${p.fix}`;
}

/** Makes `dir` (0700, parents as needed) and checks it; the problem when it may not be used. */
export function makePrivateDir(dir: string): DirProblem | undefined {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return privateDirProblem(dir);
}

/**
 * The bytes of one of gsh's own files in a checked directory, or undefined when it is missing,
 * is a symbolic link (never followed), is not a plain file, is another user's, or is writable by
 * others. What it holds is the caller's to check.
 */
export function readPrivateFile(file: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return undefined;
    if (CHECKS && (st.uid !== process.getuid!() || (st.mode & 0o022) !== 0)) return undefined;
    return readFileSync(fd);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * Why `file`, opened already as `fd`, may not be trusted as one of gsh's own (another user's,
 * or writable by others), or undefined.
 */
export function privateFileProblem(fd: number, file: string): DirProblem | undefined {
  if (!CHECKS) return undefined;
  const st = fstatSync(fd);
  const uid = process.getuid!();
  if (st.uid !== uid) return { path: file, why: `it belongs to another user (uid ${st.uid}), not to you (uid ${uid})`, fix: 'remove it, or use a directory of your own' };
  if ((st.mode & 0o022) !== 0) return { path: file, why: `it is writable by ${writableBy(st.mode)} (mode ${octal(st.mode)})`, fix: `run: chmod 600 ${file}` };
  return undefined;
}

