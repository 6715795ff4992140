import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { loadDocTree } from '../../src/program.js';
import { manPages } from '../../src/docs/man.js';
import { needing } from '../helpers/tools.js';
import { gshInProcess } from './helpers.js';

// Issue 3 item 5: the committed man pages render cleanly with `man -l` and are clean under
// `mandoc -Tlint` (which reports style problems too); `gsh man` prints and writes them.
const dir = fileURLToPath(new URL('../../man/', import.meta.url));
const pages = readdirSync(dir).filter((f) => f.endsWith('.1')).sort();

describe('man/', () => {
  it('holds gsh.1 and the family pages', () => {
    expect(pages).toEqual(expect.arrayContaining(['gsh.1', 'gsh-servers.1', 'gsh-files.1', 'gsh-power.1']));
  });
});

const withMandoc = needing('man/ under mandoc', 'mandoc');
describe.skipIf(withMandoc.missing)(withMandoc.title, () => {
  it('is clean under mandoc -Tlint', async () => {
    const r = await execa('mandoc', ['-Tlint', ...pages.map((p) => join(dir, p))], { reject: false });
    expect(`${r.stdout}${r.stderr}`).toBe('');
    expect(r.exitCode).toBe(0);
  });

  it('renders every page within 80 columns (mandoc -T utf8 -O width=80)', async () => {
    const r = await execa('mandoc', ['-T', 'utf8', '-O', 'width=80', ...pages.map((p) => join(dir, p))]);
    expect(wide(r.stdout)).toEqual([]);
  });
});

/** Rendered lines wider than 80 columns, with overstrike (bold, underline) and tabs undone. */
function wide(rendered: string): string[] {
  return rendered.replace(/.\u0008/gu, '').split('\n')
    .map((line) => line.replace(/\t/g, (_, at: number) => ' '.repeat(8 - (at % 8))))
    .filter((line) => [...line].length > 80);
}

/** `fn` of each item, `n` at a time, in the items' order. */
async function inTurns<T, R>(items: readonly T[], n: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    for (let i = next++; i < items.length; i = next++) out[i] = await fn(items[i]!);
  }));
  return out;
}

const withMan = needing('man/ under man', 'man');
describe.skipIf(withMan.missing)(withMan.title, () => {
  it('renders with man -l without warnings', async () => {
    // Four pages at a time: each is a man and a groff of their own, most of the test's time.
    const rendered = await inTurns(pages, 4, (page) => execa('man', ['-l', join(dir, page)], { env: { MANWIDTH: '80', MANPAGER: 'cat', PAGER: 'cat', LANG: 'C.UTF-8' } }));
    for (const [i, page] of pages.entries()) {
      const r = rendered[i]!;
      expect(r.stderr, page).toBe('');
      expect(r.stdout, page).toMatch(/^NAME$/m);
      // Issue 15 item 1: every page fits an 80-column terminal (long examples and paths are folded).
      expect(wide(r.stdout), page).toEqual([]);
    }
    const power = await execa('man', ['-l', join(dir, 'gsh-power.1')], { env: { MANWIDTH: '80', MANPAGER: 'cat', LANG: 'C.UTF-8' } });
    expect(power.stdout).toMatch(/^NAME\n {7}gsh-power - start, stop, restart or kill a server$/m);
    expect(power.stdout).toMatch(/^ {3}gsh power restart \[server\]$/m);
    expect(power.stdout).toContain('POST /servers/{server_id}/power  (signal=restart)');
    // The server may be the argument instead, so -s is not required here.
    expect(power.stdout).toMatch(/-s, --server id\|name\n {14}server id or name \(default: \$GSH_SERVER\); for several:/);
    expect(power.stdout).not.toMatch(/-s, --server id\|name\n[^\n]*\n[^\n]*Required/);
  });
});

// In-process (run(argv, ctx), test/e2e/helpers.ts): the pages are the command tree's, the same in
// the bundle (binary.test.ts runs the built gsh).
describe('gsh man', () => {
  it('prints the overview and a family page as generated from the command tree', async () => {
    const generated = manPages(await loadDocTree());
    const main = await gshInProcess(['man'], {});
    expect(`${main.stdout}\n` === generated.get('gsh.1')).toBe(true);
    const servers = await gshInProcess(['man', 'servers'], {});
    expect(`${servers.stdout}\n` === generated.get('gsh-servers.1')).toBe(true);
  });

  it('writes every page with --dir and removes pages of commands that are gone', async () => {
    const out = mkdtempSync(join(tmpdir(), 'gsh-man-'));
    try {
      writeFileSync(join(out, 'gsh-removed.1'), 'old');
      writeFileSync(join(out, 'other.1'), 'not ours');
      expect((await gshInProcess(['man', '--dir', out], {})).exitCode).toBe(0);
      expect(readdirSync(out).sort()).toEqual([...pages, 'other.1'].sort());
      expect(readFileSync(join(out, 'gsh-power.1'), 'utf8')).toContain('.SS "gsh power kill [server]"');
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('an unknown command is a usage error', async () => {
    const r = await gshInProcess(['man', 'nope'], {});
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('no command named "nope"');
  });
});
