import { fstatSync, readFileSync, statSync, writeSync } from 'node:fs';
import { join, sep } from 'node:path';
import type { Script } from 'node:vm';
import { describeProblem, makePrivateDir, privateDirProblem, readPrivateFile, removeOld, replaceFile } from '../core/disk/disk.js';
import { IDLE_EVENT, V8_FLAGS_EVENT } from '../core/v8-flags.js';
import { buildId, COMMAND_WORD, helpCacheFile, keepHelp, readHelp } from './help-cache.js';

// Loads the bundle (bin/dist/*.cjs, CommonJS chunks) the way Node's own CommonJS loader would, plus a
// V8 code cache: each chunk's compiled code is written to the user's cache directory after the run
// that first loaded it (so it holds every function that run compiled, not just the top level),
// and later runs start from it instead of parsing and compiling again. A chunk shared by many
// commands (the start pack above all) is written again after the first run of each kind of
// command that loads it (its word, or help), so it holds what each compiled: a cache written by
// `gsh servers --help` alone left `gsh servers list` compiling a twentieth of its start anew on
// every run. Node 22 has
// this built in (module.enableCompileCache); gsh supports Node 20, which has only vm.Script's
// cachedData. A missing, unreadable, stale or rejected cache costs one ordinary compile, never an
// error. The launcher (bin/gsh.js) is the only user; nothing here imports the CLI.

// Modules beyond node:fs and node:path are fetched when first used: a help printed from the help
// cache needs no node:vm. Built-in modules come from process.getBuiltinModule, not from a require
// made with node:module's createRequire: loading node:module was a hundredth of `servers list`.
/** A built-in module (the bundle has no other dependencies); throws as require would for any other. */
function builtin(id: string): unknown {
  const module: unknown = process.getBuiltinModule(id);
  if (module === undefined) throw Object.assign(new Error(`Cannot find module '${id}'`), { code: 'MODULE_NOT_FOUND' });
  return module;
}

