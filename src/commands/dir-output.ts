import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { makeDir, removeFile, replaceFile } from '../core/disk/disk.js';
import { Exit, GshError, UsageError } from '../core/errors.js';

// `completion --dir` and `man --dir`: generated files written into a directory the user names,
// anyone may read them (0644), each replaced whole (core/disk/disk.ts). A file-system failure is
// said with the path, in words (issue 51: never an internal error).

/** The path cannot be used as given (exit 2); anything else (a full disk) is exit 1. */
const PATH_PROBLEMS: Record<string, string> = {
  ENOTDIR: 'a file is in the way (not a directory)',
  EEXIST: 'a file is in the way (not a directory)',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  ENAMETOOLONG: 'the name is too long',
};
const OTHER_PROBLEMS: Record<string, string> = { ENOSPC: 'no space left on the device', EIO: 'an input/output error', EDQUOT: 'the disk quota is used up' };

/** Writes `files` (name → text) into `dir`, made if missing; `stale` names old files to remove first. */
export function writeIntoDir(dir: string, files: Iterable<[string, string]>, stale?: (name: string) => boolean): void {
  try {
    const st = statSync(dir, { throwIfNoEntry: false });
    if (st && !st.isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR', path: dir });
    makeDir(dir);
    if (stale) for (const file of readdirSync(dir)) if (stale(file)) removeFile(join(dir, file));
    for (const [file, text] of files) replaceFile(join(dir, file), text, { mode: 0o644 });
  } catch (err) {
    const { code, path } = err as NodeJS.ErrnoException;
    if (err instanceof GshError || code === undefined) throw err;
    const where = path && path !== dir ? `${path}: ` : '';
    if (PATH_PROBLEMS[code]) throw new UsageError(`--dir ${dir}: ${where}${PATH_PROBLEMS[code]} (${code}); nothing more was written`, 'Give a directory you can write to.');
    throw new GshError(`--dir ${dir}: ${where}${OTHER_PROBLEMS[code] ?? 'the file system refused it'} (${code}); nothing more was written`, Exit.error);
  }
}
