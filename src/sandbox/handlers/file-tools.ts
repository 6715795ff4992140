import { gunzipSync, gzipSync } from 'node:zlib';
import { posix } from 'node:path';
import { ApiFailure, fail, ok } from '../envelope.js';
import { isoSeconds } from '../clock.js';
import { pageOf } from '../paging.js';
import { queryValue } from '../request.js';
import type { FileTree } from '../node/file-tree.js';
import { absolute, baseName, isText, normalize } from '../node/file-tree.js';
import { treeOf } from '../node/server-files.js';
import type { SandboxContext } from '../context.js';
import { boolQuery, clampedInt, optString, reqString, stringList } from './fields.js';
import type { HandlerMap, HandlerRequest } from './types.js';
import { bodyObject, serverOf } from './util.js';

// 03-endpoints-part-b.md "File tools" and "Archives and structured data files". Archives the
// sandbox writes are gzip files holding a JSON manifest of entries (not real tar streams), so
// compress → archive list → extract/decompress round-trip. NBT trees are stored the same way
// (gzip of the JSON tree); a file that is not one reads as a small default level tree.

const tree = (req: HandlerRequest, ctx: SandboxContext) => treeOf(ctx, serverOf(req, ctx).id);

interface ArchiveEntry {
  path: string;
  type: 'file' | 'directory';
  data: string;
}

function readArchive(t: FileTree, p: string): ArchiveEntry[] {
  const e = t.file(p);
  try {
    const parsed = JSON.parse(gunzipSync(e.data).toString('utf8')) as { sandbox_archive?: ArchiveEntry[] };
    if (Array.isArray(parsed.sandbox_archive)) return parsed.sandbox_archive;
  } catch {
    // not one of ours
  }
  throw fail.badRequest(`${p} is not an archive the sandbox node can read`);
}

function extract(t: FileTree, entries: ArchiveEntry[], directory: string, only: string[]): string[] {
  const chosen = only.length ? entries.filter((e) => only.includes(e.path)) : entries;
  if (only.length && chosen.length !== only.length) throw fail.badRequest('Some listed entries are not in the archive');
  return chosen.map((e) => {
    const to = normalize(`${directory}/${e.path}`);
    if (e.type === 'directory') t.mkdirp(to);
    else t.write(to, Buffer.from(e.data, 'base64'));
    return to;
  });
}

const NBT_EXT = new Set(['.dat', '.nbt', '.schematic', '.schem']);
const NBT_MAX = 5 * 1024 * 1024;
const NBT_BODY_MAX = 4 * 1024 * 1024;

function nbtPath(raw: unknown): string {
  const p = absolute(raw);
  if (!NBT_EXT.has(posix.extname(p).toLowerCase())) throw fail.badRequest('path must end in .dat, .nbt, .schematic or .schem');
  return p;
}

