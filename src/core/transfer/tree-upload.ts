import { lstatSync, readdirSync } from 'node:fs';
import { join, posix } from 'node:path';
import { SIGNED_URL, signedUrlOf } from './download.js';
import { ApiError, Exit, GshError, OutcomeUnknownError, UsageError } from '../errors.js';
import { type ApiClient, type RequestSpec, withIdempotencyKey } from '../wire/http.js';
import { counted, localFile, readSizeFor, type UploadSource, uploadSpec } from './multipart-upload.js';
import { formatBytes } from '../bytes.js';
import { progressBar } from './progress.js';
import type { Runtime } from '../run/runtime.js';

// `gsh files put DIR --dir /target`: a local tree onto a server (03-endpoints-part-b.md "Files":
// POST files/folder; "File transfers": files/upload, then the signed URL). Planned whole before
// anything is sent: every folder and file is known, so --dry-run lists every request. Folders are
// created parents first (one level at a time); files then go in parallel on the client's shared
// rate-limit budget, each with its own signed URL, and each gets one result.

export interface TreeFile {
  local: string;
  /** Server directory it lands in. */
  directory: string;
  name: string;
  size: number;
}

export interface TreePlan {
  /** The server directory the local directory's contents land in. */
  target: string;
  /** Server folders to create, parents before children (the target and its ancestors first). */
  folders: string[];
  files: TreeFile[];
  /** Local entries left out, with why (symlinks, sockets, FIFOs). */
  skipped: string[];
}

export interface FileResult {
  path: string;
  size: number;
  ok: boolean;
  exit_code: number;
  error?: string;
  idempotency_key?: string;
  /** Ctrl-C / SIGTERM stopped its upload: it is not complete on the server. */
  interrupted?: true;
  /** Ctrl-C / SIGTERM came before its upload began. */
  not_started?: true;
}

const fsError = (path: string, err: NodeJS.ErrnoException) =>
  new UsageError(`cannot read ${path}: ${err.code === 'ENAMETOOLONG' ? 'the file name is too long for this file system' : (err.code ?? err.message)}`);

/**
 * Walks `root` (the local directory) into the plan for `target`: symlinks are skipped (named in
 * a note), hidden entries are uploaded like any other, an unreadable entry is a usage error
 * before anything is sent.
 */
export function planTree(root: string, target: string): TreePlan {
  const folders: string[] = [];
  for (let p = target; p !== '/'; p = posix.dirname(p)) folders.unshift(p);
  const plan: TreePlan = { target, folders, files: [], skipped: [] };
  const walk = (dir: string, remote: string) => {
    let entries: string[];
    try {
      entries = readdirSync(dir).sort();
    } catch (err) {
      throw fsError(dir, err as NodeJS.ErrnoException);
    }
    for (const name of entries) {
      const local = join(dir, name);
      let st: ReturnType<typeof lstatSync>;
      try {
        st = lstatSync(local);
      } catch (err) {
        throw fsError(local, err as NodeJS.ErrnoException);
      }
      const there = remote === '/' ? `/${name}` : `${remote}/${name}`;
      if (st.isSymbolicLink()) plan.skipped.push(`${local} (a symbolic link)`);
      else if (st.isDirectory()) {
        plan.folders.push(there);
        walk(local, there);
      } else if (st.isFile()) plan.files.push({ local, directory: remote, name, size: st.size });
      else plan.skipped.push(`${local} (not a regular file)`);
    }
  };
  walk(root, target);
  // Sent one depth at a time (parents first): planned in that order, so --dry-run shows the order sent.
  plan.folders.sort((a, b) => a.split('/').length - b.split('/').length);
  return plan;
}

/** A server directory given with --dir: absolute, normalised, no trailing slash. */
export function remoteDir(dir: string): string {
  if (!dir.startsWith('/')) throw new UsageError(`--dir must be an absolute server path (got "${dir}")`);
  const norm = posix.normalize(dir).replace(/\/+$/, '');
  return norm === '' ? '/' : norm;
}

const folderSpec = (serverPath: string, path: string): RequestSpec => ({
  method: 'POST',
  path: `${serverPath}/files/folder`,
  body: { name: posix.basename(path), path: posix.dirname(path) },
});

/** The request for a signed upload URL (one per file: each URL is short-lived). */
export const askSpec = (serverId: string, idempotencyKey?: string): RequestSpec =>
  ({ method: 'POST', path: `/servers/${encodeURIComponent(serverId)}/files/upload`, body: {}, idempotencyKey });

