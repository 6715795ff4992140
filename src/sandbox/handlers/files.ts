import type { SandboxContext } from '../context.js';
import { ApiFailure, fail, ok } from '../envelope.js';
import { isoSeconds } from '../clock.js';
import { pageOf, parsePaging } from '../paging.js';
import { queryValue } from '../request.js';
import { isPrivateHost } from '../node/addresses.js';
import { absolute, baseName, isText, normalize, parentOf } from '../node/file-tree.js';
import { treeOf } from '../node/server-files.js';
import { signUrl } from '../node/signed-urls.js';
import { serverSlot } from '../node/slots.js';
import { genericHandler } from './generic.js';
import { optString, reqString, stringList } from './fields.js';
import type { HandlerMap, HandlerRequest } from './types.js';
import { bodyObject, serverOf } from './util.js';

// 03-endpoints-part-b.md "Files", "File transfers" and "File trash", on the server's in-memory
// tree (node/file-tree.ts). Body field names the contract does not give follow the registry's
// examples: `files` (lists), `location` (copy), `file` (download), `entries` (trash ids),
// `destination` (copy-to), `target_server_id` (transfer).

/** "inline body at most 64 KB, else 413" (Files: PUT files/content). */
export const INLINE_LIMIT = 64 * 1024;

const tree = (req: HandlerRequest, ctx: SandboxContext) => treeOf(ctx, serverOf(req, ctx).id);

interface TrashEntry {
  id: string;
  path: string;
  data: Buffer;
  deleted_at: string;
}

function trashOf(req: HandlerRequest, ctx: SandboxContext): TrashEntry[] {
  const s = serverOf(req, ctx);
  // The dashboard trashes deletes (the public delete does not): one entry shows the shape.
  return serverSlot(ctx, s.id, 'trash', () => [{ id: `trash_${ctx.rng.hex(8)}`, path: '/old-motd.txt', data: Buffer.from('Welcome back!\n'), deleted_at: isoSeconds(s.createdAt) }]);
}

const trashView = (e: TrashEntry) => ({ object: 'server_file_trash_entry', id: e.id, path: e.path, size: e.data.length, deleted_at: e.deleted_at });

function trashIds(body: Record<string, unknown>): string[] {
  const ids = stringList(body, 'entries') ?? stringList(body, 'ids') ?? [];
  if (!ids.length) throw fail.badRequest('No trash entries given (entries)');
  return ids;
}

function fileList(body: Record<string, unknown>, max?: number): string[] {
  const files = stringList(body, 'files') ?? [];
  if (!files.length) throw fail.badRequest('No files given (files)');
  if (max !== undefined && files.length > max) throw fail.badRequest(`At most ${max} files per request`);
  return files;
}

/** Within `root` unless already absolute. */
const under = (root: string, p: string) => normalize(p.startsWith('/') ? p : `${root}/${p}`);