export const handlers: HandlerMap = {
  'POST /servers/{server_id}/files/chmod': (req, ctx) => {
    const body = bodyObject(req);
    const mode = reqString(body, 'mode');
    if (!/^0?[0-7]{3}$/.test(mode)) throw fail.badRequest('mode must be an octal string such as 644 or 0755');
    const files = stringList(body, 'files') ?? [];
    if (!files.length) throw fail.badRequest('No files given (files)');
    const t = tree(req, ctx);
    const paths = files.map((f) => absolute(f, 'files'));
    for (const p of paths) if (!t.get(p)) throw fail.notFound(`No such file: ${p}`);
    for (const p of paths) t.get(p)!.mode = mode.padStart(4, '0');
    return ok({ object: 'server_file_chmod', mode: mode.padStart(4, '0'), files: paths });
  },

  'POST /servers/{server_id}/files/compress': (req, ctx) => {
    const body = bodyObject(req);
    const t = tree(req, ctx);
    const directory = normalize(optString(body, 'directory') ?? '/', 'directory');
    const files = stringList(body, 'files') ?? [];
    if (!files.length) throw fail.badRequest('No files given (files)');
    const entries: ArchiveEntry[] = [];
    for (const f of files) {
      const root = normalize(`${directory}/${f}`);
      if (!t.get(root)) throw fail.notFound(`No such file: ${root}`);
      for (const [p, e] of t.subtree(root)) {
        entries.push({ path: p.slice(directory === '/' ? 1 : directory.length + 1), type: e.type, data: e.data.toString('base64') });
      }
    }
    const archive = t.freeName(normalize(`${directory}/archive-${isoSeconds().replace(/[-:]/g, '')}.tar.gz`));
    const written = t.write(archive, gzipSync(JSON.stringify({ sandbox_archive: entries })));
    return ok(t.describe(archive, written));
  },

  'POST /servers/{server_id}/files/decompress': (req, ctx) => {
    const body = bodyObject(req);
    const t = tree(req, ctx);
    const directory = normalize(optString(body, 'directory') ?? '/', 'directory');
    const file = normalize(`${directory}/${reqString(body, 'file')}`);
    return ok({ object: 'server_file_extraction', directory, files: extract(t, readArchive(t, file), directory, []) });
  },

  'GET /servers/{server_id}/files/disk-usage': (req, ctx) => {
    const t = tree(req, ctx);
    const dir = normalize(queryValue(req.query, 'directory') ?? '/', 'directory');
    t.dir(dir);
    const limit = clampedInt(req.query, 'limit', 1, 100, 100);
    const recursive = boolQuery(req.query, 'recursive', true);
    const rows = t.children(dir).map(([p, e]) => ({ p, e, size: recursive || e.type === 'file' ? t.size(p) : 0 }));
    const total = rows.reduce((n, r) => n + r.size, 0);
    rows.sort((a, b) => b.size - a.size);
    return ok(rows.slice(0, limit).map((r) => ({
      object: 'server_disk_usage_entry', name: baseName(r.p), path: r.p, type: r.e.type, size: r.size,
      share: total ? Math.round((r.size / total) * 10_000) / 10_000 : 0,
    })));
  },

  'GET /servers/{server_id}/files/history': (req, ctx) => {
    const t = tree(req, ctx);
    const path = absolute(queryValue(req.query, 'path'));
    const limit = clampedInt(req.query, 'limit', 1, 50, 25);
    const offset = clampedInt(req.query, 'offset', 0, Number.MAX_SAFE_INTEGER, 0);
    const items = (t.history.get(path) ?? []).map((h, i) => ({
      object: 'server_file_revision', path, revision: (t.history.get(path)?.length ?? 0) - i,
      changed_at: isoSeconds(h.at), size: h.size, previous_size: h.previous_size, ...(h.diff ? { diff: h.diff } : {}),
    }));
    return { status: 200, body: pageOf(items, { limit, offset }) };
  },

  'GET /servers/{server_id}/files/search': (req, ctx) => {
    const t = tree(req, ctx);
    const q = queryValue(req.query, 'query')?.trim();
    if (!q) throw fail.badRequest('query must not be empty');
    const dir = normalize(queryValue(req.query, 'directory') ?? '/', 'directory');
    t.dir(dir);
    return ok(t.subtree(dir).filter(([p]) => p !== dir && baseName(p).toLowerCase().includes(q.toLowerCase())).map(([p, e]) => t.describe(p, e)));
  },

  'GET /servers/{server_id}/files/search/content': (req, ctx) => {
    const t = tree(req, ctx);
    const q = queryValue(req.query, 'query') ?? '';
    if (q.length < 2) throw fail.badRequest('query must have at least 2 characters');
    const dir = normalize(queryValue(req.query, 'directory') ?? '/', 'directory');
    const sensitive = boolQuery(req.query, 'case_sensitive', false);
    const context = clampedInt(req.query, 'context_lines', 0, 10, 0);
    const limit = clampedInt(req.query, 'limit', 1, 500, 100);
    const exts = (queryValue(req.query, 'extensions') ?? '').split(',').map((x) => x.trim().replace(/^\./, '')).filter(Boolean);
    const needle = sensitive ? q : q.toLowerCase();
    const matches: Record<string, unknown>[] = [];
    for (const [p, e] of t.subtree(dir)) {
      if (e.type !== 'file' || e.data.length > 2 * 1024 * 1024 || !isText(e.data)) continue;
      if (exts.length && !exts.includes(posix.extname(p).slice(1))) continue;
      const lines = e.data.toString('utf8').split('\n');
      lines.forEach((line, i) => {
        if (matches.length >= limit || !(sensitive ? line : line.toLowerCase()).includes(needle)) return;
        matches.push({
          object: 'server_file_match', path: p, line: i + 1, text: line,
          ...(context ? { before: lines.slice(Math.max(0, i - context), i), after: lines.slice(i + 1, i + 1 + context) } : {}),
        });
      });
    }
    return ok(matches);
  },

  'GET /servers/{server_id}/files/archive': (req, ctx) => {
    const t = tree(req, ctx);
    const directory = normalize(queryValue(req.query, 'directory') ?? '/', 'directory');
    const path = normalize(`${directory}/${queryValue(req.query, 'path') ?? ''}`);
    return ok(readArchive(t, path).map((e) => ({ object: 'server_archive_entry', path: e.path, type: e.type, size: Buffer.from(e.data, 'base64').length })));
  },

  'POST /servers/{server_id}/files/archive/extract': (req, ctx) => {
    const body = bodyObject(req);
    const t = tree(req, ctx);
    const path = absolute(reqString(body, 'path'));
    const directory = normalize(optString(body, 'directory') ?? '/', 'directory');
    return ok({ object: 'server_file_extraction', directory, files: extract(t, readArchive(t, path), directory, stringList(body, 'files') ?? []) });
  },

  'GET /servers/{server_id}/files/nbt': (req, ctx) => {
    const e = tree(req, ctx).file(nbtPath(queryValue(req.query, 'path')));
    if (e.data.length > NBT_MAX) throw fail.badRequest('NBT files over 5 MB are rejected');
    try {
      return ok(JSON.parse(gunzipSync(e.data).toString('utf8')) as unknown);
    } catch {
      return ok({ type: 'compound', name: '', value: { Data: { type: 'compound', value: { LevelName: { type: 'string', value: 'world' }, DataVersion: { type: 'int', value: 3953 } } } } });
    }
  },

  // Body: {path, tree}; the tree is stored as given.
  'PUT /servers/{server_id}/files/nbt': (req, ctx) => {
    if (Buffer.byteLength(JSON.stringify(req.body ?? null)) > NBT_BODY_MAX) throw new ApiFailure(413, 'payload_too_large', 'NBT bodies are limited to 4 MB');
    const body = bodyObject(req);
    const path = nbtPath(body.path);
    const value = body.tree ?? body.data;
    if (value === null || typeof value !== 'object') throw fail.badRequest('tree must be an NBT tree object');
    const t = tree(req, ctx);
    t.file(path);
    return ok(t.describe(path, t.write(path, gzipSync(JSON.stringify(value)))));
  },
};
