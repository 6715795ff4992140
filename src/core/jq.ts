import { Exit, GshError, UsageError } from './errors.js';

// --jq: real jq (1.7.1, compiled to WebAssembly by the jq-wasm package, its module inlined in one
// file that the bundle carries), loaded only when --jq is given. The program is compiled on its
// own before anything is sent, so a bad expression is a usage error (exit 2) and never follows a
// request; errors while running it on the answer exit 1.

type Engine = { raw(input: string, filter: string, flags: string[]): Promise<string> };

let engine: Promise<Engine> | undefined;

function load(): Promise<Engine> {
  // `default`: a bundled dynamic import of a CommonJS package exposes only module.exports.
  engine ??= import('jq-wasm').then((m) => (m as unknown as { default: Engine }).default);
  return engine;
}

export interface JqFilter {
  /** Every output of the program for one input, in order. */
  apply(input: unknown): Promise<unknown[]>;
}

/** jq's own message without the wrapper's prefix or the "N compile error(s)" trailer. */
function messageOf(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text
    .split('\n')
    .filter((l) => l.trim() !== '' && !/^jq: \d+ compile errors?$/.test(l))
    .join(' ')
    .replace(/^jq: error(?: \(at [^)]*\))?: /, '');
}

const isCompileError = (err: unknown): boolean => /compile error/.test(err instanceof Error ? err.message : String(err));

/**
 * Compiles `expr` without running it: as the body of a function called only after `empty`, with no
 * input (`-n`), so only a syntax or compile error can come back (the newline keeps a trailing
 * `# comment` from swallowing the wrapper). jq's message is then taken from compiling the
 * expression alone, so its position and wording are the user's, not the wrapper's.
 */
export async function compileJq(expr: string): Promise<JqFilter> {
  const jq = await load();
  const fail = (err: unknown) => new UsageError(`--jq: ${messageOf(err)}`, 'See the jq manual for the language: https://jqlang.org/manual/v1.7/');
  const wrapped = await jq.raw('null', `def __gsh_compile_check: (\n${expr}\n); empty | __gsh_compile_check`, ['-n']).then(() => undefined, (err: unknown) => err);
  if (wrapped !== undefined) {
    if (!isCompileError(wrapped)) throw wrapped;
    // It does not compile, so running it alone cannot get past compiling either.
    const alone = await jq.raw('null', expr, ['-n']).then(() => undefined, (err: unknown) => err);
    throw fail(alone !== undefined && isCompileError(alone) ? alone : wrapped);
  }
  return {
    async apply(input) {
      let out: string;
      try {
        out = await jq.raw(JSON.stringify(input ?? null), expr, ['-c']);
      } catch (err) {
        throw new GshError(`jq: ${messageOf(err)}`, Exit.error);
      }
      // Compact output: one JSON text per line (newlines inside strings are escaped).
      return out.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as unknown);
    },
  };
}

/** stdout text: strings raw, other values as JSON (indented on a terminal), one per line. */
export function renderJq(values: readonly unknown[], pretty: boolean): string {
  return values.map((v) => `${typeof v === 'string' ? v : JSON.stringify(v, null, pretty ? 2 : undefined)}\n`).join('');
}
