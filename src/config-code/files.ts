// Declaration files (README "Configuration as code"): read, linted (the schema through the init
// linter's walker, then the checks a schema cannot say), and resolved into what each server
// declares. Offline: nothing here sends a request.

import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isMap, isScalar, parseDocument, type Document, type Node, type Pair } from 'yaml';
import { UsageError } from '../core/errors.js';
import { formatPath, type PathSegment } from '../init/field-path.js';
import { LineIndex } from '../init/line-index.js';
import type { Problem, Span } from '../init/problem.js';
import { compareProblems } from '../init/problem.js';
import { RULES, type RuleId } from '../init/rules.js';
import { Walker } from '../init/walk.js';
import { didYouMeanText } from '../core/flags/choices.js';
import { ENV_REF, type Items } from './kind.js';
import { KIND_NAMES, KINDS } from './kinds/index.js';
import { MAX_DEPTH, tooDeepAt } from '../init/lint.js';
import { readDeclaration } from './input-limits.js';
import { FILE_SCHEMA, SECTIONS } from './schema.js';

export type { Scalar } from './kind.js';
export type { Items };

/**
 * What one server declares, after merging: each declared kind's section, normalised by its kind
 * (kinds absent are not managed), and the paths never compared.
 */
export interface Declaration {
  sections: Record<string, unknown>;
  ignore?: string[];
}

type Block = Record<string, unknown>;

export interface DeclFile {
  path: string;
  lines: LineIndex;
  problems: Problem[];
  /** One server (`server:` / `id:`) or a fleet (`servers:`). */
  server?: string;
  id?: string;
  /** The server file's block, or the fleet's defaults. */
  block: Block;
  /** Fleet entries in file order: key (name or glob) and block. */
  entries: Array<[string, Block]>;
  fleet: boolean;
  /** A file of the account's kinds (no server): their sections and its ignore. */
  account?: Block;
}

export { ENV_REF };

const isPattern = (key: string) => /[*?[\]{}]/.test(key);

/** Every .yaml / .yml file the paths name (a directory: its own files, sorted), each once. */
export function expandPaths(paths: readonly string[]): string[] {
  if (!paths.length) throw new UsageError('give one or more declaration files or directories', 'Example: gsh config diff servers/');
  const out: string[] = [];
  for (const p of paths) {
    let st;
    try {
      st = statSync(p);
    } catch (err) {
      throw new UsageError(`cannot read ${p}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (err as Error).message}`);
    }
    if (st.isDirectory()) {
      const found = readdirSync(p).filter((n) => /\.ya?ml$/.test(n) && !n.startsWith('.')).sort().map((n) => join(p, n));
      if (!found.length) throw new UsageError(`${p} holds no .yaml or .yml file`);
      out.push(...found);
    } else out.push(p);
  }
  return [...new Set(out)];
}

/** Reads and lints one file (problems carry file lines). */
export function loadFile(path: string): DeclFile {
  return lintText(path, readDeclaration(path));
}