export const handlers: HandlerMap = {
  'GET /servers/{server_id}/files': (req, ctx) => {
    const t = tree(req, ctx);
    const dir = normalize(queryValue(req.query, 'directory') ?? '/', 'directory');
    t.dir(dir);
    return { status: 200, body: pageOf(t.children(dir).map(([p, e]) => t.describe(p, e)), parsePaging(req.query)) };
  },

  'GET /servers/{server_id}/files/content': (req, ctx) => {
    const e = tree(req, ctx).file(absolute(queryValue(req.query, 'path')));
    if (!isText(e.data)) throw fail.badRequest('The file is binary; download it instead');
    return { status: 200, raw: { contentType: 'text/plain; charset=utf-8', text: e.data.toString('utf8') } };
  },

  // JSON {path, content}, or the raw text with ?path= (both written as UTF-8).
  'PUT /servers/{server_id}/files/content': (req, ctx) => {
    const s = serverOf(req, ctx);
    let path: string;
    let content: Buffer;
    if (req.bodyKind === 'raw') {
      path = absolute(queryValue(req.query, 'path'));
      content = req.rawBody;
    } else {
      const body = bodyObject(req);
      path = absolute(body.path ?? queryValue(req.query, 'path'));
      const text = body.content;
      if (typeof text !== 'string') throw fail.badRequest('content must be a string');
      content = Buffer.from(text, 'utf8');
    }
    if (content.length > INLINE_LIMIT) {
      throw new ApiFailure(413, 'payload_too_large', `Inline content is limited to ${INLINE_LIMIT} bytes; use files upload`);
    }
    const t = treeOf(ctx, s.id);
    return ok(t.describe(path, t.write(path, content)));
  },

  'POST /servers/{server_id}/files/copy': (req, ctx) => {
    const body = bodyObject(req);
    const t = tree(req, ctx);
    const from = absolute(body.location ?? body.path ?? body.from, 'location');
    if (!t.get(from)) throw fail.notFound(`No such file: ${from}`);
    const to = t.freeName(from);
    t.copy(from, to);
    return ok({ object: 'server_file_copy', from, path: to });
  },

  'POST /servers/{server_id}/files/delete': (req, ctx) => {
    const body = bodyObject(req);
    const t = tree(req, ctx);
    const root = normalize(optString(body, 'root') ?? '/', 'root');
    const paths = fileList(body).map((p) => under(root, p));
    for (const p of paths) if (!t.get(p)) throw fail.notFound(`No such file: ${p}`);
    for (const p of paths) if (t.get(p)) t.remove(p);
    return ok({ object: 'server_file_deletion', deleted: paths });
  },

  'POST /servers/{server_id}/files/folder': (req, ctx) => {
    const body = bodyObject(req);
    const t = tree(req, ctx);
    const name = reqString(body, 'name');
    if (name.includes('/')) throw fail.badRequest('name must not contain /');
    const parent = normalize(optString(body, 'path') ?? '/', 'path');
    t.dir(parent);
    const p = normalize(`${parent}/${name}`);
    if (t.get(p)) throw fail.conflict(`${p} already exists`);
    t.mkdirp(p);
    return ok(t.describe(p, t.get(p)!), 201);
  },

  'POST /servers/{server_id}/files/move': (req, ctx) => {
    const body = bodyObject(req);
    const from = absolute(reqString(body, 'from'), 'from');
    const to = absolute(reqString(body, 'to'), 'to');
    const t = tree(req, ctx);
    t.move(from, to);
    return ok(t.describe(to, t.get(to)!));
  },

  // `to` may be a bare new name (kept in the same directory) or a path.
  'POST /servers/{server_id}/files/rename': (req, ctx) => {
    const body = bodyObject(req);
    const from = absolute(reqString(body, 'from'), 'from');
    const to = under(parentOf(from), reqString(body, 'to'));
    const t = tree(req, ctx);
    t.move(from, to);
    return ok(t.describe(to, t.get(to)!));
  },

  'GET /servers/{server_id}/sftp': (req, ctx) => {
    const s = serverOf(req, ctx);
    return ok({ object: 'server_sftp', hostname: `${s.node}.sandbox.invalid`, port: 2022, username: `${ctx.state.account.username}.${s.id}` });
  },

  'POST /servers/{server_id}/files/copy-to': (req, ctx) => {
    const s = serverOf(req, ctx);
    const body = bodyObject(req);
    const mode = optString(body, 'mode') ?? 'copy';
    if (mode !== 'copy' && mode !== 'cut') throw fail.badRequest('mode must be copy or cut');
    const files = fileList(body, 100).map((p) => absolute(p, 'files'));
    const destination = normalize(reqString(body, 'destination'), 'destination');
    const t = treeOf(ctx, s.id);
    for (const p of files) if (!t.get(p)) throw fail.notFound(`No such file: ${p}`);
    t.mkdirp(destination);
    const placed = files.map((p) => {
      const to = t.freeName(normalize(`${destination}/${baseName(p)}`));
      if (mode === 'cut') t.move(p, to);
      else t.copy(p, to);
      return { from: p, to };
    });
    return ok({ object: 'server_file_copy_to', mode, items: placed });
  },

  'POST /servers/{server_id}/files/download': (req, ctx) => {
    const s = serverOf(req, ctx);
    const body = bodyObject(req);
    const path = absolute(body.file ?? body.path, 'file');
    treeOf(ctx, s.id).file(path);
    return ok({ object: 'signed_url', method: 'GET', path, ...signUrl(ctx, 'download', s.id, path) });
  },

  'POST /servers/{server_id}/files/upload': (req, ctx) => {
    const s = serverOf(req, ctx);
    if (s.stored) throw new ApiFailure(409, 'server_storage_mode', 'The server is on a storage node; start it first');
    return ok({ object: 'signed_url', method: 'POST', form: 'multipart/form-data', query: 'directory', ...signUrl(ctx, 'upload', s.id) });
  },

  // Vetted here; the 202 download and its status come from the generic pull model. When it
  // finishes, the file appears (contents are a placeholder: the sandbox does not fetch URLs).
  'POST /servers/{server_id}/files/pull': (req, ctx) => {
    const s = serverOf(req, ctx);
    const body = bodyObject(req);
    let url: URL;
    try {
      url = new URL(reqString(body, 'url'));
    } catch (err) {
      if (err instanceof ApiFailure) throw err;
      throw fail.badRequest('url is not a valid URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw fail.badRequest('url must be http(s)');
    if (isPrivateHost(url.hostname)) throw fail.badRequest('url points at a private, loopback or metadata host');
    const directory = normalize(optString(body, 'directory') ?? '/', 'directory');
    const name = optString(body, 'filename') ?? (baseName(url.pathname) || 'download');
    const result = genericHandler(req, ctx);
    ctx.clock.after(2500, () => {
      if (ctx.state.servers.has(s.id)) treeOf(ctx, s.id).write(normalize(`${directory}/${name}`), `downloaded from ${url.href}\n`);
    });
    return result;
  },

  'POST /servers/{server_id}/files/transfer': (req, ctx) => {
    const s = serverOf(req, ctx);
    const body = bodyObject(req);
    const files = fileList(body, 50).map((p) => absolute(p, 'files'));
    const targetId = reqString(body, 'target_server_id');
    // Reach and file.create on the target: the registry's onServer rule, checked by the pipeline.
    if (!ctx.state.servers.has(targetId)) throw fail.notFound('Target server not found');
    const source = treeOf(ctx, s.id);
    const target = treeOf(ctx, targetId);
    for (const p of files) source.file(p);
    const copied = files.map((p) => {
      const to = target.freeName(p);
      target.write(to, Buffer.from(source.file(p).data));
      return { from: p, to };
    });
    return ok({ object: 'server_file_transfer', target_server_id: targetId, items: copied });
  },

  'GET /servers/{server_id}/files/trash': (req, ctx) =>
    ({ status: 200, body: pageOf(trashOf(req, ctx).map(trashView), parsePaging(req.query)) }),

  'POST /servers/{server_id}/files/trash/delete': (req, ctx) => {
    const trash = trashOf(req, ctx);
    const ids = trashIds(bodyObject(req));
    for (const id of ids) if (!trash.some((e) => e.id === id)) throw fail.notFound(`No trash entry ${id}`);
    const kept = trash.filter((e) => !ids.includes(e.id));
    trash.splice(0, trash.length, ...kept);
    return ok({ object: 'server_file_trash_deletion', deleted: ids });
  },

  'POST /servers/{server_id}/files/trash/empty': (req, ctx) => {
    const trash = trashOf(req, ctx);
    const count = trash.length;
    trash.length = 0;
    return ok({ object: 'server_file_trash_deletion', deleted_count: count });
  },

  'POST /servers/{server_id}/files/trash/restore': (req, ctx) => {
    const trash = trashOf(req, ctx);
    const ids = trashIds(bodyObject(req));
    const t = tree(req, ctx);
    const restored = ids.map((id) => {
      const i = trash.findIndex((e) => e.id === id);
      if (i < 0) throw fail.notFound(`No trash entry ${id}`);
      const [e] = trash.splice(i, 1);
      const to = t.freeName(e!.path);
      t.write(to, e!.data);
      return { id, path: to };
    });
    return ok({ object: 'server_file_trash_restore', restored });
  },
};
