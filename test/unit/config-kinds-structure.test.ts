import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { KINDS } from '../../src/config-code/kinds/index.js';

// ARCHITECTURE.md "Configuration as code: one module per kind" (DESIGN.md, the same heading):
// each kind of declarable configuration is one file in src/config-code/kinds/ implementing the
// Kind interface (config-code/kind.ts), kinds/index.ts is their ordered list, and nothing else in
// gsh config (the files, the comparison, diff, apply, export, the command's help and operations)
// names a kind: adding a kind is adding a file. "Names" is the code's words (strings, template
// text, identifiers), never comments; an object literal's key is not counted, since `properties`
// is also a word of the schema language every kind's schema is written in.

const ROOT = join(import.meta.dirname, '..', '..');
const KINDS_DIR = join(ROOT, 'src/config-code/kinds');
const names = KINDS.map((k) => k.name);
const word = new RegExp(`\\b(${names.join('|')})\\b`);

/** Every word of the code a reader would see as naming something, with its line. */
function codeWords(file: string): Array<{ text: string; line: number }> {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: Array<{ text: string; line: number }> = [];
  const visit = (node: ts.Node): void => {
    const at = () => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) out.push({ text: node.text, line: at() });
    else if (ts.isIdentifier(node) && !(ts.isPropertyAssignment(node.parent) && node.parent.name === node)) out.push({ text: node.text, line: at() });
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

describe('gsh config: one module per kind', () => {
  it('kinds/ holds one file per kind, named as the kind, each in the ordered list of kinds/index.ts', async () => {
    const files = readdirSync(KINDS_DIR).filter((f) => f.endsWith('.ts') && f !== 'index.ts').map((f) => f.replace(/\.ts$/, '')).sort();
    expect(files).toEqual([...names].sort());
    for (const name of names) {
      const mod = (await import(join(KINDS_DIR, `${name}.ts`))) as Record<string, unknown>;
      expect(Object.values(mod).filter((v) => KINDS.includes(v as (typeof KINDS)[number])), name).toHaveLength(1);
    }
    expect(names.length).toBeGreaterThanOrEqual(6);
  });

  it('no file of src/config-code outside kinds/, nor commands/config.ts, names a kind', () => {
    const outside = [...tsFiles(join(ROOT, 'src/config-code')).filter((f) => !f.startsWith(`${KINDS_DIR}/`)), join(ROOT, 'src/commands/config.ts')];
    expect(outside.length).toBeGreaterThan(8);
    const found = outside.flatMap((file) => codeWords(file).filter((w) => word.test(w.text)).map((w) => `${file.slice(ROOT.length + 1)}:${w.line}: ${JSON.stringify(w.text.slice(0, 80))}`));
    expect(found).toEqual([]);
  });

  it('the check can fail: a kind named in a string, a template and a property access is found', () => {
    const probe = join(ROOT, 'test/unit/config-kinds-structure.test.ts');
    // This file names kinds only through `names`; a word built here would be found in a file like it.
    expect(codeWords(probe).some((w) => word.test(w.text))).toBe(false);
    const sample = ts.createSourceFile('x.ts', `const a = '${names[0]}'; const b = \`x \${y} ${names[1]}\`; c.${names[2]};`, ts.ScriptTarget.Latest, true);
    const texts: string[] = [];
    const visit = (node: ts.Node): void => {
      if (ts.isStringLiteral(node) || ts.isTemplateTail(node) || ts.isIdentifier(node)) texts.push(node.text);
      ts.forEachChild(node, visit);
    };
    visit(sample);
    expect(texts.filter((t) => word.test(t))).toHaveLength(3);
  });
});
