// Turns `gsh init lint` arguments into the manifests to lint. A directory means every *.yaml and
// *.yml under it that is a manifest; `-` is stdin.

import { closeSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { HEADER } from './vocabulary.js';

export interface Input {
  /** The name shown in reports. */
  name: string;
  /** A path to read, or undefined for stdin. */
  path?: string;
}

/** An input that could not be read (exit 2). */
export interface InputFailure {
  /** The path as given or found. */
  file: string;
  /** One line: `cannot read <file>: <reason>`. */
  message: string;
}

export interface Expansion {
  inputs: Input[];
  /** Arguments that could not be read (exit 2), with the reason. */
  errors: InputFailure[];
  /** Directories in which no manifest was found. */
  emptyDirs: string[];
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

export function expandInputs(args: readonly string[], stdinName: string): Expansion {
  const result: Expansion = { inputs: [], errors: [], emptyDirs: [] };
  for (const arg of args) {
    if (arg === '-') {
      result.inputs.push({ name: stdinName });
      continue;
    }
    try {
      const stat = statSync(arg);
      if (!stat.isDirectory()) {
        // A FIFO or a device would block the read, or never end.
        if (!stat.isFile()) result.errors.push(failure(arg, 'not a regular file'));
        else result.inputs.push({ name: arg, path: arg });
        continue;
      }
      const files: string[] = [];
      walk(arg, files);
      let count = 0;
      for (const file of files) {
        // Only the head is read here (is it a manifest?): each file is read whole when its turn
        // comes, so memory stays flat across a directory of any size. One unreadable file is
        // reported against itself; the rest are still linted.
        let head: Uint8Array;
        try {
          head = readHead(file);
        } catch (error) {
          result.errors.push(failure(file, reason(error)));
          continue;
        }
        if (!looksLikeManifest(head)) continue;
        result.inputs.push({ name: file, path: file });
        count++;
      }
      if (count === 0) result.emptyDirs.push(arg);
    } catch (error) {
      result.errors.push(failure(arg, reason(error)));
    }
  }
  return result;
}

/** The first bytes of a file, enough for looksLikeManifest. */
function readHead(path: string): Uint8Array {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(64);
    return buf.subarray(0, readSync(fd, buf, 0, 64, 0));
  } finally {
    closeSync(fd);
  }
}

function failure(file: string, why: string): InputFailure {
  return { file, message: `cannot read ${file}: ${why}` };
}

export function readInput(path: string): Uint8Array | InputFailure {
  try {
    return readFileSync(path);
  } catch (error) {
    return failure(path, reason(error));
  }
}
