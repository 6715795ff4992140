import { renameSync, writeFileSync } from 'node:fs';

/**
 * Replaces `file` with `data` (0600) atomically: a concurrent run reads the old file or the new
 * one, never half of one. The code cache and the help cache both write this way.
 */
export function replaceFile(file: string, data: string | Uint8Array): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, data, { mode: 0o600 });
  renameSync(tmp, file);
}
