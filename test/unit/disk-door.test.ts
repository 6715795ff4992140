import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// ARCHITECTURE.md "Doors": one module writes every file gsh writes, src/core/disk/disk.ts (temporary
// files created new under a random name, fsync, rename; gsh's own directories checked as ssh
// checks ~/.ssh). This test reads every file under src/ and fails when another one reaches a
// file-system call that writes: a write API imported from node:fs or node:fs/promises (or used
// through a namespace import), an open() whose flags are not read-only, or node:fs taken by
// require or process.getBuiltinModule, where nothing here could see what is called.

const ROOT = join(import.meta.dirname, '..', '..');
const SRC = join(ROOT, 'src');
const DOOR = 'src/core/disk/disk.ts';

/**
 * Build steps (`npm run build`), not gsh: they write bin/dist/ on the developer's machine and
 * never run when gsh does. Each must still write (an entry that no longer does is dropped).
 */
const BUILD_STEPS = ['src/boot/pack-start.ts', 'src/boot/split-jq-wasm.ts', 'src/boot/stamp-build.ts'];

const FS_MODULES = new Set(['fs', 'node:fs', 'fs/promises', 'node:fs/promises']);

/** node:fs calls (sync, callback and promise forms share names) that change the disk. */
const WRITES = new Set([
  'writeFile', 'appendFile', 'createWriteStream', 'rename', 'mkdir', 'mkdtemp', 'rm', 'rmdir', 'unlink',
  'chmod', 'lchmod', 'fchmod', 'chown', 'lchown', 'fchown', 'symlink', 'link', 'copyFile', 'cp', 'truncate',
  'ftruncate', 'utimes', 'lutimes', 'futimes',
].flatMap((name) => [name, `${name}Sync`]));

const OPENS = new Set(['open', 'openSync']);

/** An open()'s flags argument that only reads: none (the default 'r'), or 'r' / 'rs'. */
function readOnly(flags: ts.Expression | undefined): boolean {
  return flags === undefined || (ts.isStringLiteral(flags) && /^(r|rs|sr)$/.test(flags.text));
}

/** Every write to the disk in `text`, as `line: what`. */
export function diskWrites(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const at = (node: ts.Node, what: string) => found.push(`${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${what}`);
  const named = new Map<string, string>();
  const namespaces = new Set<string>();
  const check = (node: ts.Node, name: string, args: readonly ts.Expression[] | undefined) => {
    if (WRITES.has(name)) at(node, name);
    else if (OPENS.has(name) && args !== undefined && !readOnly(args[1])) at(node, `${name} with flags ${args[1]?.getText(source) ?? ''}`);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && FS_MODULES.has(node.moduleSpecifier.text)) {
      const clause = node.importClause;
      if (clause && !clause.isTypeOnly) {
        if (clause.name) namespaces.add(clause.name.text);
        const bindings = clause.namedBindings;
        if (bindings && ts.isNamespaceImport(bindings)) namespaces.add(bindings.name.text);
        if (bindings && ts.isNamedImports(bindings)) {
          for (const element of bindings.elements) {
            if (element.isTypeOnly) continue;
            const imported = (element.propertyName ?? element.name).text;
            if (imported === 'promises') namespaces.add(element.name.text);
            else if (WRITES.has(imported)) at(element, `imports ${imported}`);
            else named.set(element.name.text, imported);
          }
        }
      }
    }
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      if (ts.isIdentifier(callee) && named.has(callee.text)) check(node, named.get(callee.text)!, node.arguments);
      if (ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) && namespaces.has(callee.expression.text)) {
        check(node, callee.name.text, node.arguments);
      }
      // require('node:fs'), process.getBuiltinModule('node:fs/promises'): what is called on it is out of sight.
      const first = node.arguments[0];
      const how = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : '';
      if (/^(require|getBuiltinModule)$/.test(how) && first && ts.isStringLiteral(first) && FS_MODULES.has(first.text)) at(node, `${how}('${first.text}')`);
    }
    // A write taken off a namespace without a call (`const w = fs.writeFileSync`) counts too.
    if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && namespaces.has(node.expression.text) && WRITES.has(node.name.text)) {
      if (!(ts.isCallExpression(node.parent) && node.parent.expression === node)) at(node, node.name.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(e.name) && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

const writes = new Map(sourceFiles(SRC).map((path) => [relative(ROOT, path), diskWrites(path, readFileSync(path, 'utf8'))]));

describe('one module writes every file gsh writes (ARCHITECTURE.md "Doors")', () => {
  it('finds the writes it looks for (a scan that finds nothing proves nothing)', () => {
    expect(writes.get(DOOR)!.length).toBeGreaterThan(5);
    const sample = [
      "import { writeFileSync } from 'node:fs';",
      "import * as fs from 'fs';",
      "import { open, promises as p } from 'node:fs/promises';",
      "import { openSync as o, readFileSync } from 'node:fs';",
      'readFileSync("a"); o("a"); o("a", "r");',
      'o("a", "w");',
      "open('a', 'wx', 0o644);",
      "fs.renameSync('a', 'b');",
      'const keep = fs.rmSync;',
      "p.mkdir('d');",
      "process.getBuiltinModule('node:fs');",
    ].join('\n');
    expect(diskWrites('sample.ts', sample)).toEqual([
      '1: imports writeFileSync',
      '6: openSync with flags "w"',
      "7: open with flags 'wx'",
      '8: renameSync',
      '9: rmSync',
      '10: mkdir',
      "11: getBuiltinModule('node:fs')",
    ]);
  });

  it(`no module but ${DOOR} writes to the disk`, () => {
    const others = [...writes].filter(([file, found]) => file !== DOOR && !BUILD_STEPS.includes(file) && found.length > 0);
    expect(Object.fromEntries(others)).toEqual({});
  });

  it('the build steps left out of the rule still write (else they leave the list)', () => {
    for (const file of BUILD_STEPS) expect(writes.get(file), file).not.toEqual([]);
  });

  it('the door imports nothing of gsh, so the launcher that imports it loads nothing more', () => {
    const imports = ts.preProcessFile(readFileSync(join(ROOT, DOOR), 'utf8'), true, true).importedFiles.map((f) => f.fileName);
    expect(imports.filter((name) => !name.startsWith('node:'))).toEqual([]);
    // node:crypto (a random name) only when a file is written, never at the top.
    expect(imports).not.toContain('node:crypto');
  });
});
