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
});
