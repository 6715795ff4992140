import { posix } from 'node:path';
import { fail } from '../envelope.js';
import { isoSeconds } from '../clock.js';

// A server's files as the node would hold them: an in-memory tree of directories and files keyed
// by normalized absolute path (03-endpoints-part-b.md "Files"). Listing order is insertion order
// ("node order"). Every path a client sends goes through `normalize`, so `..` cannot escape `/`.

export interface FileEntry {
  type: 'file' | 'directory';
  data: Buffer;
  mode: string;
  modified: number;
}

export interface HistoryEntry {
  at: number;
  size: number;
  previous_size: number;
  diff: string;
}

export function normalize(raw: unknown, field = 'path'): string {
  if (typeof raw !== 'string' || raw === '' || raw.includes('\0')) throw fail.badRequest(`${field} must be a non-empty path`);
  const p = posix.normalize(`/${raw}`);
  return p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p;
}

/** Like normalize, but the contract says "absolute": a relative path is a 400. */
export function absolute(raw: unknown, field = 'path'): string {
  if (typeof raw !== 'string' || !raw.startsWith('/')) throw fail.badRequest(`${field} must be an absolute path`);
  return normalize(raw, field);
}

export const parentOf = (p: string): string => posix.dirname(p);
export const baseName = (p: string): string => posix.basename(p);

export class FileTree {
  readonly entries = new Map<string, FileEntry>([['/', { type: 'directory', data: Buffer.alloc(0), mode: '0755', modified: Date.now() }]]);
  /** Change history per file path, newest first (GET files/history). */
  readonly history = new Map<string, HistoryEntry[]>();

  get(p: string): FileEntry | undefined {
    return this.entries.get(p);
  }

  file(p: string): FileEntry {
    const e = this.entries.get(p);
    if (!e) throw fail.notFound(`No such file: ${p}`);
    if (e.type !== 'file') throw fail.badRequest(`${p} is a directory`);
    return e;
  }

  dir(p: string): FileEntry {
    const e = this.entries.get(p);
    if (!e) throw fail.notFound(`No such directory: ${p}`);
    if (e.type !== 'directory') throw fail.badRequest(`${p} is not a directory`);
    return e;
  }

  mkdirp(p: string): void {
    if (p === '/') return;
    const e = this.entries.get(p);
    if (e?.type === 'directory') return;
    if (e) throw fail.conflict(`${p} exists and is a file`);
    this.mkdirp(parentOf(p));
    this.entries.set(p, { type: 'directory', data: Buffer.alloc(0), mode: '0755', modified: Date.now() });
  }

  write(p: string, data: Buffer | string): FileEntry {
    if (p === '/') throw fail.badRequest('Cannot write to /');
    this.mkdirp(parentOf(p));
    const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    const existing = this.entries.get(p);
    if (existing?.type === 'directory') throw fail.conflict(`${p} is a directory`);
    const list = this.history.get(p) ?? [];
    list.unshift({ at: Date.now(), size: buf.length, previous_size: existing?.data.length ?? 0, diff: simpleDiff(existing?.data, buf) });
    this.history.set(p, list.slice(0, 50));
    const entry: FileEntry = { type: 'file', data: buf, mode: existing?.mode ?? '0644', modified: Date.now() };
    this.entries.set(p, entry);
    return entry;
  }

  children(dir: string): Array<[string, FileEntry]> {
    const prefix = dir === '/' ? '/' : `${dir}/`;
    return [...this.entries].filter(([p]) => p !== '/' && p.startsWith(prefix) && !p.slice(prefix.length).includes('/'));
  }

  /** The path and everything under it, in tree order. */
  subtree(p: string): Array<[string, FileEntry]> {
    return [...this.entries].filter(([q]) => q === p || (p === '/' ? q !== '/' : q.startsWith(`${p}/`)));
  }

  size(p: string): number {
    return this.subtree(p).reduce((n, [, e]) => n + e.data.length, 0);
  }

  remove(p: string): Array<[string, FileEntry]> {
    if (p === '/') throw fail.badRequest('Cannot delete /');
    if (!this.entries.has(p)) throw fail.notFound(`No such file: ${p}`);
    const removed = this.subtree(p);
    for (const [q] of removed) this.entries.delete(q);
    return removed;
  }

  /** Moves a path (and its subtree) to `to`; the destination must not exist. */
  move(from: string, to: string): void {
    if (from === '/' || to === '/') throw fail.badRequest('Cannot move /');
    if (!this.entries.has(from)) throw fail.notFound(`No such file: ${from}`);
    if (this.entries.has(to)) throw fail.conflict(`${to} already exists`);
    if (to.startsWith(`${from}/`)) throw fail.badRequest('Cannot move a directory into itself');
    this.mkdirp(parentOf(to));
    for (const [q, e] of this.remove(from)) this.entries.set(to + q.slice(from.length), e);
  }

  copy(from: string, to: string): void {
    if (!this.entries.has(from)) throw fail.notFound(`No such file: ${from}`);
    this.mkdirp(parentOf(to));
    for (const [q, e] of this.subtree(from)) this.entries.set(to + q.slice(from.length), { ...e, data: Buffer.from(e.data), modified: Date.now() });
  }

  /** `name`, or `name (1)`, `name (2)`... next to it: the node's collision rule. */
  freeName(p: string): string {
    if (!this.entries.has(p)) return p;
    const dir = parentOf(p);
    const ext = posix.extname(p);
    const stem = baseName(p).slice(0, baseName(p).length - ext.length);
    for (let i = 1; ; i++) {
      const candidate = posix.join(dir, `${stem} (${i})${ext}`);
      if (!this.entries.has(candidate)) return candidate;
    }
  }

  describe(p: string, e: FileEntry): Record<string, unknown> {
    return {
      object: 'server_file',
      name: baseName(p) || '/',
      path: p,
      type: e.type,
      is_file: e.type === 'file',
      size: e.type === 'file' ? e.data.length : this.size(p),
      mode: e.mode,
      modified_at: isoSeconds(e.modified),
    };
  }
}

/** A unified-diff-like summary of a text change (whole-file replacement hunk). */
function simpleDiff(before: Buffer | undefined, after: Buffer): string {
  const a = before ? before.toString('utf8').split('\n') : [];
  const b = after.toString('utf8').split('\n');
  if (a.length + b.length > 400) return '';
  return [`@@ -1,${a.length} +1,${b.length} @@`, ...a.map((l) => `-${l}`), ...b.map((l) => `+${l}`)].join('\n');
}

/** True when the bytes are valid UTF-8 text (GET files/content: "binary file gives 400"). */
export function isText(buf: Buffer): boolean {
  if (buf.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(buf);
    return true;
  } catch {
    return false;
  }
}
