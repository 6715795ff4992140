import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import '../wasm-flags.js';
import { Exit, GshError, UsageError } from '../errors.js';

// --jq: real jq (1.7.1, compiled to WebAssembly by the jq-wasm package, which inlines the module
// in its JavaScript as base64; the build moves it to bin/dist/jq.wasm, see wasmBytes), loaded
// only when --jq is given. The program is compiled on its
// own before anything is sent, so a bad expression is a usage error (exit 2) and never follows a
// request; errors while running it on the answer exit 1.
//
// The package's own wrapper (`raw()`) cannot take a large input: it hands jq its stdin one byte per
// callback and copies the rest of the input for every byte (`slice(1)`), and grows stdout by a copy
// per character, so its cost is quadratic (5,000 sandbox servers, 1.2 MB of JSON: 80 s, four
// fifths of it in that callback and the rest in the garbage it makes; `--cpu-prof`). So gsh drives
// jq's Emscripten module itself: it instantiates the module's WebAssembly through the factory's
// `instantiateWasm` hook and answers jq's read() of stdin and write() of stdout and stderr from and
// into whole buffers in the module's memory, linear in the input. jq itself, and so its
// semantics, is the same.

interface Run { status: number; stdout: string; stderr: string }
type Engine = (args: string[], input: string) => Run;

// The WebAssembly API as used here (the project's TypeScript libs do not declare it).
interface Instance { exports: Record<string, unknown> }
interface Memory { buffer: ArrayBuffer }
const wasm = (globalThis as unknown as {
  WebAssembly: { instantiate(bytes: Uint8Array, imports: object): Promise<{ instance: Instance }>; Memory: abstract new () => Memory };
}).WebAssembly;

/** The Emscripten factory of jq-wasm 1.0.1 (package.json pins it: the names below are its build's). */
type Factory = (moduleArg: { instantiateWasm(info: { a: Imports }, receive: (instance: Instance) => void): object }) => Promise<{ callMain(args: string[]): number }>;
/** The WASI calls of that build, by their minified import names: fd_write `d`, fd_read `g`. */
interface Imports { d: SysCall; g: SysCall; [name: string]: unknown }
type SysCall = (fd: number, iov: number, iovcnt: number, pnum: number) => number;

let engine: Promise<Engine> | undefined;

function load(): Promise<Engine> {
  if (!engine) {
    engine = import('jq-wasm/dist/build/jq.js').then((m) => start((m as unknown as { default: Factory }).default));
    // A failed start (or an engine left broken, below) is tried afresh next time.
    engine.catch(() => (engine = undefined));
  }
  return engine;
}

/** Starts loading the engine; compileJq() finds it under way or ready. A failure is its to report. */
export function warmUp(): void {
  load().catch(() => undefined);
}

/**
 * The module's WebAssembly. jq-wasm inlines it in the factory's source as a base64 data URI; the
 * build (src/boot/split-jq-wasm.ts) writes it to bin/dist/jq.wasm and leaves it out of the bundled
 * factory: 1.2 MB less of JavaScript to read, search and decode on every --jq (issue 39). Run
 * from source (the tests), the factory still holds it.
 */
function wasmBytes(factory: Factory): Buffer {
  const uri = /data:application\/octet-stream;base64,([A-Za-z0-9+/=]+)/.exec(String(factory));
  if (uri) return Buffer.from(uri[1]!, 'base64');
  try {
    // Beside the bundle: this module is bin/dist/chunks/jq-….cjs there. A path from
    // import.meta.dirname, not a URL from import.meta.url, which would load node:url (version.ts).
    return readFileSync(join(import.meta.dirname, '..', 'jq.wasm'));
  } catch {
    throw new Error('the WebAssembly module of jq is neither in jq-wasm nor beside the bundle (bin/dist/jq.wasm)');
  }
}

