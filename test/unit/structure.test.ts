import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// ARCHITECTURE.md "Layers": arrows point down only, and no file reaches itself through its
// imports. Every relative import under src/ counts, static, lazy (`await import()`) and
// type-only alike, since each one is a dependency a reader must follow.

const ROOT = join(import.meta.dirname, '..', '..');
const SRC = join(ROOT, 'src');

/**
 * The Layers table of ARCHITECTURE.md, top to bottom. A file belongs to the layer with the
 * longest matching prefix; `mayImport` names layers, or single files of a layer otherwise closed.
 * A new layer is one row here and one row in the table.
 */
const LAYERS: Record<string, { files: string[]; mayImport: string[] }> = {
  boot: { files: ['src/boot/'], mayImport: ['src/core/v8-flags.ts', 'src/core/disk/disk.ts'] },
  cli: { files: ['src/cli.ts'], mayImport: ['program', 'core'] },
  program: { files: ['src/program.ts'], mayImport: ['commands', 'docs', 'core', 'operations', 'common'] },
  commands: { files: ['src/commands/'], mayImport: ['docs', 'config-code', 'leaf', 'top', 'console', 'init', 'mcp', 'core', 'operations', 'common', 'sandbox'] },
  docs: { files: ['src/docs/'], mayImport: ['core', 'operations', 'common'] },
  'config-code': { files: ['src/config-code/'], mayImport: ['init', 'core', 'operations', 'common'] },
  leaf: { files: ['src/leaf/'], mayImport: ['console', 'init', 'core', 'operations', 'common'] },
  top: { files: ['src/top/'], mayImport: ['console', 'core', 'common'] },
  console: { files: ['src/console/'], mayImport: ['core', 'common'] },
  mcp: { files: ['src/mcp/'], mayImport: ['core', 'operations', 'common'] },
  init: { files: ['src/init/'], mayImport: ['operations', 'common', 'src/core/errors.ts', 'src/core/version.ts', 'src/core/disk/disk.ts'] },
  core: { files: ['src/core/'], mayImport: ['operations', 'common'] },
  operations: { files: ['src/operations/'], mayImport: ['common'] },
  common: { files: ['src/common/'], mayImport: [] },
  sandbox: { files: ['src/sandbox/'], mayImport: ['operations', 'init', 'common'] },
};

type Graph = Map<string, string[]>;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(e.name) && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every relative import of every file under src/, as repository-relative paths. */
function importGraph(): Graph {
  const graph: Graph = new Map();
  for (const file of sourceFiles(SRC)) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = info.importedFiles
      .map((f) => f.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => relative(ROOT, join(dirname(file), name.replace(/\.js$/, '.ts'))));
    graph.set(relative(ROOT, file), [...new Set(targets)].sort());
  }
  return graph;
}

function layerOf(file: string): string | undefined {
  let best: { layer: string; length: number } | undefined;
  for (const [layer, { files }] of Object.entries(LAYERS)) {
    for (const prefix of files) {
      const match = prefix.endsWith('/') ? file.startsWith(prefix) : file === prefix;
      if (match && (!best || prefix.length > best.length)) best = { layer, length: prefix.length };
    }
  }
  return best?.layer;
}

function allowed(from: string, to: string): boolean {
  const a = layerOf(from);
  const b = layerOf(to);
  if (a === undefined || b === undefined) return false;
  if (a === b) return true;
  const may = LAYERS[a]?.mayImport ?? [];
  return may.includes(b) || may.includes(to);
}

/** Strongly connected components of more than one file (Tarjan), each sorted. */
function circles(graph: Graph): string[][] {
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    order.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!order.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, order.get(w)!));
      }
    }
    if (low.get(v) === order.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || graph.get(v)?.includes(v)) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!order.has(v)) visit(v);
  return found;
}

