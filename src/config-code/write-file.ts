import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { GshError, UsageError } from '../core/errors.js';

// The one place `gsh config export` writes a file (README "Configuration as code"). Without
// --force a file is created exclusively ('wx'): one that exists, or appears meanwhile, is never
// written through. With --force it is replaced atomically (a temporary file beside it, renamed
// over it), so a reader never sees half a file.

let count = 0;

/** Whether the file already stands there (export checks every target before reading anything). */
export function declarationExists(path: string): boolean {
  return existsSync(path);
}

export function writeDeclaration(path: string, text: string, force: boolean): void {
  if (!force) {
    try {
      writeFileSync(path, text, { flag: 'wx', mode: 0o644 });
      return;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') throw new UsageError(`${path} exists; not replacing it`, 'Give --force to replace it.');
      throw new GshError(`cannot write ${path}: ${code ?? (err as Error).message}`);
    }
  }
  const tmp = `${path}.${process.pid}.${++count}.tmp`;
  try {
    writeFileSync(tmp, text, { flag: 'wx', mode: 0o644 });
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw new GshError(`cannot write ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}
