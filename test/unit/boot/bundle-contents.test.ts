import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// What the built bundle (bin/dist/, rebuilt by `npm test` before the tests run) must not contain.
// yaml's Node build reads process.env.LOG_TOKENS for every token its parser meets and
// process.env.LOG_STREAM for every token it composes (its own debugging switches): each read is a
// call into Node's environment, about a fifth of yaml's parsing time on `gsh init lint`. The
// build aliases yaml to its browser build, the same code without those reads (package.json,
// `--alias:yaml=`).

const DIST = fileURLToPath(new URL('../../../bin/dist/', import.meta.url));

/** Every file of the bundle with its text. */
function bundle(): Array<{ name: string; text: string }> {
  return readdirSync(DIST, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.cjs'))
    .map((name) => ({ name, text: readFileSync(`${DIST}${name}`, 'utf8') }));
}

describe('the bundle', () => {
  it("carries yaml's browser build: no per-token environment reads", () => {
    const files = bundle();
    expect(files.filter(({ text }) => text.includes('Implicit map keys need to be followed by map values'))).toHaveLength(1);
    expect(files.filter(({ text }) => /LOG_TOKENS|LOG_STREAM/.test(text)).map(({ name }) => name)).toEqual([]);
  });

  it('packs what every command loads into start.cjs, each chunk as it is in its own file', () => {
    // src/boot/pack-start.ts: bin/dist/cli.cjs, the program and context main() imports, and what
    // they require; the launcher's loader runs these from the pack (src/boot/bundle-loader.ts).
    const pack = new Map<string, string>();
    const text = readFileSync(`${DIST}start.cjs`, 'utf8');
    for (const [, name, body] of text.matchAll(/^"([^"]+)": function \(exports, require, module, __filename, __dirname\) \{\n([^]*?)\n\}(?=,\n"|\n\};\n$)/gm)) pack.set(String(name), String(body));
    const names = [...pack.keys()];
    expect(names[0]).toBe('cli.cjs');
    expect(names.filter((n) => /^chunks\/(program|context)-/.test(n))).toHaveLength(2);
    // No command's own code: no registry family, no hand-written word.
    expect(names.filter((n) => /^chunks\/(registry-commands|servers|init)-/.test(n))).toEqual([]);
    for (const [name, body] of pack) expect(body, name).toBe(readFileSync(`${DIST}${name}`, 'utf8'));
  });

  it("packs the builder of generated commands and a leaf's run apart, each chunk in one pack only, named by start.cjs", () => {
    // A generated command's start read two dozen chunk files one by one (issue 55): its builder
    // and its run are a pack each, read when their first chunk is required.
    const packs = ['start.cjs', 'start-tree.cjs', 'start-leaf.cjs'].map((file) => ({ file, names: [...chunksOf(file).keys()] }));
    const [start, tree, leaf] = packs;
    expect(tree!.names[0]).toMatch(/^chunks\/registry-commands-/);
    expect(leaf!.names[0]).toMatch(/^chunks\/run-/);
    expect(leaf!.names.filter((n) => /^chunks\/shared-budget-/.test(n))).toHaveLength(1);
    const all = packs.flatMap((p) => p.names);
    expect(new Set(all).size).toBe(all.length);
    // No command's own code in them: no registry family, no hand-written word, nothing lazy of a run.
    expect(all.filter((n) => /^chunks\/(servers|init|power|targets|fleet|person-must-act|undici)-/.test(n))).toEqual([]);
    const index = JSON.parse(/^"packs": (.*),$/m.exec(readFileSync(`${DIST}start.cjs`, 'utf8'))![1]!) as Record<string, string>;
    expect(index).toEqual(Object.fromEntries([tree!, leaf!].flatMap((p) => p.names.map((n) => [n, p.file]))));
    expect(start!.names.filter((n) => n in index)).toEqual([]);
    for (const file of ['start-tree.cjs', 'start-leaf.cjs']) for (const [name, body] of chunksOf(file)) expect(body, name).toBe(readFileSync(`${DIST}${name}`, 'utf8'));
  });
});

describe('the launcher', () => {
  it("carries the build's id, so a start reads no bin/dist/build-id (src/boot/stamp-build.ts)", () => {
    const id = readFileSync(`${DIST}build-id`, 'latin1').trim();
    const loader = readFileSync(`${DIST}loader.cjs`, 'utf8');
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(loader).toContain(`"${id}"`);
    expect(loader).not.toContain('@@gsh-build-id@@');
  });
});

/** The chunks a pack holds, by name, with their text. */
function chunksOf(file: string): Map<string, string> {
  const text = readFileSync(`${DIST}${file}`, 'utf8');
  return new Map([...text.matchAll(/^"([^"]+)": function \(exports, require, module, __filename, __dirname\) \{\n([^]*?)\n\}(?=,\n"|\n\};\n$)/gm)].map(([, name, body]) => [String(name), String(body)]));
}
