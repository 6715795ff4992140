import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { UsageError } from '../core/errors.js';

// How much of a declaration file gsh reads (README "Configuration as code": limits): files come
// from pull requests, so a file is read only when it is a regular file, and at most
// DECLARATION_LIMIT_BYTES of it. Its nesting is checked by the init linter's linear scan
// (init/lint.ts tooDeepAt, MAX_DEPTH levels) before the YAML parser recurses into it (files.ts).

/** 1 MiB: a fleet of hundreds of servers declares far less; a larger file is refused unread. */
export const DECLARATION_LIMIT_BYTES = 1024 * 1024;

/**
 * The text of a declaration file, or a usage error (exit 2) naming it: not a regular file (a
 * device such as /dev/zero, a FIFO, which would never end or block), or larger than the limit
 * (its size from fstat, so nothing of it is read; one that grows while read is cut at the limit
 * and refused the same way).
 */
export function readDeclaration(path: string): string {
  let fd: number;
  try {
    // Looked at before it is opened: opening a FIFO would wait for a writer.
    if (!statSync(path).isFile()) throw new UsageError(`cannot read ${path}: not a regular file`);
    fd = openSync(path, 'r');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new UsageError(`cannot read ${path}: not a regular file`);
    if (st.size > DECLARATION_LIMIT_BYTES) throw tooLarge(path, st.size);
    const buffer = Buffer.alloc(DECLARATION_LIMIT_BYTES + 1);
    let length = 0;
    for (let n; length < buffer.length && (n = readSync(fd, buffer, length, buffer.length - length, length)) > 0;) length += n;
    if (length > DECLARATION_LIMIT_BYTES) throw tooLarge(path);
    return buffer.subarray(0, length).toString('utf8');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  } finally {
    closeSync(fd);
  }
}

function tooLarge(path: string, size?: number): UsageError {
  const what = size === undefined ? 'more' : `${size.toLocaleString('en-US')} bytes`;
  return new UsageError(`cannot read ${path}: ${what}; a declaration file is at most ${DECLARATION_LIMIT_BYTES.toLocaleString('en-US')} bytes (1 MiB)`, 'Split the servers over several files (a directory of them).');
}
