import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadDocTree } from '../../src/program.js';
import { generatedFiles } from '../../src/docs/generated-files.js';

// ARCHITECTURE.md "Stack and distribution": completions/ and man/ are generated from the command
// tree, committed, and checked up to date here. When this fails, the tree changed: run `npm run
// generate` and commit the result.
const root = new URL('../../', import.meta.url);

describe('completions/ and man/ are up to date with the command tree', () => {
  it('regenerating gives exactly the committed files, and nothing else is there', async () => {
    const files = generatedFiles(await loadDocTree());
    const committed = ['completions', 'man'].flatMap((dir) => readdirSync(new URL(`${dir}/`, root)).map((f) => `${dir}/${f}`));
    expect(committed.sort(), 'files in completions/ and man/ (run npm run generate)').toEqual([...files.keys()].sort());
    for (const [path, content] of files) {
      expect(readFileSync(new URL(path, root), 'utf8') === content, `${path} is stale: run npm run generate`).toBe(true);
    }
  });

  it('package.json installs every man page (npm links only those listed in "man")', () => {
    const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { man: string[] };
    const pages = readdirSync(new URL('man/', root)).filter((f) => f.endsWith('.1')).sort();
    expect(pkg.man, 'run npm run generate').toEqual(pages.map((f) => `./man/${f}`));
  });

  it('has a page per top-level command and the three shell scripts', async () => {
    const files = [...generatedFiles(await loadDocTree()).keys()];
    expect(files).toEqual(expect.arrayContaining(['completions/gsh.bash', 'completions/_gsh', 'completions/gsh.fish', 'man/gsh.1', 'man/gsh-servers.1', 'man/gsh-power.1', 'man/gsh-files.1']));
  });
});
