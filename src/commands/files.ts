import { type Stats, statSync } from 'node:fs';
import { fleetFlags } from '../core/fleet/rollout.js';
import { basename, resolve } from 'node:path';
import type { Command } from 'commander';
import { distinctNames, safeFileName } from '../common/file-names.js';
import { makeDir } from '../core/disk/disk.js';
import { join } from 'node:path';
import { InterruptedError, UsageError } from '../core/errors.js';
import { collect } from '../core/flags/fields.js';
import { DEFAULT_PARALLEL, fleetOptions, MAX_PARALLEL } from '../core/fleet/fleet.js';
import { onServers, SERVERS_HELP, type ServerFlags } from '../core/fleet/fleet-command.js';
import { withIdempotencyKey } from '../core/wire/http.js';
import { counted, localFile, uploadSpec } from '../core/transfer/multipart-upload.js';
import { progressBar } from '../core/transfer/progress.js';
import { askSpec, planTree, remoteDir, treeRequests, uploadOne, uploadTree, uploadTreeInFleet } from '../core/transfer/tree-upload.js';
import { announcedSize, type DownloadTarget, describeTarget, download, fetchSpec, planTarget, SIGNED_URL, signedUrlOf } from '../core/transfer/download.js';
import { step } from '../core/plan.js';
import { type Runtime, withRuntime } from '../core/run/runtime.js';
import type { Target } from '../core/fleet/targets.js';
import type { OperationUses } from './hand-written.js';

// `gsh files put` and `gsh files get`: both steps of a transfer in one command (03-endpoints-
// part-b.md "File transfers"): ask the API for a short-lived signed URL (files upload / files
// download, which stay available as generated commands printing the URL), then send the bytes to
// the node or fetch them from it. The signed URL is its own authorization, so the request core
// sends no bearer to it.

export const operations: OperationUses = {
  'files put': ['POST /servers/{server_id}/files/upload'],
  'files get': ['POST /servers/{server_id}/files/download'],
};

const PUT_HELP = `
A file of any size is streamed from disk; a retry sends it again from the start, and a file that
changes size while it is sent is an error.

A directory uploads its contents into --dir (DIR/a/b.txt lands at <dir>/a/b.txt):
  - folders are created as needed, parents first, empty ones too; a folder that exists is used
  - a file that exists on the server is replaced (the node overwrites it)
  - hidden files and folders (.name) are uploaded like any other
  - symbolic links (and sockets, FIFOs) are skipped and named on stderr; nothing is followed
  - files go --parallel at once; one result per file, a summary on stderr, exit 11 when some failed
  - --dry-run lists every request: each folder, then each file's signed URL and upload
  - Ctrl-C starts no new file, aborts those in flight (named on stderr) and exits 130
On a terminal, stderr shows bytes, rate and time left (and files done / total) while it runs.

Several servers (-s a,b, a name glob, - for stdin, --all-servers) each get the same upload, 4
servers at a time (--parallel stays the files at once on each): one result per server, exit 11
when some failed; Ctrl-C names the command that runs it again on each server left unfinished.

Examples:
  gsh files put world.zip -s lobby --dir /backups
  gsh files put world.zip -s lobby --dry-run
  gsh files put ./plugins -s lobby --dir /plugins
  gsh files put ./config -s lobby --dir /config --parallel 8 -o json
  gsh files put ./plugins -s 'lobby-*' --dir /plugins

API:
  POST /servers/{server_id}/files/folder (directories: each folder)
  POST /servers/{server_id}/files/upload, then POST <signed url>?directory=<dir> (multipart, streamed)
`;

