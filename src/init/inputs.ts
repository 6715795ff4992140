// Turns `gsh init lint` arguments into the manifests to lint. A directory means every *.yaml and
// *.yml under it that is a manifest; `-` is stdin.

import { closeSync, fstatSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { HEADER } from './vocabulary.js';

export interface Input {
  /** The name shown in reports. */
  name: string;
  /** A path to read, or undefined for stdin. */
  path?: string;
  /**
   * The directory argument the file was found under: it is linted only if it looks like a
   * manifest, and a directory with none is reported. Its head is read first, then the rest.
   */
  dir?: string;
}

/**
 * In argument order: an input to lint, an argument that could not be read (exit 2), or a
 * directory argument (its files follow it as inputs).
 */
export type Entry = { input: Input } | { error: InputFailure } | { dir: string };

/** An input that could not be read (exit 2). */
export interface InputFailure {
  /** The path as given or found. */
  file: string;
  /** One line: `cannot read <file>: <reason>`. */
  message: string;
}

function failure(file: string, why: string): InputFailure {
  return { file, message: `cannot read ${file}: ${why}` };
}

/** Directories no manifest lives in, skipped to keep a walk of a checkout fast. */
const SKIPPED_DIRS = new Set(['.git', 'node_modules']);

const NEAR_HEADER = /^\s*#\s*service[-_ ]?init/i;

/**
 * Whether a file is meant as a manifest: it starts with the header, or its first line is a near
 * miss of it (`# service-init`, a byte order mark before it) that the header rule should report.
 */
export function looksLikeManifest(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.subarray(0, 64)).toString('utf8').replace(/^\uFEFF/, '');
  return head.startsWith(HEADER) || NEAR_HEADER.test(head.split('\n')[0] ?? '');
}

function walk(dir: string, found: string[]): void {
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) walk(path, found);
    } else if (entry.isFile() && /\.ya?ml$/i.test(entry.name)) {
      found.push(path);
    }
  }
}

function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file or directory';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  return error instanceof Error ? error.message : String(error);
}

/**
 * The arguments as inputs and errors, in order. Files found under a directory are not opened
 * here: each is read once, head first, when its turn comes (readFileOnce), so a walk of a large
 * checkout reads every file a single time and memory stays flat across a directory of any size.
 */
export function expandInputs(args: readonly string[], stdinName: string): Entry[] {
  const entries: Entry[] = [];
  for (const arg of args) {
    if (arg === '-') {
      entries.push({ input: { name: stdinName } });
      continue;
    }
    try {
      const stat = statSync(arg);
      if (!stat.isDirectory()) {
        // A FIFO or a device would block the read, or never end.
        if (!stat.isFile()) entries.push({ error: failure(arg, 'not a regular file') });
        else entries.push({ input: { name: arg, path: arg } });
        continue;
      }
      const files: string[] = [];
      walk(arg, files);
      entries.push({ dir: arg });
      for (const file of files) entries.push({ input: { name: file, path: file, dir: arg } });
    } catch (error) {
      entries.push({ error: failure(arg, reason(error)) });
    }
  }
  return entries;
}

/** What reading one input gave: its bytes, a file that is not a manifest, or why it failed. */
export type ReadResult =
  | { bytes: Uint8Array }
  | { skipped: true }
  /** early: the file failed before it was known to be a manifest (reported with the arguments). */
  | { error: InputFailure; early: boolean };

const HEAD_BYTES = 64;

/**
 * Reads a file once. With `manifestsOnly` its head is read first and a file that does not look
 * like a manifest is skipped without reading the rest; one that does is read on to its end.
 */
export function readFileOnce(path: string, manifestsOnly: boolean): ReadResult {
  if (!manifestsOnly) {
    const bytes = readInput(path);
    return bytes instanceof Uint8Array ? { bytes } : { error: bytes, early: false };
  }
  let fd: number;
  let head: Buffer;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    return { error: failure(path, reason(error)), early: true };
  }
  try {
    try {
      head = Buffer.alloc(HEAD_BYTES);
      head = head.subarray(0, readSync(fd, head, 0, HEAD_BYTES, 0));
    } catch (error) {
      return { error: failure(path, reason(error)), early: true };
    }
    if (!looksLikeManifest(head)) return { skipped: true };
    try {
      return { bytes: readRest(fd, head) };
    } catch (error) {
      return { error: failure(path, reason(error)), early: false };
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * The head already read, then the rest of the file to its end, into one buffer sized by fstat
 * (plus a byte, to see a file that grew; one that grows on is read on into a doubled buffer).
 */
function readRest(fd: number, head: Buffer): Buffer {
  if (head.length < HEAD_BYTES) return head;
  let buffer = Buffer.allocUnsafe(Math.max(fstatSync(fd).size, head.length) + 1);
  head.copy(buffer);
  let length = head.length;
  for (;;) {
    if (length === buffer.length) {
      const bigger = Buffer.allocUnsafe(buffer.length * 2);
      buffer.copy(bigger, 0, 0, length);
      buffer = bigger;
    }
    const n = readSync(fd, buffer, length, buffer.length - length, length);
    if (n === 0) return buffer.subarray(0, length);
    length += n;
  }
}

export function readInput(path: string): Uint8Array | InputFailure {
  try {
    return readFileSync(path);
  } catch (error) {
    return failure(path, reason(error));
  }
}
