import { existsSync } from 'node:fs';
import { createFile, replaceFile } from '../core/disk/disk.js';
import { GshError, UsageError } from '../core/errors.js';

// The one place `gsh config export` and `gsh config adopt` write a file (README "Configuration as code"), through the
// disk door (core/disk/disk.ts). Without --force a file is created only where nothing stands at its
// name (a link included); with --force it is replaced atomically, so a reader never sees half a
// file and a link at the name is replaced, not written through.

/** Whether the file already stands there (export checks every target before reading anything). */
export function declarationExists(path: string): boolean {
  return existsSync(path);
}

/** `mode`: a file replaced keeps its own (adopt); a new one is 0644. */
export function writeDeclaration(path: string, text: string, force: boolean, mode = 0o644): void {
  try {
    if (force) replaceFile(path, text, { mode });
    else createFile(path, text, { mode });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new UsageError(`${path} exists; not replacing it`, 'Give --force to replace it.');
    throw new GshError(`cannot write ${path}: ${code ?? (err as Error).message}`);
  }
}
