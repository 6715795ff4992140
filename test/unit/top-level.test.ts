import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The top level is the design card's (src/ARCHITECTURE.md "Stack and distribution"):
// package.json, tsconfig.json, bin/, src/, test/, completions/, man/, README.md, plus LICENSE, the
// lockfile, dotfiles, .ci/ and the test runner's config. The committed bundle lives in bin/dist/,
// not in a top-level dist/.
const ALLOWED = new Set([
  'package.json', 'package-lock.json', 'tsconfig.json', 'bin', 'src', 'test', 'completions', 'man',
  'README.md', 'LICENSE', 'vitest.config.ts',
]);

describe('the top level', () => {
  it('holds only what the design card names (dotfiles and .ci/ aside)', () => {
    const root = join(import.meta.dirname, '..', '..');
    const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean);
    const top = [...new Set(tracked.map((path) => path.split('/')[0]!))];
    expect(top.filter((name) => !name.startsWith('.') && !ALLOWED.has(name))).toEqual([]);
    expect(tracked.some((path) => path.startsWith('bin/dist/') && path.endsWith('cli.cjs'))).toBe(true);
  });
});
