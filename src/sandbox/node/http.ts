import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SandboxContext } from '../context.js';
import { parseQuery } from '../request.js';
import { baseName, normalize } from './file-tree.js';
import { boundaryOf, parseMultipart } from './multipart.js';
import { treeOf } from './server-files.js';
import { NODE_PREFIX, verifyUrl } from './signed-urls.js';
import { archiveChunks, archiveSize } from './archive.js';
import { archiveOf } from './archives.js';

// The node's side of the signed URLs: POST /__node/upload?...&directory=/dir (multipart form),
// GET /__node/download?... (a file's bytes) and GET /__node/archive?... (a generated .tar.gz).
// Requests are logged like API ones (path absolute). A 'cut' injection sends half of a download
// and destroys the connection (a transfer cut halfway).

/** The node refuses larger uploads with 413. */
export const MAX_UPLOAD_BYTES = 64 * 1024 * 1024;

function reply(res: ServerResponse, status: number, body: unknown): number {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(text)) });
  res.end(text);
  return status;
}

const failure = (res: ServerResponse, status: number, code: string, message: string) =>
  reply(res, status, { error: { code, message } });

function readAll(req: IncomingMessage): Promise<Buffer | 'too_large' | 'aborted'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_UPLOAD_BYTES) chunks.push(c);
    });
    req.on('end', () => resolve(size > MAX_UPLOAD_BYTES ? 'too_large' : Buffer.concat(chunks)));
    req.on('error', () => resolve('aborted'));
    req.on('close', () => {
      if (!req.complete) resolve('aborted');
    });
  });
}

export async function handleNode(ctx: SandboxContext, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const method = (req.method ?? 'GET').toUpperCase();
  const entry = ctx.log.open({ method, path: url.pathname, query: parseQuery(url.searchParams), requestId: `node_${randomBytes(8).toString('hex')}` });
  const cut = method === 'GET' && ctx.faults.takeCut(method, url.pathname);
  if (cut) entry.fault = 'cut';
  entry.status = await serve(ctx, req, res, url, method, cut);
  ctx.log.done(entry);
}

/** Writes `chunks` with backpressure; with `cutAt`, stops there and destroys the connection. */
async function stream(res: ServerResponse, chunks: Iterable<Buffer>, cutAt?: number): Promise<void> {
  let sent = 0;
  for (const chunk of chunks) {
    if (res.destroyed) return;
    const part = cutAt !== undefined && sent + chunk.length >= cutAt ? chunk.subarray(0, cutAt - sent) : chunk;
    sent += part.length;
    if (part !== chunk) {
      await new Promise<void>((resolve) => res.write(part, () => resolve()));
      res.destroy();
      return;
    }
    if (!res.write(part)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    }
  }
  res.end();
}

async function serve(ctx: SandboxContext, req: IncomingMessage, res: ServerResponse, url: URL, method: string, cut: boolean): Promise<number> {
  const action = url.pathname.slice(NODE_PREFIX.length + 1);
  if (action !== 'upload' && action !== 'download' && action !== 'archive') return failure(res, 404, 'not_found', 'No such node endpoint');
  const wantMethod = action === 'upload' ? 'POST' : 'GET';
  if (method !== wantMethod) return failure(res, 405, 'method_not_allowed', `${action} takes ${wantMethod}`);
  const body = await readAll(req);
  const verdict = verifyUrl(ctx, action, url.searchParams);
  if (!verdict.ok) return failure(res, verdict.status, verdict.status === 410 ? 'expired' : 'forbidden', verdict.reason);
  if (!ctx.state.servers.has(verdict.target.server)) return failure(res, 404, 'not_found', 'Server not found');
  if (action === 'archive') {
    const spec = archiveOf(ctx, verdict.target.server, verdict.target.path);
    if (!spec) return failure(res, 404, 'not_found', 'The archive no longer exists');
    const size = archiveSize(spec);
    res.writeHead(200, {
      'content-type': 'application/gzip',
      'content-length': String(size),
      'content-disposition': `attachment; filename="${encodeURIComponent(spec.filename)}"`,
    });
    await stream(res, archiveChunks(spec), cut ? Math.floor(size / 2) : undefined);
    return 200;
  }
  const tree = treeOf(ctx, verdict.target.server);

  if (action === 'download') {
    const e = tree.get(verdict.target.path);
    if (!e || e.type !== 'file') return failure(res, 404, 'not_found', 'The file no longer exists');
    res.writeHead(200, {
      'content-type': 'application/octet-stream',
      'content-length': String(e.data.length),
      'content-disposition': `attachment; filename="${encodeURIComponent(baseName(verdict.target.path))}"`,
    });
    await stream(res, [e.data], cut ? Math.floor(e.data.length / 2) : undefined);
    return 200;
  }

  if (body === 'too_large') return failure(res, 413, 'payload_too_large', `Uploads are limited to ${MAX_UPLOAD_BYTES} bytes`);
  if (body === 'aborted') return failure(res, 400, 'bad_request', 'The upload was cut off');
  const boundary = boundaryOf(req.headers['content-type']);
  if (!boundary) return failure(res, 400, 'bad_request', 'Send a multipart/form-data body');
  const parts = parseMultipart(body, boundary);
  if (typeof parts === 'string') return failure(res, 400, 'bad_request', parts);
  const files = parts.filter((p) => p.filename);
  if (!files.length) return failure(res, 400, 'bad_request', 'The form has no file part');
  let directory: string;
  try {
    directory = normalize(url.searchParams.get('directory') ?? '/', 'directory');
    if (tree.get(directory)?.type === 'file') return failure(res, 400, 'bad_request', `${directory} is a file`);
    const written = files.map((p) => {
      const name = baseName(normalize(p.filename!, 'filename'));
      const path = normalize(`${directory}/${name}`);
      tree.write(path, Buffer.from(p.data));
      return { path, size: p.data.length };
    });
    return reply(res, 200, { data: { object: 'file_upload', directory, files: written } });
  } catch (err) {
    const e = err as { status?: number; code?: string; message?: string };
    return failure(res, e.status ?? 400, e.code ?? 'bad_request', e.message ?? 'Upload failed');
  }
}