async function start(factory: Factory): Promise<Engine> {
  const bytes = wasmBytes(factory);

  let memory: Memory | undefined;
  let input = new Uint8Array(0);
  let read = 0;
  let out: Uint8Array[] = [];
  let err: Uint8Array[] = [];
  // Views of the module's memory, made again only when it has grown (a grown memory has a new
  // buffer). jq reads its input about half a kilobyte a call: over 5,000 servers, making views and
  // an array per iovec on each of the 1,100 calls took about a tenth of the run (issue 39).
  let words = new DataView(new ArrayBuffer(0));
  let heap = new Uint8Array(0);
  const views = () => {
    if (words.buffer !== memory!.buffer) {
      words = new DataView(memory!.buffer);
      heap = new Uint8Array(memory!.buffer);
    }
  };
  /** Where the i-th iovec of an array at `iov` points, and its length. */
  const iovPtr = (iov: number, i: number) => words.getUint32(iov + i * 8, true);
  const iovLen = (iov: number, i: number) => words.getUint32(iov + i * 8 + 4, true);

  let failed: (reason: unknown) => void = () => undefined;
  const instantiateFailed = new Promise<never>((_, reject) => (failed = reject));
  const module = factory({
    instantiateWasm(info, receive) {
      const { d: fdWrite, g: fdRead } = info.a;
      if (typeof fdWrite !== 'function' || typeof fdRead !== 'function') throw new Error('jq-wasm is not the build gsh knows (package.json pins 1.0.1)');
      // jq reads its input from fd 0 (no file is named) and writes to fds 1 and 2.
      info.a.g = (fd, iov, iovcnt, pnum) => {
        if (fd !== 0) return fdRead(fd, iov, iovcnt, pnum);
        views();
        let n = 0;
        for (let i = 0; i < iovcnt; i++) {
          const len = iovLen(iov, i);
          const chunk = input.subarray(read, read + len);
          heap.set(chunk, iovPtr(iov, i));
          read += chunk.length;
          n += chunk.length;
          if (chunk.length < len) break;
        }
        words.setUint32(pnum, n, true);
        return 0;
      };
      info.a.d = (fd, iov, iovcnt, pnum) => {
        if (fd !== 1 && fd !== 2) return fdWrite(fd, iov, iovcnt, pnum);
        views();
        let n = 0;
        for (let i = 0; i < iovcnt; i++) {
          const ptr = iovPtr(iov, i);
          const len = iovLen(iov, i);
          (fd === 1 ? out : err).push(heap.slice(ptr, ptr + len));
          n += len;
        }
        words.setUint32(pnum, n, true);
        return 0;
      };
      wasm.instantiate(bytes, info).then(({ instance }) => {
        memory = Object.values(instance.exports).find((e): e is Memory => e instanceof wasm.Memory);
        receive(instance);
      }, failed);
      return {};
    },
  });
  const jq = await Promise.race([module, instantiateFailed]);
  const text = (chunks: Uint8Array[]) => Buffer.concat(chunks).toString('utf8');

  return (args, json) => {
    input = Buffer.from(json, 'utf8');
    read = 0;
    out = [];
    err = [];
    // Emscripten sets process.exitCode to jq's status as it returns; only src/cli.ts may touch process.
    const exitCode = process.exitCode;
    let status: number;
    try {
      status = jq.callMain(['-M', ...args]);
    } catch (e) {
      // A trap (out of memory, stack overflow) may leave the module broken: start afresh next time.
      engine = undefined;
      throw e;
    } finally {
      process.exitCode = exitCode;
      input = new Uint8Array(0);
    }
    return { status, stdout: text(out), stderr: text(err) };
  };
}

export interface JqFilter {
  /** Every output of the program for one input, in order. */
  apply(input: unknown): Promise<unknown[]>;
}

/** jq's own message without its "jq: error (at …):" prefix or the "N compile error(s)" trailer. */
function messageOf(stderr: string): string {
  return stderr
    .split('\n')
    .filter((l) => l.trim() !== '' && !/^jq: \d+ compile errors?$/.test(l))
    .join(' ')
    .replace(/^jq: error(?: \(at [^)]*\))?: /, '');
}

const isCompileError = (r: Run): boolean => r.status !== 0 && /compile error/.test(r.stderr);

/**
 * Compiles `expr` without running it: as the body of a function called only after `empty`, with no
 * input (`-n`), so only a syntax or compile error can come back (the newline keeps a trailing
 * `# comment` from swallowing the wrapper). jq's message is then taken from compiling the
 * expression alone, so its position and wording are the user's, not the wrapper's.
 */
export async function compileJq(expr: string): Promise<JqFilter> {
  const jq = await load();
  const wrapped = jq(['-n', `def __gsh_compile_check: (\n${expr}\n); empty | __gsh_compile_check`], '');
  if (wrapped.status !== 0) {
    if (!isCompileError(wrapped)) throw new GshError(`jq: ${messageOf(wrapped.stderr)}`, Exit.error);
    // It does not compile, so running it alone cannot get past compiling either.
    const alone = jq(['-n', expr], '');
    throw new UsageError(`--jq: ${messageOf(isCompileError(alone) ? alone.stderr : wrapped.stderr)}`, 'See the jq manual for the language: https://jqlang.org/manual/v1.7/');
  }
  return {
    async apply(input) {
      let run: Run;
      try {
        run = (await load())(['-c', expr], JSON.stringify(input ?? null));
      } catch (err) {
        throw new GshError(`jq: ${err instanceof Error ? err.message : String(err)}`, Exit.error);
      }
      // jq's status, as its command line would end: an error after some outputs is still an error.
      if (run.status !== 0) throw new GshError(`jq: ${messageOf(run.stderr) || `exit status ${run.status}`}`, Exit.error);
      // Compact output: one JSON text per line (newlines inside strings are escaped).
      return run.stdout.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as unknown);
    },
  };
}

/** stdout text: strings raw, other values as JSON (indented on a terminal), one per line. */
export function renderJq(values: readonly unknown[], pretty: boolean): string {
  return values.map((v) => `${typeof v === 'string' ? v : JSON.stringify(v, null, pretty ? 2 : undefined)}\n`).join('');
}
