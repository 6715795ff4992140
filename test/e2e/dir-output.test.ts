import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gshInProcess } from './helpers.js';
import { skipTitle } from '../helpers/tools.js';

// Issue 51 item 9: `man --dir` and `completion --dir` failures are ordinary file-system failures
// said with the path, never `internal error` (ARCHITECTURE.md "Exit codes": 2 for a path that
// cannot be used as given). A directory that does not exist yet is made.

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gsh-dir-output-'));
});
afterAll(() => {
  chmodSync(join(dir, 'locked'), 0o755);
  rmSync(dir, { recursive: true, force: true });
});

const run = (argv: string[]) => gshInProcess(argv, { GSH_CONFIG_DIR: join(dir, 'config') });
const COMMANDS = [['man', '--dir'], ['completion', '--dir']] as const;

describe('--dir failures name the path', () => {
  for (const [word] of COMMANDS) {
    it(`${word} --dir FILE (a file in the way) and FILE/sub: exit 2, the path named`, async () => {
      const file = join(dir, `${word}-file`);
      writeFileSync(file, 'mine\n');
      for (const target of [file, join(file, 'sub')]) {
        const r = await run([word, '--dir', target]);
        expect(r.exitCode, r.stderr).toBe(2);
        expect(r.stderr).toContain(`--dir ${target}`);
        expect(r.stderr).toContain('a file is in the way');
        expect(r.stderr).not.toContain('internal error');
      }
    });

    it(`${word} --dir into a directory that does not exist yet makes it`, async () => {
      const target = join(dir, `${word}-new`, 'deeper');
      const r = await run([word, '--dir', target]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(readdirSync(target).length).toBeGreaterThan(0);
    });

    // root writes anywhere a mode forbids: a directory of /sys refuses it (EPERM) instead.
    const root = process.getuid?.() === 0;
    const noSys = root && !existsSync('/sys/kernel');
    it(skipTitle(`${word} --dir where it cannot write: exit 2, the path and the reason named`, noSys, 'running as root without /sys, nowhere to refuse a write'), async (ctx) => {
      if (noSys) return ctx.skip();
      const locked = join(dir, 'locked');
      mkdirSync(locked, { recursive: true });
      chmodSync(locked, 0o555);
      const target = root ? '/sys/gsh-dir-output-test' : join(locked, 'sub');
      const r = await run([word, '--dir', target]);
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`--dir ${target}: .*(permission denied|operation not permitted|read-only)`));
      expect(r.stderr).not.toContain('internal error');
    });
  }
});
