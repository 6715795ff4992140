import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Issue 37 item 6: dependencies match what is imported. Every package of package.json is
// imported by src/, test/, bin/ or the test runner's config, or is a build tool; and the README's
// "Dependencies" table says, for each package of the design card (src/ARCHITECTURE.md "Stack and distribution"), what uses it
// or what replaced it.

const root = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
const DESIGN_CARD = ['commander', 'undici', 'ws', 'chalk', 'ora', 'cli-table3', 'yaml', 'conf', 'open', 'vitest', 'execa'];
/** Run from package.json's scripts or by the type checker, never imported. */
const TOOLS = new Set(['esbuild', 'typescript', '@typescript/native-preview']);

function* sources(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== 'node_modules' && name !== 'fixtures') yield* sources(path);
    } else if (/\.(ts|mts|js|mjs|cjs)$/.test(name) && !name.endsWith('.d.ts')) yield path;
  }
}

/** The package names every import, dynamic import, require and require.resolve of the code names. */
function imported(): Set<string> {
  const names = new Set<string>();
  const files = [...sources(join(root, 'src')), ...sources(join(root, 'test')), ...sources(join(root, 'bin')), join(root, 'vitest.config.ts')];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*|require\s*\(\s*|\.resolve\s*\(\s*|import\s+)'((?:@[\w.-]+\/)?[\w.-]+)(?:\/[^']*)?'/g)) names.add(m[1] as string);
  }
  return names;
}

describe('dependencies', () => {
  it('has no runtime dependencies: everything is bundled', () => {
    expect(pkg.dependencies ?? {}).toEqual({});
  });

  it('every devDependency is imported, a build tool, or the types of one that is', () => {
    const used = imported();
    const unused = Object.keys(pkg.devDependencies ?? {}).filter((name) => {
      if (TOOLS.has(name)) return false;
      const typed = /^@types\/(.*)$/.exec(name)?.[1];
      // @types/node types the `node:` modules.
      return typed === 'node' ? false : !used.has(typed ?? name);
    });
    expect(unused).toEqual([]);
  });

  it('the README says, for each package of the design card, what uses it or what replaced it', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('### Dependencies'));
    const rows = new Map([...section.matchAll(/^\| ([a-z][\w-]*) \| (.+) \|$/gm)].map((m) => [m[1] as string, m[2] as string]));
    expect([...rows.keys()].sort()).toEqual([...DESIGN_CARD].sort());
    const used = imported();
    for (const name of DESIGN_CARD) {
      // A package the code does not import is named as replaced, with the reason.
      if (!used.has(name)) expect(rows.get(name), name).toMatch(/^replaced by .+: /);
    }
  });
});
