import { readFileSync } from 'node:fs';
import { UsageError } from '../errors.js';

// Request fields from the command line, as gh api does: `-f key=value` always a string,
// `-F key=value` typed (true/false/null/numbers, `@file`, `@-` for stdin), nested keys `a[b]=`
// and array appends `a[]=`. The same parser feeds `gsh api` and every command with a body.

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type JsonObject = { [k: string]: Json };

export interface FieldSources {
  raw?: readonly string[];
  typed?: readonly string[];
  readStdin?: () => string;
}

/** `a[b][]` → ['a', 'b', ''] (empty part = append). */
export function parseKeyPath(key: string): string[] {
  const m = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
  if (!m) throw new UsageError(`invalid field name "${key}"`, 'Use key, a[b] or a[] forms.');
  const parts = [m[1] as string];
  for (const seg of (m[2] ?? '').matchAll(/\[([^[\]]*)\]/g)) parts.push(seg[1] ?? '');
  return parts;
}

export function setPath(target: JsonObject, path: readonly string[], value: Json): void {
  let cur: JsonObject | Json[] = target;
  for (let i = 0; i < path.length; i++) {
    const part = path[i] as string;
    const last = i === path.length - 1;
    const nextIsAppend = path[i + 1] === '';
    if (Array.isArray(cur)) {
      if (part !== '') throw new UsageError(`cannot mix list and object at "${path.join('.')}"`);
      if (last) cur.push(value);
      else {
        const child: JsonObject | Json[] = nextIsAppend ? [] : {};
        cur.push(child);
        cur = child;
      }
      continue;
    }
    if (part === '') throw new UsageError(`"[]" must follow a name in "${path.join('')}"`);
    if (last) {
      cur[part] = value;
      continue;
    }
    const existing: Json | undefined = cur[part];
    if (existing !== undefined && existing !== null && typeof existing === 'object') {
      cur = existing;
    } else {
      const child: JsonObject | Json[] = nextIsAppend ? [] : {};
      cur[part] = child;
      cur = child;
    }
  }
}

function splitAssignment(arg: string, flag: string): [string, string] {
  const eq = arg.indexOf('=');
  if (eq <= 0) throw new UsageError(`${flag} expects key=value, got "${arg}"`);
  return [arg.slice(0, eq), arg.slice(eq + 1)];
}

/** -F's typing: literals, numbers, @file and @- (stdin); anything else stays a string. */
export function typedValue(raw: string, readStdin?: () => string): Json {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (raw === 'null') return null;
  if (/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(raw)) return Number(raw);
  if (raw.startsWith('@')) {
    const file = raw.slice(1);
    if (file === '-') {
      if (!readStdin) throw new UsageError('@- can be used once, for standard input');
      return readStdin();
    }
    try {
      return readFileSync(file, 'utf8');
    } catch (err) {
      throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  return raw;
}

export function parseFields(sources: FieldSources, into: JsonObject = {}): JsonObject {
  for (const arg of sources.raw ?? []) {
    const [k, v] = splitAssignment(arg, '-f');
    setPath(into, parseKeyPath(k), v);
  }
  for (const arg of sources.typed ?? []) {
    const [k, v] = splitAssignment(arg, '-F');
    setPath(into, parseKeyPath(k), typedValue(v, sources.readStdin));
  }
  return into;
}

/**
 * Standard input as text, read once while planning (before anything is sent) when some value
 * names it (`--input -`, `-F k=@-`, `--x-file -`), and handed to at most one of them.
 */
export class StdinText {
  private used = false;
  constructor(private readonly text: string | undefined) {}

  take(): string {
    if (this.used) throw new UsageError('standard input can be read only once (by one --input -, @- or - value)');
    if (this.text === undefined) throw new UsageError('standard input was not read for this value');
    this.used = true;
    return this.text;
  }

  /** The same input, as far as it is unused, for another plan of the command line (each fleet target has one). */
  clone(): StdinText {
    const copy = new StdinText(this.text);
    copy.used = this.used;
    return copy;
  }
}

/** Whether any flag value names standard input: `-`, `@-`, or `key=@-`. */
export function namesStdin(values: readonly unknown[]): boolean {
  return values.flat().some((v) => typeof v === 'string' && (v === '-' || v === '@-' || v.endsWith('=@-')));
}

/**
 * Reads stdin when the flag values name it (see StdinText). Given as a getter: the real stdin is
 * a stream built on first use, a cost (a socket for a pipe) most commands never need to pay.
 */
export async function stdinFor(values: readonly unknown[], stdin: () => NodeJS.ReadableStream): Promise<StdinText> {
  if (!namesStdin(values)) return new StdinText(undefined);
  const { readAll } = await import('../terminal/streams.js');
  return new StdinText((await readAll(stdin())).toString('utf8'));
}

/** --input FILE|-: a JSON document to send as the body. */
export function readInputBody(file: string, stdin: StdinText): Json {
  const text = file === '-' ? stdin.take() : readInputFile(file);
  try {
    return JSON.parse(text) as Json;
  } catch (err) {
    throw new UsageError(`--input ${file} is not valid JSON: ${(err as Error).message}`);
  }
}

function readInputFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/** commander argument parser for repeatable flags (-f, -F, -H, string lists). */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