export function lintText(path: string, text: string): DeclFile {
  const lines = new LineIndex(text);
  const problems: Problem[] = [];
  const at = (rule: RuleId, segs: readonly PathSegment[], span: Span, message: string) => {
    const a = lines.position(span.start);
    const b = lines.position(Math.max(span.end, span.start + 1));
    problems.push({ severity: RULES[rule].severity, rule, path: formatPath(segs), line: a.line, column: a.column, endLine: b.line, endColumn: b.column, message });
  };
  const file: DeclFile = { path, lines, problems, block: {}, entries: [], fleet: false };
  const whole = { start: 0, end: Math.min(text.length, Math.max(1, text.indexOf('\n'))) };
  const deep = tooDeepAt(text);
  if (deep !== undefined) {
    at('too-deep', [], { start: deep, end: deep + 1 }, `the YAML nests more than ${MAX_DEPTH} levels deep here; a declaration never needs that`);
    return file;
  }
  const doc = parseDocument(text, { uniqueKeys: false });
  for (const e of doc.errors) at('yaml-syntax', [], { start: e.pos[0], end: e.pos[1] }, e.message.split('\n')[0] ?? e.message);
  if (doc.errors.length) return file;
  if (!isMap(doc.contents)) {
    at('not-a-map', [], whole, 'a declaration file is a map: version: 1, then server: or servers:');
    return file;
  }
  const walker = new Walker(doc, text, 'paid', (rule, segs, span, message) => {
    if (rule !== 'env-name') at(rule, segs, span, message);
  });
  const value = walker.walk(FILE_SCHEMA, doc.contents as Node, [], whole) as Block | undefined;
  if (!value) return file;
  const spanOf = (segs: PathSegment[]): Span => keySpan(doc, segs) ?? whole;

  const fleet = value.servers !== undefined || value.defaults !== undefined;
  file.fleet = fleet;
  const accountKinds = KINDS.filter((k) => k.account && value[k.name] !== undefined).map((k) => k.name);
  const serverless = !fleet && value.server === undefined && value.id === undefined;
  if (fleet && value.server !== undefined) at('one-of', ['server'], spanOf(['server']), 'a file manages one server (server:) or a fleet (servers:), not both');
  if (serverless && !accountKinds.length) at('required', ['server'], whole, 'name the server this file manages (server: NAME), or give servers: for a fleet');
  if (serverless && accountKinds.length) {
    file.account = Object.fromEntries([...accountKinds, 'ignore'].filter((k) => value[k] !== undefined).map((k) => [k, value[k]]));
    checkBlock(file.account, [], false);
    problems.sort(compareProblems);
    return file;
  }
  for (const k of accountKinds) at('unknown-key', [k], spanOf([k]), `\`${k}\` belongs to the account, not to a server: declare it in a file of its own (version: 1 and ${k}:, without server:, id: or servers:)`);
  if (fleet) {
    if (value.id !== undefined) at('unknown-key', ['id'], spanOf(['id']), '`id` pins a one-server file; a fleet file names its servers under servers:');
    for (const k of Object.keys(SECTIONS)) {
      if (value[k] !== undefined) at('unknown-key', [k], spanOf([k]), `\`${k}\` at the top of a fleet file: put it under defaults: (every server) or under servers: NAME`);
    }
    file.block = (value.defaults as Block | undefined) ?? {};
    checkBlock(file.block, ['defaults'], false);
    for (const [key, block] of Object.entries((value.servers as Record<string, Block> | undefined) ?? {})) {
      file.entries.push([key, block ?? {}]);
      if (isPattern(key)) checkGlob(key);
      checkBlock(block ?? {}, ['servers', key], false);
    }
  } else {
    if (typeof value.server === 'string') file.server = value.server;
    if (typeof value.id === 'string') file.id = value.id;
    file.block = Object.fromEntries(Object.keys(SECTIONS).filter((k) => value[k] !== undefined).map((k) => [k, value[k]]));
    checkBlock(file.block, [], value.id !== undefined);
  }
  problems.sort(compareProblems);
  return file;

  function checkGlob(key: string): void {
    // picomatch compiles a pattern it cannot make sense of ([z-a]) to a regular expression that
    // matches nothing.
    const re = compileGlob(key);
    if (re === undefined || re.source === '$^') at('enum', ['servers', key], spanOf(['servers', key]), `the glob \`${key}\` can never match a server name`);
  }

  function checkBlock(block: Block, base: PathSegment[], pinned: boolean): void {
    const report = (rule: RuleId, segs: PathSegment[], message: string) => at(rule, segs, spanOf(segs), message);
    for (const kind of KINDS) if (block[kind.name] !== undefined) kind.check?.(block[kind.name], { base, pinned, file: path, report });
    const ignore = (block.ignore as unknown[] | undefined) ?? [];
    ignore.forEach((p, i) => {
      if (typeof p !== 'string') return;
      const kind = p.split(/[.[]/)[0] ?? '';
      if (!KIND_NAMES.includes(kind)) at('enum', [...base, 'ignore', i], spanOf([...base, 'ignore', i]), `ignore path \`${p}\` names no kind${didYouMeanText(kind, KIND_NAMES)} (kinds: ${KIND_NAMES.join(', ')})`);
      // A plain key of a kind's map declared and also ignored (`x.k` where the file has x: {k: …}).
      const rest = p.slice(kind.length + 1);
      const section = block[kind];
      if (p[kind.length] === '.' && rest && !/[.[]/.test(rest) && section !== null && typeof section === 'object' && !Array.isArray(section) && (section as Block)[rest] !== undefined && typeof (section as Block)[rest] !== 'object') {
        at('duplicate-entry', [...base, kind, rest], spanOf([...base, kind, rest]), `${p} is declared and also ignored: one of the two is a mistake`);
      }
    });
  }
}

function compileGlob(key: string): RegExp | undefined {
  const pm = picomatchSync();
  try {
    return pm.makeRe(key, { dot: true });
  } catch {
    return undefined;
  }
}

let pm: typeof import('picomatch') | undefined;
/** picomatch, loaded once (config-code is itself a lazily loaded chunk). */
export function picomatchSync(): typeof import('picomatch') {
  pm ??= loaded.picomatch as typeof import('picomatch') | undefined;
  if (!pm) throw new Error('config-code: loadLibraries() was not called');
  return pm;
}
const loaded: { picomatch?: unknown } = {};
/** Loads the libraries the resolver uses (call once before resolving or linting globs). */
export async function loadLibraries(): Promise<void> {
  loaded.picomatch ??= (await import('picomatch')).default;
}

/** The span of a key (or list item) at a path, for problems found after the walk. */
function keySpan(doc: Document, segs: readonly PathSegment[]): Span | undefined {
  let node: unknown = doc.contents;
  let span: Span | undefined;
  for (const seg of segs) {
    if (isMap(node)) {
      const pair = (node.items as Pair[]).find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) return span;
      const k = pair.key as Node;
      if (k.range) span = { start: k.range[0], end: k.range[1] };
      node = pair.value;
    } else if (node && typeof node === 'object' && 'items' in node && typeof seg === 'number') {
      node = (node as { items: unknown[] }).items[seg];
      const r = (node as Node | undefined)?.range;
      if (r) span = { start: r[0], end: r[0] + 1 };
    } else return span;
  }
  return span;
}

/** Every `${env:NAME}` a file's sections send a secret from, with the file's path. */
export function secretVariablesOf(file: DeclFile): { path: string; name: string }[] {
  return [file.block, ...(file.account ? [file.account] : []), ...file.entries.map(([, b]) => b)].flatMap((b) => KINDS.flatMap((k) => (b[k.name] === undefined ? [] : (k.envRefs?.(b[k.name]) ?? []))).map((name) => ({ path: file.path, name })));
}

/** Whether the file manages this server, and the key(s) that matched. */
export function matches(file: DeclFile, server: { id: string; name?: string }): boolean {
  if (!file.fleet) return file.id !== undefined ? file.id === server.id : file.server !== undefined && file.server === server.name;
  return file.entries.some(([key]) => keyMatches(key, server.name));
}

/**
 * A name that picks more than one server is no way to say which: `server: NAME` (a file not
 * pinned with `id:`) or a fleet's exact key that two servers answer to. The message names every
 * id, so the file can be pinned to one (issue 51: one target, one file).
 */
export function sharedName(file: DeclFile, found: readonly { id: string; name?: string }[]): string | undefined {
  const keys = file.fleet ? file.entries.map(([k]) => k).filter((k) => !isPattern(k)) : file.id === undefined && file.server !== undefined ? [file.server] : [];
  for (const key of keys) {
    const ids = found.filter((s) => s.name === key).map((s) => s.id);
    if (ids.length > 1) {
      return `${file.path}: ${file.fleet ? `servers: ${JSON.stringify(key)}` : `server: ${JSON.stringify(key)}`} names ${ids.length} servers (${ids.join(', ')}); ${file.fleet ? 'give each its own file' : 'pin the file to one'} with id: ${ids[0]}`;
    }
  }
  return undefined;
}

function keyMatches(key: string, name: string | undefined): boolean {
  if (name === undefined) return false;
  if (!isPattern(key)) return key === name;
  return picomatchSync()(key, { dot: true })(name);
}

/**
 * What the file declares for one server: defaults, then each matching glob in file order, then the
 * exact name; for an account file, what it declares for the account.
 */
export function declarationFor(file: DeclFile, server: { id: string; name?: string }): Declaration {
  const merged = mergedFor(file, server);
  const d: Declaration = { sections: {} };
  for (const kind of KINDS) if (merged[kind.name] !== undefined) d.sections[kind.name] = kind.normalise(merged[kind.name], { file: file.path });
  if (merged.ignore) d.ignore = merged.ignore as string[];
  return d;
}

/**
 * Where a server's declaration came from (gsh config adopt): the merged sections as written, and
 * for a path in them (a kind's section, then keys) the file path of the block whose value won the
 * merge: `[]` (a one-server file), `['defaults']` or `['servers', KEY]`.
 */
export interface Provenance {
  raw: Block;
  origin(path: readonly PathSegment[]): PathSegment[] | undefined;
}

export function provenanceFor(file: DeclFile, server: { id: string; name?: string }): Provenance {
  const origins = new Map<string, PathSegment[]>();
  const raw = mergedFor(file, server, origins);
  return {
    raw,
    // A value replaced whole (a scalar, a list, a list kind's section) is recorded where it was
    // replaced; a key under it came from there too.
    origin: (path) => {
      let v: unknown = raw;
      for (const seg of path) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[seg] : undefined;
      if (v === undefined) return undefined;
      for (let n = path.length; n > 0; n--) {
        const from = origins.get(JSON.stringify(path.slice(0, n)));
        if (from) return [...from];
      }
      return undefined;
    },
  };
}

/** The blocks of a server in merge order, each with its path in the file, merged; `origins` records who won where. */
function mergedFor(file: DeclFile, server: { id: string; name?: string }, origins?: Map<string, PathSegment[]>): Block {
  // An account file's kinds sit at its top level, as a one-server file's do.
  const layers: Array<[PathSegment[], Block]> = [[file.fleet ? ['defaults'] : [], file.account ?? file.block]];
  if (file.fleet) {
    const globs = file.entries.filter(([k]) => isPattern(k) && keyMatches(k, server.name));
    const exact = file.entries.filter(([k]) => !isPattern(k) && k === server.name);
    for (const [key, block] of [...globs, ...exact]) layers.push([['servers', key], block]);
  }
  let merged: Block = {};
  for (const [from, block] of layers) merged = mergeBlocks(merged, block, origins && { origins, from, at: [] });
  return merged;
}

/** Maps merge (at every depth), lists and scalars replace. */
function mergeBlocks(a: Block, b: Block, rec?: { origins: Map<string, PathSegment[]>; from: PathSegment[]; at: PathSegment[] }): Block {
  const out: Block = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    const at = [...(rec?.at ?? []), k];
    if (isPlain(prev) && isPlain(v) && !isItems(k)) {
      out[k] = mergeBlocks(prev, v, rec && { ...rec, at });
      continue;
    }
    out[k] = structuredClone(v);
    if (!rec) continue;
    const key = JSON.stringify(at);
    // What an earlier block said under this key is replaced with the rest of it.
    for (const p of rec.origins.keys()) if (p === key || p.startsWith(`${key.slice(0, -1)},`)) rec.origins.delete(p);
    rec.origins.set(key, rec.from);
  }
  return out;
}

/** A list kind in its {prune, items} form is a list: it replaces. */
const isItems = (k: string) => KINDS.some((kind) => kind.list && kind.name === k);
const isPlain = (v: unknown): v is Block => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The kinds a declaration manages, in the list's order, narrowed by --only. */
export function declaredKinds(d: Declaration, only?: readonly string[]): string[] {
  return KIND_NAMES.filter((k) => d.sections[k] !== undefined && (!only || only.includes(k)));
}
