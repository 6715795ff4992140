import { chmodSync, mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The run's scratch files in memory where the machine has a tmpfs to spare: every config dir,
// HOME, code cache and file a test makes goes under os.tmpdir(), and gsh writes its small files
// (the shared rate budget, the server cache, journals) by lock, temporary file and rename
// (src/core/disk/disk.ts). On a disk file system each such update waits on the journal (about
// 2 ms against 0.05 ms on tmpfs, several per request), which made a quarter of the suite's time.
// TMPDIR is set before the other setups, so every worker and every gsh process a test starts
// inherits it; without a tmpfs of at least MIN_FREE (the largest file a test writes is a sparse
// 2 GiB one), the system's temporary directory is used as before.

const TMPFS = 0x01021994;
const MIN_FREE = 4 * 1024 ** 3;
const CANDIDATES = ['/dev/shm'];

export default function setup(): () => void {
  if (process.env.GSH_TEST_SCRATCH) return () => {};
  const base = CANDIDATES.find((dir) => {
    try {
      const fs = statfsSync(dir);
      return fs.type === TMPFS && fs.bavail * fs.bsize >= MIN_FREE;
    } catch {
      return false;
    }
  });
  if (!base) return () => {};
  const saved = process.env.TMPDIR;
  let dir: string;
  try {
    dir = mkdtempSync(join(base, 'gsh-test-'));
    // As /tmp is: anyone may make files, only their owner removes them (gsh accepts a directory
    // under a sticky one, src/core/disk/disk.ts privateDirProblem, and a test checks that case).
    chmodSync(dir, 0o1777);
  } catch {
    return () => {};
  }
  process.env.TMPDIR = dir;
  process.env.GSH_TEST_SCRATCH = dir;
  return () => {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    delete process.env.GSH_TEST_SCRATCH;
    rmSync(dir, { recursive: true, force: true });
  };
}
