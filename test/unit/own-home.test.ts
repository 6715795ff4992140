import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configDir } from '../../src/core/auth/store.js';
import { gshInProcess, setup } from '../e2e/helpers.js';
import { changes, listing } from '../helpers/own-home.js';

// Issue 50 item 2: `npm test` wrote into the user's own ~/.config/gsh/server-refs.json (a file
// whose runs set no GSH_CONFIG_DIR, test/e2e/ready-restart.test.ts). Every run now has a HOME and
// XDG dirs of its own (test/helpers/own-home.ts, vitest.config.ts), and fails when the user's
// own gsh config dir changed.

describe('the tests have a home of their own', () => {
  it('HOME and the XDG dirs of every worker are the run\'s own, under the temp dir', () => {
    for (const name of ['HOME', 'XDG_CONFIG_HOME', 'XDG_CACHE_HOME', 'XDG_DATA_HOME', 'XDG_STATE_HOME']) {
      expect(process.env[name], name).toMatch(new RegExp(`^${tmpdir().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/gsh-test-home-`));
    }
    expect(homedir()).toBe(process.env.HOME);
  });

  it('a run without GSH_CONFIG_DIR remembers the servers it resolved in that home, not the user\'s', async () => {
    const e = await setup({ servers: 2 });
    try {
      const s = [...e.sandbox.state.servers.values()][0]!;
      const r = await gshInProcess(['servers', 'get', '-s', s.name], { ...e.env(), GSH_CONFIG_DIR: undefined });
      expect(r.exitCode, r.stderr).toBe(0);
      const dir = configDir({ HOME: process.env.HOME });
      expect(dir.startsWith(process.env.HOME!)).toBe(true);
      expect(readFileSync(join(dir, 'server-refs.json'), 'utf8')).toContain(s.id);
    } finally {
      await e.close();
    }
  });

  it('the guard sees a file written, changed or removed in a config dir', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsh-guard-'));
    try {
      writeFileSync(join(dir, 'config.json'), '{}');
      const before = listing(dir);
      expect(changes(before, listing(dir))).toEqual([]);
      writeFileSync(join(dir, 'server-refs.json'), '{"version":1}');
      utimesSync(join(dir, 'config.json'), new Date(0), new Date(0));
      const found = changes(before, listing(dir));
      expect(found).toHaveLength(2);
      expect(found.join('\n')).toMatch(/written .*server-refs\.json/);
      expect(found.join('\n')).toMatch(/changed .*config\.json/);
      rmSync(join(dir, 'config.json'));
      expect(changes(before, listing(dir)).join('\n')).toMatch(/removed .*config\.json/);
      expect(listing(join(dir, 'absent')).size).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
