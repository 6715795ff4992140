import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The tests never touch the user's files (issue 50 item 2): the run gets a HOME and XDG
// directories of its own, which every test worker and every gsh process a test starts inherits
// (os.homedir() reads HOME), so a run without GSH_CONFIG_DIR writes there, never in the user's
// ~/.config/gsh. The guard: gsh's config dirs under the HOME (and XDG_CONFIG_HOME) the run
// started with are listed before and after it, and the run fails when a file there was
// added, changed or removed.

/** Set once the run has its own HOME: the projects' setups after the first keep it. */
const MARK = 'GSH_TEST_OWN_HOME';

type Listing = Map<string, string>;

/** Every file under `dir` with its size and time of change (nothing when it does not exist). */
export function listing(dir: string, into: Listing = new Map()): Listing {
  if (!existsSync(dir)) return into;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = lstatSync(path);
    if (st.isDirectory()) listing(path, into);
    else into.set(path, `${st.size} bytes, changed ${st.mtime.toISOString()}`);
  }
  return into;
}

export function changes(before: Listing, after: Listing): string[] {
  const out: string[] = [];
  for (const [path, was] of before) if (!after.has(path)) out.push(`removed ${path}`);
  for (const [path, now] of after) {
    const was = before.get(path);
    if (was === undefined) out.push(`written ${path} (${now})`);
    else if (was !== now) out.push(`changed ${path} (${was} → ${now})`);
  }
  return out;
}

export default function setup(): () => void {
  if (process.env[MARK]) return () => {};
  const guarded = [...new Set([
    join(process.env.HOME ?? '', '.config', 'gsh'),
    ...(process.env.XDG_CONFIG_HOME ? [join(process.env.XDG_CONFIG_HOME, 'gsh')] : []),
  ])].filter((d) => d !== join('.config', 'gsh'));
  const before = new Map(guarded.map((d) => [d, listing(d)]));

  const root = mkdtempSync(join(tmpdir(), 'gsh-test-home-'));
  const dirs = { HOME: 'home', XDG_CONFIG_HOME: 'config', XDG_CACHE_HOME: 'cache', XDG_DATA_HOME: 'data', XDG_STATE_HOME: 'state' } as const;
  const saved = Object.fromEntries(Object.keys(dirs).map((k) => [k, process.env[k]]));
  for (const [name, sub] of Object.entries(dirs)) {
    const dir = join(root, sub);
    mkdirSync(dir, { mode: 0o700 });
    process.env[name] = dir;
  }
  process.env[MARK] = root;

  return () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    delete process.env[MARK];
    rmSync(root, { recursive: true, force: true });
    const wrong = guarded.flatMap((d) => changes(before.get(d) ?? new Map(), listing(d)));
    if (wrong.length) {
      // vitest prints an error thrown here but still exits 0: the exit code fails the run.
      process.exitCode = 1;
      throw new Error(`the tests wrote into the user's own gsh config dir (every test and subprocess must use a HOME or GSH_CONFIG_DIR of its own):\n  ${wrong.join('\n  ')}`);
    }
  };
}