/** Cached code of each chunk lives under <cache dir>/code-<node version>-<arch>/. */
export function compileCacheDir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string | undefined {
  // Node's own switch for its compile cache turns this one off too.
  if (env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  // node:os only when HOME is unset: one module fewer on every start.
  const home = env.HOME || (builtin('node:os') as typeof import('node:os')).homedir();
  const root = env.GSH_CACHE_DIR
    || (platform === 'win32' ? join(env.LOCALAPPDATA || join(home, 'AppData', 'Local'), 'gsh', 'Cache')
      : platform === 'darwin' ? join(home, 'Library', 'Caches', 'gsh')
        : join(env.XDG_CACHE_HOME || join(home, '.cache'), 'gsh'));
  return join(root, `code-${process.version}-${process.arch}`);
}

/**
 * The build id, written into bin/dist/loader.cjs by the build (src/boot/stamp-build.ts replaces
 * this placeholder), so a start does not read bin/dist/build-id; from the sources (tests) the
 * file is read.
 */
const STAMPED_BUILD_ID: string = '@@gsh-build-id@@-';

/** A cache file older than this is removed when caches are written (old versions' chunks). */
const STALE_MS = 30 * 24 * 3600_000;

/** Most kinds of run one cache is rewritten for; past them it stays as it is. */
const MAX_KINDS = 24;

/**
 * The kind of run a command line is, as far as what it compiles goes: `help` for any help, else
 * its first word (`servers`, `init`, `version`); '' when it has none. A flag's value that looks
 * like a word (`--profile prod servers`) costs one more rewrite, nothing else.
 */
export function runKind(argv: readonly string[]): string {
  if (argv.length === 0 || argv.includes('--help') || argv.includes('-h')) return 'help';
  return argv.find((a) => COMMAND_WORD.test(a)) ?? '';
}

interface Compiled {
  script: Script;
  /** Where its cache goes: the chunk's name and the V8 flags it was compiled under. */
  cacheFile: string;
  /** Identifies the source the cache was made from: size and modification time. */
  key: string;
  /** The kinds of run whose compiled code the cache will hold. */
  kinds: string[];
}

/** A chunk as CommonJS wraps it. */
type ChunkFunction = (exports: unknown, require: (id: string) => unknown, module: object, __filename: string, __dirname: string) => void;

export interface BundleLoader {
  /** Runs a bundle file (once; later calls return its exports) and returns its exports. */
  load(file: string): unknown;
  /**
   * Runs a pack (bin/dist/start.cjs, written by src/boot/pack-start.ts: `{ "chunks/x.cjs": function
   * (exports, require, module, __filename, __dirname) {…} }`); the chunks it holds are then run
   * from it, each still as its own module under its own file name. The chunks every command loads
   * are packed: one source and one code cache to read and deserialise instead of fifteen. A pack's
   * `"packs": { "chunks/y.cjs": "start-leaf.cjs" }` names the pack of chunks it does not hold: that
   * pack is read when the first of them is required.
   */
  usePack(file: string): void;
  /** Writes the code cache of every chunk compiled without one, or run by a kind its cache lacks. Runs at exit. */
  flush(): void;
  /** Changes V8's flags, first writing the caches of chunks compiled under the old ones. */
  setV8Flags(flags: string): void;
}

// Loaded only when asked for: node:v8 costs a few milliseconds and most commands never ask.
const setFlagsFromString = (flags: string): void =>
  (builtin('node:v8') as typeof import('node:v8')).setFlagsFromString(flags);

export interface LoaderOptions {
  /** Sets V8's flags (node:v8's setFlagsFromString by default). */
  setFlags?(flags: string): void;
  /** The kind of run (runKind): a cache that has not seen it is written again. */
  kind?: string;
  /**
   * The bundle's build id (bin/dist/build-id), which every cache file name starts with: the pack
   * and the entry have the same names in every version, so two versions run in turn (a global
   * install and `npx gsh@…`) would otherwise replace each other's caches on every run.
   */
  build?: string;
}

export function createBundleLoader(cacheDir: string | undefined, { setFlags = setFlagsFromString, kind = '', build }: LoaderOptions = {}): BundleLoader {
  const prefix = build ? `${build}-` : '';
  const modules = new Map<string, { exports: unknown }>();
  // Chunks of this run, under the current V8 flags, whose cache is to be written: compiled without
  // a usable one, or run by a kind of command their cache has not seen.
  let toWrite: Compiled[] = [];
  // V8 rejects a cache made under other flags. Flags change once per run at most (when the HTTP
  // client loads), so a chunk's cache is named after the flags it was compiled under, and the
  // caches of chunks compiled before the change are written just before it.
  let flags = 'default';

  function write({ script, cacheFile, key, kinds }: Compiled): void {
    replaceFile(cacheFile, Buffer.concat([Buffer.from(`${key}\t${kinds.join(',')}\n`), script.createCachedData()]));
  }

  function flush(): void {
    if (!cacheDir || toWrite.length === 0) return;
    const pending = toWrite;
    toWrite = [];
    try {
      // A directory someone else made or can write to meanwhile is left alone (core/disk/disk.ts).
      if (makePrivateDir(cacheDir) !== undefined) return;
      for (const compiled of pending) write(compiled);
      removeOld(cacheDir, Date.now() - STALE_MS);
    } catch {
      // A read-only or full disk only means the next run compiles again.
    }
  }

  // Paths are put together by hand, not with node:path: esbuild's ids are plain ("./chunk-X.cjs",
  // "./chunks/x.cjs", never ".."), and the dozens of path.join/dirname calls of one start made V8
  // compile path's normalizeString with TurboFan in every run (--trace-opt): a background compile
  // that cost more CPU and peak memory (~1 MiB) than the join did (issue 39). Each directory and
  // id is resolved once all the same.
  const resolved = new Map<string, string>();
  function resolve(dir: string, id: string): string {
    const key = `${dir}\0${id}`;
    let file = resolved.get(key);
    if (file === undefined) resolved.set(key, (file = /^\.\/(?!.*\.\.)/.test(id) ? dir + sep + id.slice(2).replaceAll('/', sep) : join(dir, id)));
    return file;
  }

  // Chunks of the packs read (see usePack), by file: run from them, never read on their own.
  const packed = new Map<string, ChunkFunction>();
  // Chunks of the packs not read yet, by file: the pack that holds each (a pack's "packs" entry).
  const inPack = new Map<string, string>();

  function usePack(file: string): void {
    const dir = file.slice(0, Math.max(file.lastIndexOf('/'), file.lastIndexOf(sep)));
    for (const [id, entry] of Object.entries(load(file) as Record<string, ChunkFunction | Record<string, string>>)) {
      if (typeof entry === 'function') packed.set(resolve(dir, `./${id}`), entry);
      else if (id === 'packs') for (const [chunk, pack] of Object.entries(entry)) inPack.set(resolve(dir, `./${chunk}`), resolve(dir, `./${pack}`));
    }
  }

  /** The chunk from the pack that holds it, read now if it was not; undefined when none does. */
  function fromPack(file: string): ChunkFunction | undefined {
    const pack = inPack.get(file);
    if (pack === undefined) return undefined;
    inPack.delete(file);
    // A missing pack (bin/dist/ copied in part) costs each of its chunks read on its own.
    if (!modules.has(pack)) {
      try {
        usePack(pack);
      } catch (err) {
        modules.delete(pack);
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
    return packed.get(file);
  }

  /** The chunk's source compiled (from its cache when there is one) to its CommonJS wrapper. */
  function compile(file: string, slash: number): ChunkFunction {
    const source = readFileSync(file, 'utf8');
    const { size, mtimeMs } = statSync(file);
    const key = `${size} ${mtimeMs}`;
    const cacheFile = cacheDir ? `${cacheDir}${sep}${prefix}${file.slice(slash + 1)}.${flags}` : '';
    const cached = cacheDir ? readCache(cacheFile, key) : undefined;
    const script = new (process.getBuiltinModule('node:vm').Script)(`(function (exports, require, module, __filename, __dirname) {\n${source}\n})`, {
      filename: file, lineOffset: -1, ...(cached ? { cachedData: cached.data } : {}),
    });
    if (cacheDir && (!cached || script.cachedDataRejected)) toWrite.push({ script, cacheFile, key, kinds: [kind] });
    else if (cached && !cached.kinds.includes(kind) && cached.kinds.length < MAX_KINDS) toWrite.push({ script, cacheFile, key, kinds: [...cached.kinds, kind] });
    return script.runInThisContext() as ChunkFunction;
  }

  function load(file: string): unknown {
    const known = modules.get(file);
    if (known) return known.exports;
    const module = { exports: {} as unknown, id: file, filename: file, loaded: false };
    modules.set(file, module);
    const slash = Math.max(file.lastIndexOf('/'), file.lastIndexOf(sep));
    const fn = packed.get(file) ?? fromPack(file) ?? compile(file, slash);
    const dir = file.slice(0, slash);
    const require = (id: string) => (id.startsWith('.') ? load(resolve(dir, id)) : external(id));
    fn.call(module.exports, module.exports, require, module, file, dir);
    module.loaded = true;
    return module.exports;
  }

  function setV8Flags(wanted: string): void {
    flush();
    setFlags(wanted);
    flags = wanted.replace(/[^a-z0-9]+/gi, '');
  }

  return { load, usePack, flush, setV8Flags };
}

/** A bundle's require of anything but its own chunks: only Node's built-in modules. */
function external(id: string): unknown {
  // undici loads node:http2 at import time and gsh never speaks HTTP/2; undici does without it.
  if (/^(node:)?http2$/.test(id)) throw new Error('gsh does not use HTTP/2');
  // Required at import time by bundled packages, used by few commands: loaded on first use.
  if (/^(node:)?child_process$/.test(id)) return new Proxy({}, { get: (_, key) => (builtin(id) as Record<string | symbol, unknown>)[key] });
  return builtin(id);
}

/**
 * The cache of a source with this key and the kinds of run it holds the code of, or undefined
 * (missing, unreadable, or of another source). Its first line is `<key>\t<kind>,<kind>…`.
 */
function readCache(cacheFile: string, key: string): { data: Buffer; kinds: string[] } | undefined {
  // Compiled code runs as gsh: only a plain file of the user's own, in the checked directory.
  const bytes = readPrivateFile(cacheFile);
  if (bytes === undefined) return undefined;
  const newline = bytes.indexOf(10);
  if (newline === -1) return undefined;
  const [head, kinds] = bytes.toString('latin1', 0, newline).split('\t');
  return head === key ? { data: bytes.subarray(newline + 1), kinds: kinds ? kinds.split(',') : [] } : undefined;
}

/** What the CLI's main() takes besides argv (src/cli.ts). */
interface MainOptions {
  keepOutput?(text: string): void;
}
type Cli = { main(argv: string[], options?: MainOptions): Promise<number> };

/** Loads the CLI bundle (bin/dist/cli.cjs) and writes new caches when the process exits. */
function loadCli(entry: string, cacheDir: string | undefined, options: LoaderOptions): Cli {
  const loader = createBundleLoader(cacheDir, options);
  process.once('exit', () => loader.flush());
  try {
    loader.usePack(entry.slice(0, -'cli.cjs'.length) + 'start.cjs');
  } catch (err) {
    // A bundle without its pack (bin/dist/ committed from a build older than the pack) still runs:
    // each chunk from its own file.
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  // core/wasm-flags.ts asks for its V8 flags through this event while the loader is in charge.
  (process as NodeJS.EventEmitter).on(V8_FLAGS_EVENT, (flags: string) => loader.setV8Flags(flags));
  // A wait's pause: the caches are written then, not after its last line (core/v8-flags.ts).
  (process as NodeJS.EventEmitter).once(IDLE_EVENT, () => loader.flush());
  return loader.load(entry) as Cli;
}

/** The width commander wraps help to: the terminal's, or 80 when stdout is not one. */
function helpWidth(): number {
  // node:tty and process.stdout cost ~3 ms (they load node:net); only a character device can be
  // a terminal, so a pipe, a file or /dev/null is answered without them.
  try {
    const out = fstatSync(1);
    if (!out.isCharacterDevice() || (process.platform !== 'win32' && out.rdev === statSync('/dev/null').rdev)) return 80;
  } catch {
    return 80;
  }
  return (builtin('node:tty') as typeof import('node:tty')).isatty(1) ? process.stdout.columns || 80 : 80;
}

/**
 * The launcher's entry: runs one command line with the bundle in `dist`. A plain help request
 * whose text this build already printed at this width is printed from the help cache
 * (src/boot/help-cache.ts); any other, and the first, runs the CLI, which hands a help back to keep.
 */
export function runCli(dist: string, argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const cacheDir = checkedCacheDir(compileCacheDir(env));
  const build = cacheDir === undefined ? undefined : STAMPED_BUILD_ID.length === 16 ? STAMPED_BUILD_ID : buildId(dist);
  const helpFile = helpCacheFile(argv, build, cacheDir, helpWidth);
  const kept = helpFile === undefined ? undefined : readHelp(helpFile);
  if (kept !== undefined) return Promise.resolve(printKept(kept));
  const cli = loadCli(`${dist}${sep}cli.cjs`, cacheDir, { kind: runKind(argv), build });
  return cli.main(argv, helpFile === undefined ? undefined : { keepOutput: (text) => keepHelp(helpFile, text) });
}

/**
 * The cache directory when it may be used: the user's own, written by no one else, as ssh wants
 * ~/.ssh (core/disk/disk.ts privateDirProblem). Another user who can put files in it could have a help
 * print escape sequences, or have gsh run compiled code of theirs; so it is not used, with one
 * line on stderr, and gsh runs without its caches.
 */
function checkedCacheDir(cacheDir: string | undefined): string | undefined {
  if (cacheDir === undefined) return undefined;
  const problem = privateDirProblem(cacheDir);
  if (problem === undefined) return cacheDir;
  try {
    writeSync(2, `gsh: warning: caches not used: ${describeProblem(problem)}\n`);
  } catch {
    // stderr gone: the warning with it.
  }
  return undefined;
}

/** Writes a kept help to stdout as the CLI would: a reader that went away is no error (exit 0). */
function printKept(text: string): number {
  const bytes = Buffer.from(text);
  let done = 0;
  try {
    while (done < bytes.length) done += writeSync(1, bytes, done);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EPIPE') return 0;
    // A non-blocking pipe that is full: the stream waits for the reader.
    if (code === 'EAGAIN') {
      process.stdout.write(bytes.subarray(done));
      return 0;
    }
    process.stderr.write(`gsh: cannot write to standard output: ${code ?? (err as Error).message}\n`);
    return 1;
  }
  return 0;
}