/** Every request in order, for --dry-run (the signed URL is known only from each first answer). */
export function treeRequests(serverId: string, plan: TreePlan): RequestSpec[] {
  const sp = `/servers/${encodeURIComponent(serverId)}`;
  return [
    ...plan.folders.map((f) => folderSpec(sp, f)),
    ...plan.files.flatMap((f) => [askSpec(serverId), uploadSpec(SIGNED_URL, f.directory, localFile(f.local, f.size, f.name))]),
  ];
}

/** A folder that already exists is fine (the tree merges into it): a 409 confirmed by listing it. */
async function ensureFolder(client: ApiClient, sp: string, path: string): Promise<void> {
  try {
    await client.request(await withIdempotencyKey(folderSpec(sp, path)));
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 409) throw err;
    try {
      await client.request({ method: 'GET', path: `${sp}/files`, query: { directory: path, limit: 1 } });
    } catch {
      throw err;
    }
  }
}

/** One upload: a fresh signed URL, then the bytes. */
export async function uploadOne(client: ApiClient, serverId: string, directory: string, source: UploadSource, idempotencyKey?: string, signal?: AbortSignal): Promise<unknown> {
  const ask = await withIdempotencyKey(askSpec(serverId, idempotencyKey));
  const res = await client.request<{ data?: unknown }>({ ...ask, signal });
  const sent = await client.request<{ data?: unknown }>({ ...uploadSpec(signedUrlOf(res.body?.data), directory, source), signal });
  return sent.body?.data ?? sent.body;
}

function failed(path: string, size: number, err: unknown): FileResult {
  return {
    path, size, ok: false,
    exit_code: err instanceof GshError ? err.exitCode : Exit.error,
    error: err instanceof Error ? err.message : String(err),
    ...(err instanceof OutcomeUnknownError ? { idempotency_key: err.idempotencyKey } : {}),
  };
}

/** Runs `work` on every item with at most `parallel` at once; stops starting new ones once `stopped()`. */
async function pool<T>(items: readonly T[], parallel: number, stopped: () => boolean, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length && !stopped()) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(parallel, items.length) }, worker));
}

/** What a tree upload did: every file's result, and what an interrupt left. */
interface TreeOutcome {
  results: FileResult[];
  /** The exit code of the signal that stopped it. */
  interrupted?: number;
  /** Files in flight when it was stopped (not complete on the server). */
  inFlight: string[];
  notStarted: number;
}

/**
 * Creates the folders, uploads the files and prints one result per file and a summary. Exit 0
 * when every file landed, 11 when some failed; Ctrl-C starts nothing new, aborts the uploads in
 * flight (naming them) and exits 130 (143).
 */
export async function uploadTree(rt: Runtime, client: ApiClient, serverId: string, plan: TreePlan, parallel: number): Promise<number> {
  const { results, interrupted, inFlight, notStarted } = await sendTree(rt, client, serverId, plan, parallel);
  await show(rt, results);
  rt.note(treeSummary(plan, results));
  if (interrupted !== undefined) {
    if (inFlight.length) rt.note(`Interrupted while uploading (not complete on the server): ${inFlight.join(', ')}`);
    rt.note(`Interrupted: ${notStarted} files not started.`);
    return interrupted;
  }
  return results.some((r) => !r.ok) ? Exit.someFailed : Exit.ok;
}

/**
 * One server's tree upload among several (files put DIR -s a,b): its files and summary are its
 * result in the fleet's table; a file that failed fails the server (exit 11), an interrupt ends
 * it with 130 (143), its message naming the files in flight.
 */
export async function uploadTreeInFleet(rt: Runtime, client: ApiClient, serverId: string, plan: TreePlan, parallel: number): Promise<unknown> {
  const { results, interrupted, inFlight, notStarted } = await sendTree(rt, client, serverId, plan, parallel);
  const summary = treeSummary(plan, results);
  if (interrupted !== undefined) {
    throw new GshError(`interrupted: ${summary}${inFlight.length ? `; not complete on the server: ${inFlight.join(', ')}` : ''}; ${notStarted} files not started`, interrupted);
  }
  const bad = results.filter((r) => !r.ok);
  if (bad.length) throw new GshError(`${summary} (${bad[0]?.path}: ${bad[0]?.error ?? `exit ${bad[0]?.exit_code}`}${bad.length > 1 ? `; and ${bad.length - 1} more` : ''})`, Exit.someFailed);
  return { summary, files: results };
}

function treeSummary(plan: TreePlan, results: readonly FileResult[]): string {
  const sent = results.filter((r) => r.ok);
  const bad = results.filter((r) => !r.ok && !r.interrupted && !r.not_started);
  const moved = sent.reduce((n, r) => n + r.size, 0);
  return `${sent.length} of ${plan.files.length} files uploaded (${formatBytes(moved)}) into ${plan.target}${bad.length ? `; ${bad.length} failed: ${bad.map((r) => r.path).join(', ')}` : ''}`;
}

