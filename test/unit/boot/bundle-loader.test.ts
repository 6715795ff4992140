import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compileCacheDir, createBundleLoader, runKind } from '../../../src/boot/bundle-loader.js';

// The launcher's loader: runs the bundle's CommonJS chunks as Node's loader would, and keeps V8's
// compiled code of each in a cache directory, keyed by the source's size and modification time.
// That a later run accepts the caches is shown with the real binary (test/e2e/binary.test.ts): in
// one process V8 reuses what it compiled before and never looks at a cache.

let dir: string;
let cache: string;
const entry = () => join(dir, 'entry.cjs');
const answer = (exports: unknown) => (exports as { answer(): number }).answer();

function chunk(name: string, source: string): string {
  const file = join(dir, 'chunks', name);
  writeFileSync(file, source);
  return file;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gsh-loader-'));
  cache = join(dir, 'cache');
  mkdirSync(join(dir, 'chunks'));
  // The shape of bin/dist/: an entry beside chunks/.
  // Sources unique to the test, for the same reason.
  writeFileSync(entry(), `// ${dir}\nconst { twice } = require('./chunks/math.cjs'); exports.answer = () => twice(21); exports.file = __filename;`);
  chunk('math.cjs', 'exports.twice = (n) => n * 2;');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('loading', () => {
  it("runs a chunk graph with Node's CommonJS semantics: relative requires, __filename, one instance each", () => {
    chunk('math.cjs', "exports.loads = (exports.loads ?? 0) + 1; exports.twice = (n) => n * 2; require('./cycle.cjs');");
    chunk('cycle.cjs', "const math = require('./math.cjs'); exports.sawPartial = typeof math.twice === 'function';");
    const loader = createBundleLoader(undefined);
    const exports = loader.load(entry()) as { answer(): number; file: string };
    expect(exports.answer()).toBe(42);
    expect(exports.file).toBe(entry());
    expect((loader.load(join(dir, 'chunks', 'math.cjs')) as { loads: number }).loads).toBe(1);
    // A cycle sees the exports built so far, as under require().
    expect((loader.load(join(dir, 'chunks', 'cycle.cjs')) as { sawPartial: boolean }).sawPartial).toBe(true);
  });

  it('runs the chunks a pack holds from it, each as its own module under its own file name, one cache for all', () => {
    // What src/boot/pack-start.ts writes; the chunk file itself is never read (here: it does not exist).
    const pack = join(dir, 'start.cjs');
    writeFileSync(pack, `// ${dir}\nmodule.exports = { "chunks/packed.cjs": function (exports, require, module, __filename, __dirname) {\nexports.where = [__filename, __dirname]; exports.loads = (exports.loads ?? 0) + 1; exports.twice = require('./math.cjs').twice;\n} };`);
    const loader = createBundleLoader(cache);
    loader.usePack(pack);
    const packed = loader.load(join(dir, 'chunks', 'packed.cjs')) as { where: string[]; loads: number; twice(n: number): number };
    expect(packed.where).toEqual([join(dir, 'chunks', 'packed.cjs'), join(dir, 'chunks')]);
    expect(packed.twice(21)).toBe(42); // its requires resolve from its own directory, to files
    expect((loader.load(join(dir, 'chunks', 'packed.cjs')) as { loads: number }).loads).toBe(1);
    loader.flush();
    expect(readdirSync(cache).sort()).toEqual(['math.cjs.default', 'start.cjs.default']);
  });

  it("reads a pack its first pack's \"packs\" entry names only when one of its chunks is required; a missing one costs a read per chunk", () => {
    const pack = join(dir, 'start.cjs');
    writeFileSync(pack, `// ${dir}\nmodule.exports = {\n"packs": {"chunks/late.cjs":"start-late.cjs","chunks/gone.cjs":"start-gone.cjs"},\n"chunks/early.cjs": function (exports, require, module, __filename, __dirname) {\nexports.early = 1;\n}\n};\n`);
    const late = join(dir, 'start-late.cjs');
    writeFileSync(late, `// ${dir}\nmodule.exports = {\n"chunks/late.cjs": function (exports, require, module, __filename, __dirname) {\nexports.where = __filename; exports.twice = require('./math.cjs').twice;\n}\n};\n`);
    // The chunk files of the late pack do not exist: only the pack can run it.
    chunk('gone.cjs', 'exports.fromFile = true;');
    const loader = createBundleLoader(cache);
    loader.usePack(pack);
    expect((loader.load(join(dir, 'chunks', 'early.cjs')) as { early: number }).early).toBe(1);
    loader.flush();
    expect(readdirSync(cache).sort()).toEqual(['start.cjs.default']); // start-late.cjs not read yet
    const fromLate = loader.load(join(dir, 'chunks', 'late.cjs')) as { where: string; twice(n: number): number };
    expect(fromLate.where).toBe(join(dir, 'chunks', 'late.cjs'));
    expect(fromLate.twice(21)).toBe(42);
    expect((loader.load(join(dir, 'chunks', 'gone.cjs')) as { fromFile: boolean }).fromFile).toBe(true);
    loader.flush();
    expect(readdirSync(cache).sort()).toEqual(['gone.cjs.default', 'math.cjs.default', 'start-late.cjs.default', 'start.cjs.default']);
  });

  it('gives bundles node:http2 as an error and child_process only when first used', () => {
    const file = chunk('ext.cjs', "let http2; try { require('node:http2'); } catch (e) { http2 = e.message; } const cp = require('child_process'); exports.http2 = http2; exports.spawn = typeof cp.spawn;");
    const ext = createBundleLoader(undefined).load(file) as { http2: string; spawn: string };
    expect(ext.http2).toBe('gsh does not use HTTP/2');
    expect(ext.spawn).toBe('function');
  });

  it('reports an error at its line in the chunk it comes from', () => {
    const file = chunk('bad.cjs', 'exports.ok = 1;\nthrow new Error("boom");');
    expect(() => createBundleLoader(undefined).load(file)).toThrow(expect.objectContaining({ stack: expect.stringContaining(`${file}:2:`) }));
  });
});

describe('code cache', () => {
  const cacheFiles = () => readdirSync(cache).sort();
  const keyOf = (file: string) => {
    const { size, mtimeMs } = statSync(file);
    return `${size} ${mtimeMs}`;
  };
  const headOf = (name: string) => readFileSync(join(cache, name), 'latin1').split('\n')[0]!.split('\t');
  const keyInCache = (name: string) => headOf(name)[0];

  it('is written at flush for each chunk compiled without one: directory 0700, files 0600, headed by the source key', () => {
    const loader = createBundleLoader(cache);
    expect(answer(loader.load(entry()))).toBe(42);
    expect(() => readdirSync(cache)).toThrow(); // nothing is written before the run ends
    loader.flush();
    expect(cacheFiles()).toEqual(['entry.cjs.default', 'math.cjs.default']);
    expect(statSync(cache).mode & 0o777).toBe(0o700);
    expect(statSync(join(cache, 'math.cjs.default')).mode & 0o777).toBe(0o600);
    expect(keyInCache('math.cjs.default')).toBe(keyOf(join(dir, 'chunks', 'math.cjs')));
  });

  it('a changed source is compiled afresh and its cache replaced; a corrupt cache is rejected, never run', () => {
    const first = createBundleLoader(cache);
    first.load(entry());
    first.flush();
    // Same size, other code, later time: the key no longer matches.
    const math = chunk('math.cjs', 'exports.twice = (n) => n * 3;');
    const later = new Date(Date.now() + 5000);
    utimesSync(math, later, later);
    const second = createBundleLoader(cache);
    expect(answer(second.load(entry()))).toBe(63);
    second.flush();
    expect(keyInCache('math.cjs.default')).toBe(keyOf(math));

    // The right key before bytes that are no code cache: V8 rejects them and the chunk compiles
    // from source. (A source new to this process: V8 would take one it compiled before from memory.)
    chunk('math.cjs', 'exports.twice = (n) => n * 4;');
    utimesSync(math, new Date(Date.now() + 9000), new Date(Date.now() + 9000));
    writeFileSync(join(cache, 'math.cjs.default'), Buffer.concat([Buffer.from(`${keyOf(math)}\n`), Buffer.alloc(64, 7)]));
    const third = createBundleLoader(cache);
    expect(answer(third.load(entry()))).toBe(84);
    third.flush();
    expect(readFileSync(join(cache, 'math.cjs.default')).includes(Buffer.alloc(64, 7))).toBe(false);
    expect(keyInCache('math.cjs.default')).toBe(keyOf(math));
  });

  it('is written again after the first run of each kind of command that loads it, so it holds what each compiled', () => {
    const run = (kind: string) => {
      const loader = createBundleLoader(cache, { kind });
      expect(answer(loader.load(entry()))).toBe(42);
      loader.flush();
      return Object.fromEntries(cacheFiles().map((f) => [f, statSync(join(cache, f)).mtimeMs]));
    };
    const first = run('help');
    expect(headOf('math.cjs.default')).toEqual([keyOf(join(dir, 'chunks', 'math.cjs')), 'help']);
    const again = run('help');
    expect(again).toEqual(first); // a kind it has seen: nothing written
    run('servers');
    expect(headOf('math.cjs.default')).toEqual([keyOf(join(dir, 'chunks', 'math.cjs')), 'help,servers']);
    expect(headOf('entry.cjs.default')[1]).toBe('help,servers');
    // A cache of the format before kinds (the key alone) is used, and learns the kind.
    writeFileSync(join(cache, 'math.cjs.default'), Buffer.concat([Buffer.from(`${keyOf(join(dir, 'chunks', 'math.cjs'))}\n`), readFileSync(join(cache, 'math.cjs.default')).subarray(readFileSync(join(cache, 'math.cjs.default')).indexOf(10) + 1)]));
    run('init');
    expect(headOf('math.cjs.default')[1]).toBe('init');
  });

  it('names its files after the build: two versions run in turn keep a cache each instead of replacing one', () => {
    for (const build of ['00000000000000aa', '00000000000000bb']) {
      const loader = createBundleLoader(cache, { build });
      loader.load(entry());
      loader.flush();
    }
    expect(cacheFiles()).toEqual(['00000000000000aa-entry.cjs.default', '00000000000000aa-math.cjs.default', '00000000000000bb-entry.cjs.default', '00000000000000bb-math.cjs.default']);
  });

  it('a run is of the kind of its first word, or help', () => {
    expect(runKind(['servers', 'list', '--limit', '5'])).toBe('servers');
    expect(runKind(['--json', 'power', 'restart'])).toBe('power');
    expect(runKind(['servers', '--help'])).toBe('help');
    expect(runKind([])).toBe('help');
    expect(runKind(['--version'])).toBe('');
  });

  it('a cache directory that cannot be written costs the cache, nothing else', () => {
    writeFileSync(cache, 'a file where the directory should be');
    const loader = createBundleLoader(cache);
    expect(answer(loader.load(entry()))).toBe(42);
    expect(() => loader.flush()).not.toThrow();
    if (process.getuid?.() !== 0) {
      rmSync(cache);
      mkdirSync(cache, { mode: 0o500 });
      const readOnly = createBundleLoader(cache);
      readOnly.load(entry());
      expect(() => readOnly.flush()).not.toThrow();
      chmodSync(cache, 0o700);
    }
  });

  it('names each cache after the V8 flags its chunk was compiled under, and writes the earlier ones before flags change', () => {
    const set: string[] = [];
    const loader = createBundleLoader(cache, { setFlags: (flags) => set.push(flags) });
    loader.load(join(dir, 'chunks', 'math.cjs'));
    loader.setV8Flags('--liftoff-only');
    expect(set).toEqual(['--liftoff-only']);
    expect(cacheFiles()).toEqual(['math.cjs.default']);
    loader.load(entry());
    loader.flush();
    expect(cacheFiles()).toEqual(['entry.cjs.liftoffonly', 'math.cjs.default']);
  });

  it('removes cache files a month old when it writes', () => {
    mkdirSync(cache);
    const old = new Date(Date.now() - 31 * 24 * 3600_000);
    writeFileSync(join(cache, 'gone-AAAA.cjs.default'), 'x');
    utimesSync(join(cache, 'gone-AAAA.cjs.default'), old, old);
    writeFileSync(join(cache, 'recent-BBBB.cjs.default'), 'x');
    const loader = createBundleLoader(cache);
    loader.load(join(dir, 'chunks', 'math.cjs'));
    loader.flush();
    expect(cacheFiles()).toEqual(['math.cjs.default', 'recent-BBBB.cjs.default']);
  });
});

describe('where the cache lives', () => {
  const version = `code-${process.version}-${process.arch}`;
  it('GSH_CACHE_DIR, else the platform convention; NODE_DISABLE_COMPILE_CACHE turns it off', () => {
    expect(compileCacheDir({ HOME: '/h', GSH_CACHE_DIR: '/c' }, 'linux')).toBe(join('/c', version));
    expect(compileCacheDir({ HOME: '/h', XDG_CACHE_HOME: '/x' }, 'linux')).toBe(join('/x', 'gsh', version));
    expect(compileCacheDir({ HOME: '/h' }, 'linux')).toBe(join('/h', '.cache', 'gsh', version));
    expect(compileCacheDir({ HOME: '/h' }, 'darwin')).toBe(join('/h', 'Library', 'Caches', 'gsh', version));
    expect(compileCacheDir({ HOME: '/h', LOCALAPPDATA: '/l' }, 'win32')).toBe(join('/l', 'gsh', 'Cache', version));
    expect(compileCacheDir({ HOME: '/h', GSH_CACHE_DIR: '/c', NODE_DISABLE_COMPILE_CACHE: '1' }, 'linux')).toBeUndefined();
  });
});
