import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import SkipReasons, { skipLines, skipReason } from '../helpers/skip-reasons.js';
import config from '../../vitest.config.js';

// Issue 46 item 9: `npm test` prints each skipped test's reason, as README "Development"
// promises, not only a count. The reporter (test/helpers/skip-reasons.ts) reads the reason from a
// test's note or the `(skipped: …)` of its title; every conditional skip in test/ must give one.

const root = fileURLToPath(new URL('../', import.meta.url));
const testFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? testFiles(path) : name.endsWith('.test.ts') ? [path] : [];
  });

describe('skipped tests say why', () => {
  it('the reason comes from the note, else the title of the test or of its describe', () => {
    expect(skipReason('man pages > render (skipped: mandoc not installed) > lint', undefined)).toBe('mandoc not installed');
    expect(skipReason('a > b', 'no outward address')).toBe('no outward address');
    expect(skipReason('a > b', undefined)).toBeUndefined();
    expect(skipLines([], 3)).toBe('\nSkipped tests (3):\n  3 not run with no reason of their own (a -t filter, .only elsewhere, or a failed setup of their suite)\n');
    expect(skipLines([])).toBe('');
    expect(skipLines([{ project: 'default', file: 'test/e2e/man.test.ts', name: 'man (skipped: man not installed) > renders', reason: 'man not installed' }]))
      .toBe('\nSkipped tests (1), each with its reason:\n  [default] test/e2e/man.test.ts > man > renders\n      why: man not installed\n');
  });

  it('the reporter lists every skipped test of the run at its end, and runs after vitest\'s own', () => {
    const test = (fullName: string, state: string, note?: string) => ({ fullName, project: { name: 'strict' }, options: { mode: 'skip' }, result: () => ({ state, note }) });
    const mod = { moduleId: join(process.cwd(), 'test/e2e/x.test.ts'), children: { allTests: () => [test('x > kept', 'passed'), test('x (skipped: zsh not installed) > y', 'skipped'), test('x > z', 'skipped', 'no IPv4 address but loopback')] } };
    const written: string[] = [];
    const write = process.stdout.write;
    process.stdout.write = ((chunk: string) => written.push(chunk) > 0) as typeof process.stdout.write;
    try {
      new SkipReasons().onTestRunEnd([mod] as never);
    } finally {
      process.stdout.write = write;
    }
    expect(written.join('')).toBe('\nSkipped tests (2), each with its reason:\n  [strict] test/e2e/x.test.ts > x > y\n      why: zsh not installed\n  [strict] test/e2e/x.test.ts > x > z\n      why: no IPv4 address but loopback\n');
    expect((config as { test?: { reporters?: unknown } }).test?.reporters).toEqual(['default', './test/helpers/skip-reasons.ts']);
  });

  it('every conditional skip in test/ carries its reason in the title, and nothing is skipped unconditionally', () => {
    const bare: string[] = [];
    for (const file of testFiles(root)) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/\.(skipIf|runIf)\(/g)) {
        // The title follows the condition's closing parenthesis, on the same line.
        const line = text.slice(m.index, text.indexOf('\n', m.index));
        if (!/\)\((\w+\.title|skipTitle\(|[^,]*skipped: )/.test(line)) bare.push(`${file.slice(root.length)}: ${line.trim()}`);
      }
      for (const m of text.matchAll(/\b(it|test|describe)\.(skip|todo)\(/g)) bare.push(`${file.slice(root.length)}: ${text.slice(m.index, text.indexOf('\n', m.index)).trim()}`);
    }
    expect(bare).toEqual([]);
  });
});