async function sendTree(rt: Runtime, client: ApiClient, serverId: string, plan: TreePlan, parallel: number): Promise<TreeOutcome> {
  const sp = `/servers/${encodeURIComponent(serverId)}`;
  let interrupted: number | undefined;
  /** Files being sent, with the bytes of this attempt so far. */
  const moving = new Map<TreeFile, number>();
  // Ctrl-C does not wait for the files in flight (a large one could take minutes): it aborts and names them.
  const abort = new AbortController();
  let inFlight: string[] = [];
  const handlers = ([['SIGINT', Exit.interrupted], ['SIGTERM', Exit.terminated]] as const).map(([signal, code]) => {
    const on = () => {
      if (interrupted !== undefined) return;
      interrupted = code;
      inFlight = [...moving.keys()].map((f) => (f.directory === '/' ? `/${f.name}` : `${f.directory}/${f.name}`));
      abort.abort();
    };
    rt.ctx.signals.on(signal, on);
    return [signal, on] as const;
  });
  const stopped = () => interrupted !== undefined;
  const brokenFolders = new Map<string, string>();
  const results: FileResult[] = [];
  const total = plan.files.reduce((n, f) => n + f.size, 0);
  const bar = progressBar(rt, total, plan.files.length);
  let doneBytes = 0;
  const draw = () => bar.update(doneBytes + [...moving.values()].reduce((a, b) => a + b, 0), results.length);
  try {
    // Parents before children: one depth at a time, the folders of a depth in parallel.
    const depths = new Map<number, string[]>();
    for (const f of plan.folders) depths.set(f.split('/').length, [...(depths.get(f.split('/').length) ?? []), f]);
    for (const level of [...depths.keys()].sort((a, b) => a - b)) {
      await pool(depths.get(level)!, parallel, stopped, async (folder) => {
        const parentBroken = [...brokenFolders.keys()].find((b) => folder.startsWith(`${b}/`));
        if (parentBroken) return void brokenFolders.set(folder, brokenFolders.get(parentBroken)!);
        await ensureFolder(client, sp, folder).catch((err: unknown) => {
          brokenFolders.set(folder, `the folder ${folder} could not be created: ${err instanceof Error ? err.message : String(err)}`);
        });
      });
    }
    await pool(plan.files, parallel, stopped, async (f) => {
      const path = f.directory === '/' ? `/${f.name}` : `${f.directory}/${f.name}`;
      const broken = brokenFolders.get(f.directory);
      if (broken) {
        results.push(failed(path, f.size, new GshError(broken)));
        return draw();
      }
      moving.set(f, 0);
      try {
        const source = counted(localFile(f.local, f.size, f.name, readSizeFor(parallel)), (n) => {
          moving.set(f, n);
          draw();
        });
        await uploadOne(client, serverId, f.directory, source, undefined, abort.signal);
        results.push({ path, size: f.size, ok: true, exit_code: Exit.ok });
      } catch (err) {
        if (!abort.signal.aborted) results.push(failed(path, f.size, err));
      } finally {
        moving.delete(f);
        doneBytes += f.size;
        draw();
      }
    });
  } finally {
    bar.stop();
    for (const [signal, on] of handlers) rt.ctx.signals.off(signal, on);
  }

  let notStarted = 0;
  if (interrupted !== undefined) {
    // Every file is listed: those in flight as interrupted, the rest as not started.
    const listed = new Set(results.map((r) => r.path));
    for (const f of plan.files) {
      const path = f.directory === '/' ? `/${f.name}` : `${f.directory}/${f.name}`;
      if (listed.has(path)) continue;
      const flying = inFlight.includes(path);
      if (!flying) notStarted++;
      results.push({ path, size: f.size, ok: false, exit_code: interrupted, ...(flying ? { interrupted: true, error: 'interrupted while uploading: not complete on the server' } : { not_started: true, error: 'not started: interrupted first' }) });
    }
  }
  return { results, ...(interrupted !== undefined ? { interrupted } : {}), inFlight, notStarted };
}

async function show(rt: Runtime, results: FileResult[]): Promise<void> {
  if (rt.format !== 'table' || rt.globals.jq !== undefined) return rt.out.show(results);
  const rows = results.map((r) => ({ path: r.path, size: formatBytes(r.size), result: r.ok ? 'ok' : r.not_started ? 'not started' : r.interrupted ? 'interrupted' : `failed (exit ${r.exit_code})`, detail: r.error ?? '' }));
  await rt.out.show(rows, { columns: ['path', 'size', 'result', 'detail'] });
}