function localStat(local: string): Stats {
  try {
    return statSync(local);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read ${local}: ${code === 'ENOENT' ? 'no such file or directory' : code === 'ENAMETOOLONG' ? 'the file name is too long for this file system' : (code ?? (err as Error).message)}`);
  }
}

/** What a Ctrl-C during one file's upload leaves on the server, and the two ways on. */
function stoppedUpload(dir: string, name: string, server: string): string {
  const path = dir === '/' ? `/${name}` : `${dir.replace(/\/$/, '')}/${name}`;
  return `Stopped while uploading: ${path} is not complete on the server (the node may keep the part that arrived). Upload it again with the same command (the upload replaces it), or remove it: gsh files delete -s ${server} -f 'files[]=${path}' --yes`;
}

type PutFlags = ServerFlags & { dir?: string; name?: string };

/** Where an interrupt leaves a server of several unfinished: the same command on that server again. */
/** A directory: planned whole (every folder and file) before anything is sent, on every server named. */
async function putTree(rt: Runtime, local: string, o: PutFlags): Promise<number | void> {
  if (o.dir === undefined) throw new UsageError(`${local} is a directory: give the server directory its contents go into with --dir`, `e.g. gsh files put ${local} -s SERVER --dir /${basename(resolve(local))}`);
  if (o.name !== undefined) throw new UsageError('--name renames one file; a directory keeps its names');
  if (rt.globals.idempotencyKey !== undefined) throw new UsageError('--idempotency-key names one request; a directory upload sends several', 'Leave it out: each request gets its own key, kept across retries.');
  const { parallel } = fleetOptions({ parallel: o.parallel });
  const plan = planTree(local, remoteDir(o.dir));
  for (const s of plan.skipped) rt.note(`skipped ${s}`);
  return onServers(rt, { server: o.server, allServers: o.allServers, rollout: o, mutates: true }, async (client, t) => ({
    plan: { requests: treeRequests(t.id, plan), then: [] },
    alone: () => uploadTree(rt, client, t.id, plan, parallel),
    inFleet: () => uploadTreeInFleet(rt, client, t.id, plan, parallel),
  }));
}

/**
 * The folders of several servers' downloads, named all at once before anything is sent: each
 * server's name made a safe file name (common/file-names.ts), or its id where two servers' names
 * would share a folder (case aside) or a name equals another server's id, so no two share one.
 */
function serverFolders(targets: readonly Target[]): Map<string, string | undefined> {
  return distinctNames(targets, (t) => (t.name === undefined ? undefined : safeFileName(t.name)), (t) => safeFileName(t.id) ?? encodeURIComponent(t.id));
}

export function register(files: Command): void {
  fleetFlags(files
    .command('put')
    .description('Upload a local file of any size, or a directory tree, into a server directory (signed upload URL, then the bytes)')
    .argument('<file>', 'local file, or a directory to upload as a tree')
    .option('-s, --server <id|name>', SERVERS_HELP, collect)
    .option('--all-servers', 'every server the key can reach')
    .option('--dir <directory>', 'server directory to upload into (a directory upload needs it)')
    .option('--name <filename>', 'file name on the server (default: the local name; files only)')
    .option('--parallel <n>', `directory uploads: files sent at once (1 to ${MAX_PARALLEL}, default ${DEFAULT_PARALLEL}), sharing the rate limit`)
    .addHelpText('after', PUT_HELP)
    .action(async function (this: Command, local: string) {
      await withRuntime(this, async (rt) => {
        const o = this.opts<PutFlags>();
        const st = localStat(local);
        if (st.isDirectory()) return putTree(rt, local, o);
        if (o.parallel !== undefined) throw new UsageError('--parallel applies to directory uploads');
        if (!st.isFile()) throw new UsageError(`${local} is not a regular file or a directory`);
        const dir = o.dir ?? '/';
        const source = localFile(local, st.size, o.name ?? basename(local));
        return onServers(rt, { server: o.server, allServers: o.allServers, rollout: o, mutates: true }, async (client, t) => {
          const ask = await withIdempotencyKey(askSpec(t.id, rt.globals.idempotencyKey));
          return {
            plan: { requests: [ask, uploadSpec(SIGNED_URL, dir, source)], then: [] },
            alone: async () => {
              const bar = progressBar(rt, st.size);
              try {
                await rt.out.show(await uploadOne(client, t.id, dir, counted(source, (n) => bar.update(n)), ask.idempotencyKey));
              } catch (err) {
                bar.stop();
                if (err instanceof InterruptedError) rt.note(stoppedUpload(dir, source.name, t.name ?? t.id));
                throw err;
              } finally {
                bar.stop();
              }
            },
            inFleet: () => uploadOne(client, t.id, dir, source, ask.idempotencyKey),
          };
        });
      });
    }));

  fleetFlags(files
    .command('get')
    .description('Download a server file (signed download URL, then the bytes) to stdout or --to FILE|DIR|-')
    .argument('<path>', 'absolute path of the file on the server')
    .option('-s, --server <id|name>', SERVERS_HELP, collect)
    .option('--all-servers', 'every server the key can reach')
    .option('--to <file|dir|->', 'write to this file (atomically), into this directory, or - for stdout (even binary content on a terminal); several servers: DIR/<server>/')
    .option('--clobber', 'replace an existing file; it keeps its mode (new files are 0644 less the umask: the API marks no file private)')
    .addHelpText('after', `
Several servers (-s a,b, a name glob, - for stdin, --all-servers) need --to DIR: each
server's file is written into a folder of its own, DIR/<server name>, made as needed (the
server's id where its name is not a plain file name or another server has it); one result per
server, exit 11 when some failed.

Example:
  gsh files get /logs/latest.log -s lobby --to latest.log
  gsh files get /world.zip -s lobby --to ./backups/ --clobber
  gsh files get /logs/latest.log -s 'lobby-*' --to ./

API:
  POST /servers/{server_id}/files/download, then GET <signed url>
`)
    .action(async function (this: Command, remote: string) {
      await withRuntime(this, async (rt) => {
        const o = this.opts<ServerFlags & { to?: string; clobber?: boolean }>();
        const target = planTarget(o.to, o.clobber === true) ?? { kind: 'stdout', explicit: false };
        let folders: Map<string, string | undefined> | undefined;
        const several = (targets: readonly Target[]) => {
          // One destination for several servers' files would mix them: each gets a folder of its own.
          if (target.kind !== 'dir') {
            throw new UsageError(`several servers: --to ${o.to === undefined ? '(standard output)' : o.to} would mix their files`, `Give --to DIR: each server's file goes to DIR/<server name>/, e.g. gsh files get ${remote} -s SERVERS --to ./${basename(remote) || 'files'}-by-server/`);
          }
          folders = serverFolders(targets);
          const none = targets.filter((t) => folders!.get(t.id) === undefined);
          if (none.length) throw new UsageError(`no folder of its own for ${none.map((t) => t.name ?? t.id).join(', ')}`, 'Download from those servers one at a time.');
        };
        return onServers(rt, { server: o.server, allServers: o.allServers, rollout: o, mutates: false, several }, async (client, t, many) => {
          const ask = await withIdempotencyKey({ method: 'POST', path: `/servers/${encodeURIComponent(t.id)}/files/download`, body: { file: remote }, idempotencyKey: rt.globals.idempotencyKey });
          let into: DownloadTarget = target;
          let where = o.to ?? '-';
          if (many && target.kind === 'dir') {
            const folder = folders?.get(t.id) as string;
            into = { ...target, dir: join(target.dir, folder) };
            where = join(o.to as string, folder) + '/';
          }
          const then = [step('transfer', describeTarget(into, where))];
          const fetchOne = async () => {
            const res = await client.request<{ data?: unknown }>(ask);
            // The server's folder, once it has a file to give.
            if (many && into.kind === 'dir') makeDir(into.dir);
            return download(rt, client, signedUrlOf(res.body?.data), into, {
              size: announcedSize(res.body?.data),
              fallbackName: basename(remote) || 'download',
              binaryOnTerminal: (size) => new UsageError(`${remote} is binary${size !== undefined ? ` (${size} bytes)` : ''}; not writing it to the terminal`, `Save it with --to FILE, or redirect: gsh files get ${remote} -s ${t.name ?? t.id} > FILE (--to - writes to the terminal anyway).`),
            });
          };
          return {
            plan: { requests: [ask, fetchSpec(SIGNED_URL)], then },
            alone: async () => {
              const got = await fetchOne();
              if (got.path) rt.note(`Saved ${got.bytes} bytes to ${got.path}`);
            },
            inFleet: async () => {
              const got = await fetchOne();
              return { summary: `saved ${got.bytes} bytes to ${got.path}`, path: got.path, bytes: got.bytes };
            },
          };
        });
      });
    }));
}
