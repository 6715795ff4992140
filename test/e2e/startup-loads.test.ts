import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GSH, type E2E, setup } from './helpers.js';

// What a start loads (issue 39; README "Speed"): not time, which a loaded machine cannot judge,
// but the chunks and built-in modules the launcher's loader loads, read by the bench's
// load-count.cjs preload and mapped to their sources through the build's metafile. Subprocess:
// only the built binary and its loader show what is loaded.

const LOAD_COUNT = fileURLToPath(new URL('../bench/load-count.cjs', import.meta.url));
const META = fileURLToPath(new URL('../../node_modules/.cache/gsh/meta.json', import.meta.url));

interface Loads {
  builtins: string[];
  /** Node's internal modules loaded (process.moduleLoadList). */
  internals: string[];
  /** The source files of the chunks loaded. */
  sources: string[];
  /** The source files of the chunks compiled from their own file, not from a pack (src/boot/pack-start.ts). */
  alone: string[];
}

let t: E2E;
let sourcesOf: Map<string, string[]>;
beforeAll(async () => {
  t = await setup({ servers: 3 });
  const meta = JSON.parse(readFileSync(META, 'utf8')) as { outputs: Record<string, { inputs: Record<string, unknown> }> };
  sourcesOf = new Map(Object.entries(meta.outputs).map(([out, o]) => [out.slice(out.lastIndexOf('/') + 1), Object.keys(o.inputs)]));
});
afterAll(async () => {
  await t.close();
});

async function loads(args: string[], exitCode = 0, env: Record<string, string> = {}): Promise<Loads> {
  const r = await execa(process.execPath, ['--require', LOAD_COUNT, GSH, ...args], { reject: false, env: { ...t.env(), ...env } as Record<string, string>, extendEnv: true });
  expect(r.exitCode, r.stderr).toBe(exitCode);
  const report = JSON.parse(r.stderr.trim().split('\n').pop()!) as { builtins: string[]; internals: string[]; loaded: string[]; alone: string[] };
  return {
    builtins: report.builtins, internals: report.internals,
    sources: report.loaded.flatMap((c) => sourcesOf.get(c.slice(0, c.lastIndexOf(':'))) ?? []),
    alone: report.alone.flatMap((c) => sourcesOf.get(c) ?? []),
  };
}

const undici = (s: string) => s.includes('node_modules/undici/');

describe('what a start loads', () => {
  it('gsh --help rendered (not yet in the help cache): commander and the top-level words; no HTTP client, no node:crypto, no registry family', async () => {
    // A cache directory of its own: a help another test printed would be printed from the cache
    // (test/e2e/help-cache.test.ts), loading nothing of the bundle.
    const cache = mkdtempSync(join(tmpdir(), 'gsh-startup-loads-'));
    const { builtins, sources } = await loads(['--help'], 0, { GSH_CACHE_DIR: cache }).finally(() => rmSync(cache, { recursive: true, force: true }));
    expect(sources).toContain('node_modules/commander/lib/command.js');
    expect(sources.filter(undici)).toEqual([]);
    expect(sources.filter((s) => s.startsWith('src/operations/') && !/\/(index|types)\.ts$/.test(s))).toEqual([]);
    // Not even for the random names of the files this run writes (its help, the code caches): core/disk/disk.ts.
    expect(builtins).not.toContain('crypto');
    expect(builtins).not.toContain('http');
  });

  it('servers list: the request goes through node:http; undici, node:crypto and the person-must-act flow stay unloaded', async () => {
    const { builtins, sources } = await loads(['servers', 'list', '--limit', '5']);
    expect(sources).toContain('src/core/wire/http.ts');
    expect(builtins).toContain('http');
    expect(sources.filter(undici)).toEqual([]);
    expect(sources).not.toContain('src/core/run/person-must-act.ts');
    expect(builtins).not.toContain('crypto');
    // Built-ins come from process.getBuiltinModule (src/boot/bundle-loader.ts, core/builtin.ts), not a createRequire.
    expect(builtins).not.toContain('module');
  });

  it('servers list: every chunk but its family\'s comes from the packs (three files and three caches, not two dozen)', async () => {
    const { alone, sources } = await loads(['servers', 'list', '--limit', '5']);
    expect(sources).toContain('src/commands/registry-commands.ts');
    expect(sources).toContain('src/leaf/run.ts');
    expect(alone).toContain('src/operations/servers.ts');
    expect(alone.filter((s) => !s.startsWith('src/operations/'))).toEqual([]);
  });

  it('servers list: nothing of a server\'s command (its reference, fleets) and no AsyncLocalStorage entered', async () => {
    const { internals, sources } = await loads(['servers', 'list', '--limit', '5']);
    for (const module of ['fleet/targets', 'fleet/fleet', 'fleet/server-cache', 'fleet/server-ref', 'output/report', 'terminal/confirm']) expect(sources).not.toContain(`src/core/${module}.ts`);
    // A run's outcome tracker is the run's own (core/outcome.ts RunOutcomes): entering an
    // AsyncLocalStorage would make Node run promise hooks on every promise after it.
    expect(internals).not.toContain('internal/promise_hooks');
  });
});