describe('the import structure of src/', () => {
  const graph = importGraph();

  it('reads the imports it checks (a walk that finds nothing proves nothing)', () => {
    expect(graph.get('src/program.ts')).toContain('src/commands/index.ts');
    // A lazy import counts as much as a static one.
    expect(graph.get('src/cli.ts')).toEqual(['src/core/run/context.ts', 'src/program.ts']);
    expect([...graph.values()].flat().filter((to) => !graph.has(to))).toEqual([]);
  });

  it('has no import circle', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('finds a circle when there is one', () => {
    const g: Graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(circles(g)).toEqual([['a', 'b', 'c']]);
  });

  it('puts every file in a layer of the table', () => {
    expect([...graph.keys()].filter((f) => layerOf(f) === undefined)).toEqual([]);
  });

  it('has no arrow pointing up or sideways out of the table', () => {
    const wrong: string[] = [];
    for (const [from, targets] of graph) {
      for (const to of targets) {
        if (allowed(from, to)) continue;
        wrong.push(`${from} -> ${to}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('keeps the sandbox clear of the CLI layers, also through what it imports', () => {
    const reached = new Set<string>();
    const pending = [...graph.keys()].filter((f) => layerOf(f) === 'sandbox');
    while (pending.length) {
      const file = pending.pop()!;
      for (const to of graph.get(file) ?? []) if (!reached.has(to)) reached.add(to), pending.push(to);
    }
    const cli = ['cli', 'program', 'commands', 'docs', 'leaf', 'mcp', 'console', 'core'];
    expect([...reached].filter((f) => cli.includes(layerOf(f) ?? '')).sort()).toEqual([]);
  });
});

/**
 * ARCHITECTURE.md "Core by boundary": src/core/ is grouped one folder per boundary, its door in
 * it, and the folders are layered too. A folder may import the root files (the shared vocabulary)
 * and the folders on the rows below its own; the root imports no folder. Top to bottom.
 */
const CORE_FOLDERS: string[][] = [['fleet', 'transfer', 'login'], ['run'], ['flags', 'auth', 'person'], ['terminal', 'wire', 'disk'], ['.']];

function coreFolderOf(file: string): string | undefined {
  if (!file.startsWith('src/core/')) return undefined;
  const rest = file.slice('src/core/'.length);
  return rest.includes('/') ? rest.split('/')[0] : '.';
}

function coreArrowsUp(graph: Graph): string[] {
  const row = (folder: string) => CORE_FOLDERS.findIndex((r) => r.includes(folder));
  const wrong: string[] = [];
  for (const [from, targets] of graph) {
    const a = coreFolderOf(from);
    if (a === undefined) continue;
    for (const to of targets) {
      const b = coreFolderOf(to);
      if (b === undefined || a === b) continue;
      if (row(a) < 0 || row(b) < 0 || row(b) <= row(a)) wrong.push(`${from} -> ${to}`);
    }
  }
  return wrong;
}

describe('src/core/ by boundary', () => {
  const graph = importGraph();

  it('has a row for every folder of src/core/', () => {
    const folders = new Set([...graph.keys()].map(coreFolderOf).filter((f) => f !== undefined));
    expect([...folders].sort()).toEqual(CORE_FOLDERS.flat().sort());
  });

  it('points every arrow between its folders down the rows (terminal, wire and disk import nothing of each other)', () => {
    expect(coreArrowsUp(graph)).toEqual([]);
  });

  it('finds an arrow up or sideways when there is one', () => {
    const g: Graph = new Map([
      ['src/core/terminal/io.ts', ['src/core/run/context.ts', 'src/core/errors.ts']],
      ['src/core/wire/http.ts', ['src/core/terminal/io.ts']],
      ['src/core/run/runtime.ts', ['src/core/wire/http.ts']],
    ]);
    expect(coreArrowsUp(g)).toEqual(['src/core/terminal/io.ts -> src/core/run/context.ts', 'src/core/wire/http.ts -> src/core/terminal/io.ts']);
  });
});
