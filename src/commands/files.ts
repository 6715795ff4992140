import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import { type ApiClient, type RequestSpec, withIdempotencyKey } from '../core/http.js';
import { announcedSize, describeTarget, download, fetchSpec, planTarget, SIGNED_URL, signedUrlOf } from '../core/download.js';
import { step } from '../core/plan.js';
import { type Runtime, withRuntime } from '../core/runtime.js';
import { serverIdOf } from '../core/server-cache.js';
import { serverFlag } from '../core/server-ref.js';
import type { OperationUses } from './index.js';

// `gsh files put` and `gsh files get`: both steps of a transfer in one command (03-endpoints-
// part-b.md "File transfers"): ask the API for a short-lived signed URL (files upload / files
// download, which stay available as generated commands printing the URL), then send the bytes to
// the node or fetch them from it. The signed URL is its own authorization, so the request core
// sends no bearer to it.

export const operations: OperationUses = {
  'files put': ['POST /servers/{server_id}/files/upload'],
  'files get': ['POST /servers/{server_id}/files/download'],
};

async function serverClient(rt: Runtime, server: string | undefined): Promise<{ client: ApiClient; serverId: string }> {
  const ref = serverFlag(server, rt.env);
  const client = await rt.client();
  return { client, serverId: await serverIdOf(rt, client, ref) };
}

/** One file part in a multipart/form-data body (field name `files`, as the node expects). */
export function multipartBody(filename: string, bytes: Buffer): { body: Buffer; contentType: string } {
  const boundary = `gsh${randomBytes(12).toString('hex')}`;
  const safe = filename.replace(/["\r\n\\]/g, '_');
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="${safe}"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  return { body: Buffer.concat([Buffer.from(head), bytes, Buffer.from(`\r\n--${boundary}--\r\n`)]), contentType: `multipart/form-data; boundary=${boundary}` };
}

export function register(files: Command): void {
  files
    .command('put')
    .description('Upload a local file of any size into a server directory (signed upload URL, then the bytes)')
    .argument('<file>', 'local file to upload')
    .option('-s, --server <id|name>', 'server id or name (default: $GSH_SERVER)')
    .option('--dir <directory>', 'server directory to upload into', '/')
    .option('--name <filename>', 'file name on the server (default: the local name)')
    .addHelpText('after', '\nExample:\n  gsh files put world.zip -s lobby --dir /backups\n  gsh files put world.zip -s lobby --dry-run\n\nAPI:\n  POST /servers/{server_id}/files/upload, then POST <signed url>?directory=<dir> (multipart)\n')
    .action(async function (this: Command, local: string) {
      await withRuntime(this, async (rt) => {
        const o = this.opts<{ server?: string; dir: string; name?: string }>();
        let bytes: Buffer;
        try {
          bytes = readFileSync(local);
        } catch (err) {
          throw new UsageError(`cannot read ${local}: ${(err as Error).message}`);
        }
        const { client, serverId } = await serverClient(rt, o.server);
        const ask = await withIdempotencyKey({ method: 'POST', path: `/servers/${encodeURIComponent(serverId)}/files/upload`, body: {}, idempotencyKey: rt.globals.idempotencyKey });
        const form = multipartBody(o.name ?? basename(local), bytes);
        const send = (url: string): RequestSpec => ({ method: 'POST', path: url, query: { directory: o.dir }, rawBody: form.body, headers: { 'content-type': form.contentType } });
        return rt.submit({ requests: [ask, send(SIGNED_URL)], then: [] }, async () => {
          const res = await client.request<{ data?: unknown }>(ask);
          const sent = await client.request<{ data?: unknown }>(send(signedUrlOf(res.body?.data)));
          await rt.out.show(sent.body?.data ?? sent.body);
        });
      });
    });

  files
    .command('get')
    .description('Download a server file (signed download URL, then the bytes) to stdout or --to FILE|DIR|-')
    .argument('<path>', 'absolute path of the file on the server')
    .option('-s, --server <id|name>', 'server id or name (default: $GSH_SERVER)')
    .option('--to <file|dir|->', 'write to this file (atomically), into this directory, or - for stdout (even binary content on a terminal)')
    .option('--clobber', 'replace an existing file')
    .addHelpText('after', '\nExample:\n  gsh files get /logs/latest.log -s lobby --to latest.log\n  gsh files get /world.zip -s lobby --to ./backups/ --clobber\n\nAPI:\n  POST /servers/{server_id}/files/download, then GET <signed url>\n')
    .action(async function (this: Command, remote: string) {
      await withRuntime(this, async (rt) => {
        const o = this.opts<{ server?: string; to?: string; clobber?: boolean }>();
        const target = planTarget(o.to, o.clobber === true) ?? { kind: 'stdout', explicit: false };
        const { client, serverId } = await serverClient(rt, o.server);
        const ask = await withIdempotencyKey({ method: 'POST', path: `/servers/${encodeURIComponent(serverId)}/files/download`, body: { file: remote }, idempotencyKey: rt.globals.idempotencyKey });
        const then = [step('transfer', describeTarget(target, o.to ?? '-'))];
        return rt.submit({ requests: [ask, fetchSpec(SIGNED_URL)], then }, async () => {
          const res = await client.request<{ data?: unknown }>(ask);
          const got = await download(rt, client, signedUrlOf(res.body?.data), target, {
            size: announcedSize(res.body?.data),
            fallbackName: basename(remote) || 'download',
            binaryOnTerminal: (size) => new UsageError(`${remote} is binary${size !== undefined ? ` (${size} bytes)` : ''}; not writing it to the terminal`, `Save it with --to FILE, or redirect: gsh files get ${remote} -s ${o.server ?? serverId} > FILE (--to - writes to the terminal anyway).`),
          });
          if (got.path) rt.note(`Saved ${got.bytes} bytes to ${got.path}`);
        });
      });
    });
}
