import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Every gsh process a test starts keeps its code cache (boot/bundle-loader.ts) in one throwaway
// directory for the run, never in the user's own cache: runs in parallel share it, as a user's
// shells do, and it is removed at the end.
export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'gsh-test-cache-'));
  process.env.GSH_CACHE_DIR = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
