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
import { pathIdProblem } from '../core/flags/checks.js';
import { Walker } from '../init/walk.js';
import { didYouMeanText, KINDS, type Kind, SETTINGS_FIELDS } from './kinds.js';
import { MAX_DEPTH, tooDeepAt } from '../init/lint.js';
import { readDeclaration } from './input-limits.js';
import { gshVariableProblem } from './secret-variables.js';
import { FILE_SCHEMA, SECTIONS } from './schema.js';

export type Scalar = string | number | boolean;

export interface HookDecl {
  url: string;
  events?: string[];
  enabled?: boolean;
  /** As written: `${env:NAME}`. */
  secret?: string;
  replace?: boolean;
}

export interface SubuserDecl {
  user_id: number;
  permissions?: string[];
}

export interface Items<T> {
  prune: boolean;
  items: T[];
}

/** What one server declares, after merging (kinds absent are not managed). */
export interface Declaration {
  settings?: Partial<Record<(typeof SETTINGS_FIELDS)[number], string>>;
  properties?: Record<string, Scalar>;
  startup?: { variables?: Record<string, Scalar> };
  configs?: Record<string, Record<string, Scalar>>;
  hooks?: Items<HookDecl>;
  subusers?: Items<SubuserDecl>;
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
}

/** `${env:NAME}`: the one way a secret is written in a file. */
export const ENV_REF = /^\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}$/;

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
  if (fleet && value.server !== undefined) at('one-of', ['server'], spanOf(['server']), 'a file manages one server (server:) or a fleet (servers:), not both');
  if (!fleet && value.server === undefined && value.id === undefined) at('required', ['server'], whole, 'name the server this file manages (server: NAME), or give servers: for a fleet');
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
    const settings = block.settings as Record<string, unknown> | undefined;
    if (settings?.name !== undefined && !pinned) {
      at('required', [...base, 'settings', 'name'], spanOf([...base, 'settings', 'name']), base.length
        ? '`settings.name` renames a server: only a one-server file pinned with `id:` may declare it'
        : '`settings.name` renames the server: pin the file to it with `id: SERVER_ID` (the name alone would no longer find it)');
    }
    for (const kind of ['hooks', 'subusers'] as const) {
      const items = itemsOf(block[kind] as unknown);
      const seen = new Map<string, number>();
      items.items.forEach((item, i) => {
        if (!item || typeof item !== 'object') return;
        const id = kind === 'hooks' ? (item as HookDecl).url : String((item as SubuserDecl).user_id);
        if (id === undefined || id === 'undefined') return;
        const listPath: PathSegment[] = Array.isArray(block[kind]) ? [...base, kind, i] : [...base, kind, 'items', i];
        if (seen.has(id)) at('duplicate-entry', listPath, spanOf(listPath), `${kind === 'hooks' ? 'the webhook' : 'the subuser'} ${id} is declared twice (also entry ${seen.get(id)! + 1})`);
        else seen.set(id, i);
        if (kind === 'hooks') {
          const secret = (item as HookDecl).secret;
          if (secret !== undefined && !ENV_REF.test(secret)) at('type', [...listPath, 'secret'], spanOf([...listPath, 'secret']), 'a secret is written as ${env:NAME}, never as its value: the file would hold it');
          const reserved = typeof secret === 'string' ? gshVariableProblem(ENV_REF.exec(secret)?.[1] ?? '') : undefined;
          if (reserved) at('type', [...listPath, 'secret'], spanOf([...listPath, 'secret']), reserved);
        }
      });
    }
    // A config type and a variable name become a step of a request's path (kinds.ts opSpec).
    const keyed: [string, PathSegment[], unknown][] = [['a config type', ['configs'], block.configs], ['a startup variable', ['startup', 'variables'], (block.startup as Block | undefined)?.variables]];
    for (const [what, where, map] of keyed) {
      for (const key of Object.keys((map as Record<string, unknown> | undefined) ?? {})) {
        const problem = pathIdProblem(key);
        if (problem) at('unknown-key', [...base, ...where, key], spanOf([...base, ...where, key]), `${what} names a step of the request's path and ${problem} (got "${key}")`);
      }
    }
    const ignore = (block.ignore as unknown[] | undefined) ?? [];
    ignore.forEach((p, i) => {
      if (typeof p !== 'string') return;
      const kind = p.split(/[.[]/)[0] ?? '';
      if (!(KINDS as readonly string[]).includes(kind)) at('enum', [...base, 'ignore', i], spanOf([...base, 'ignore', i]), `ignore path \`${p}\` names no kind${didYouMeanText(kind, KINDS)} (kinds: ${KINDS.join(', ')})`);
      const [, key] = /^properties\.(.+)$/.exec(p) ?? [];
      const props = block.properties as Record<string, unknown> | undefined;
      if (key !== undefined && props?.[key] !== undefined) at('duplicate-entry', [...base, 'properties', key], spanOf([...base, 'properties', key]), `properties.${key} is declared and also ignored: one of the two is a mistake`);
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

/** Every `${env:NAME}` a file's webhooks use as their secret, with the file's path. */
export function secretVariablesOf(file: DeclFile): { path: string; name: string }[] {
  return [file.block, ...file.entries.map(([, b]) => b)].flatMap((b) => itemsOf<HookDecl>(b.hooks).items.flatMap((h) => {
    const name = h && typeof h.secret === 'string' ? ENV_REF.exec(h.secret)?.[1] : undefined;
    return name === undefined ? [] : [{ path: file.path, name }];
  }));
}

export function itemsOf<T>(v: unknown): Items<T> {
  if (Array.isArray(v)) return { prune: false, items: v as T[] };
  if (v && typeof v === 'object') {
    const o = v as { prune?: unknown; items?: unknown };
    return { prune: o.prune === true, items: Array.isArray(o.items) ? (o.items as T[]) : [] };
  }
  return { prune: false, items: [] };
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

/** What the file declares for one server: defaults, then each matching glob in file order, then the exact name. */
export function declarationFor(file: DeclFile, server: { id: string; name?: string }): Declaration {
  let merged: Block = structuredClone(file.block);
  if (file.fleet) {
    const globs = file.entries.filter(([k]) => isPattern(k) && keyMatches(k, server.name));
    const exact = file.entries.filter(([k]) => !isPattern(k) && k === server.name);
    for (const [, block] of [...globs, ...exact]) merged = mergeBlocks(merged, block);
  }
  const d: Declaration = {};
  if (merged.settings) d.settings = merged.settings as Declaration['settings'];
  if (merged.properties) d.properties = merged.properties as Record<string, Scalar>;
  if (merged.startup) d.startup = merged.startup as Declaration['startup'];
  if (merged.configs) d.configs = merged.configs as Declaration['configs'];
  if (merged.hooks !== undefined) d.hooks = itemsOf<HookDecl>(merged.hooks);
  if (merged.subusers !== undefined) d.subusers = itemsOf<SubuserDecl>(merged.subusers);
  if (merged.ignore) d.ignore = merged.ignore as string[];
  return d;
}

/** Maps merge (at every depth), lists and scalars replace. */
function mergeBlocks(a: Block, b: Block): Block {
  const out: Block = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    out[k] = isPlain(prev) && isPlain(v) && !isItems(k) ? mergeBlocks(prev, v) : structuredClone(v);
  }
  return out;
}

/** hooks/subusers in their {prune, items} form are lists: they replace. */
const isItems = (k: string) => k === 'hooks' || k === 'subusers';
const isPlain = (v: unknown): v is Block => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The kinds a declaration manages, in KINDS order, narrowed by --only. */
export function declaredKinds(d: Declaration, only?: readonly Kind[]): Kind[] {
  return KINDS.filter((k) => d[k] !== undefined && (!only || only.includes(k)));
}
