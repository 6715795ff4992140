import { accessSync, constants, lstatSync, statSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { looksBinary } from './binary.js';
import { createBeside, type FileBeside } from '../disk/disk.js';
import { Exit, GshError, UsageError } from '../errors.js';
import type { ApiClient, RequestSpec } from '../wire/http.js';
import type { DirectAnswerBody } from '../wire/wire.js';
import type { Streams } from '../terminal/io.js';
import { type Progress, progressBar } from './progress.js';
import type { Runtime } from '../run/runtime.js';

// The one download path (03-endpoints-part-b.md "File transfers", "Worlds"; the backups families
// name a `download` action): an answer carrying a short-lived signed URL is followed to the bytes,
// streamed with flat memory to a file (a temporary file beside it, renamed at the end, so a cut
// transfer never leaves a partial FILE), into a directory under the name Content-Disposition
// gives, or to stdout. `gsh files get` and every registry operation marked `signedUrl` use it.

/** Where `--to` sends the bytes, decided while planning. */
export type DownloadTarget =
  | { kind: 'stdout'; explicit: boolean }
  | { kind: 'file'; path: string; clobber: boolean }
  | { kind: 'dir'; dir: string; clobber: boolean };

/** Stands for the signed URL in a plan: it is known only from the first answer. */
export const SIGNED_URL = 'https://signed-url.invalid/(from-the-first-answer)';

/** The GET of the signed URL: its own authorization, so no bearer goes with it. */
export function fetchSpec(url: string): RequestSpec {
  return { method: 'GET', path: url, headers: { accept: '*/*' }, auth: false };
}

function checkWritableDir(flag: string, dir: string): void {
  try {
    if (!statSync(dir).isDirectory()) throw new UsageError(`${flag}: ${dir} is not a directory`);
    accessSync(dir, constants.W_OK);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`${flag}: ${code === 'ENOENT' ? `the directory ${dir} does not exist` : `cannot write in ${dir} (${code})`}`, 'Create the directory first, or give another path.');
  }
}

/**
 * `--to FILE|DIR|-` checked before any request (exit 2): `-` is stdout; an existing directory
 * (or a path ending in /) takes the name the download gives; a file's directory must exist and be
 * writable, and an existing file is replaced only with --clobber (as gh release download).
 */
export function planTarget(to: string | undefined, clobber: boolean): DownloadTarget | undefined {
  if (to === undefined) {
    if (clobber) throw new UsageError('--clobber replaces a file --to would write; give --to FILE or --to DIR');
    return undefined;
  }
  if (to === '-') return { kind: 'stdout', explicit: true };
  if (to === '') throw new UsageError('--to needs a file, a directory or - (stdout)');
  const flag = `--to ${to}`;
  const full = resolve(to);
  let existing: ReturnType<typeof statSync> | undefined;
  try {
    existing = statSync(full);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw new UsageError(`${flag}: ${fsReason(code)}`, 'Give a shorter or another path.');
    existing = undefined;
  }
  if (existing?.isDirectory() || /[\\/]$/.test(to)) {
    checkWritableDir(flag, full);
    return { kind: 'dir', dir: full, clobber };
  }
  checkWritableDir(flag, dirname(full));
  if (existing && !clobber) throw new UsageError(`${flag}: the file exists`, 'Add --clobber to replace it, or give another path.');
  if (existing && !existing.isFile()) throw new UsageError(`${flag}: not a regular file`);
  return { kind: 'file', path: full, clobber };
}

/** The download step of a plan, in words (`--dry-run`). */
export function describeTarget(t: DownloadTarget, to: string, what = 'GET the signed URL of the answer and stream the bytes'): string {
  const where = t.kind === 'stdout' ? 'standard output' : t.kind === 'dir' ? `${to} under the name Content-Disposition gives` : to;
  return `${what} to ${where}${t.kind === 'stdout' ? '' : ' (through a temporary file, renamed at the end)'}${t.kind !== 'stdout' && t.clobber ? ', replacing an existing file (--clobber)' : ''}`;
}

/** The signed URL of an answer (`url`), or an error naming what came instead. */
export function signedUrlOf(data: unknown): string {
  const url = (data as { url?: unknown } | undefined)?.url;
  if (typeof url !== 'string' || !/^https?:\/\//.test(url)) throw new GshError('the API answered without a signed URL (no "url" field)', Exit.error);
  return url;
}

/** A byte count the answer gives for what the URL serves, if any (the contract names none). */
export function announcedSize(data: unknown): number | undefined {
  const d = (data ?? {}) as Record<string, unknown>;
  for (const k of ['size', 'bytes', 'size_bytes']) {
    const v = d[k];
    if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return v;
  }
  return undefined;
}

/** The file name Content-Disposition gives (RFC 6266: filename* first), made safe: a base name only. */
export function dispositionName(header: string | undefined): string | undefined {
  if (!header) return undefined;
  let name: string | undefined;
  const star = /filename\*\s*=\s*(?:UTF-8|utf-8)?'[^']*'([^;]+)/.exec(header);
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/.exec(header);
  try {
    name = star ? decodeURIComponent(star[1]!.trim()) : plain ? decodeURIComponent((plain[1] ?? plain[2] ?? '').replace(/\\(.)/g, '$1')) : undefined;
  } catch {
    name = plain?.[1] ?? plain?.[2];
  }
  return name ? safeName(name) : undefined;
}

/** A base name only (no directory, no control characters), or undefined when nothing is left. */
function safeName(name: string): string | undefined {
  const safe = basename(name.replace(/\\/g, '/')).replace(/[\x00-\x1f]/g, '_');
  return safe && safe !== '.' && safe !== '..' ? safe : undefined;
}

export interface DownloadOptions {
  /** A size the answer gave; checked as Content-Length is. */
  size?: number;
  /** Name in a directory when Content-Disposition gives none. */
  fallbackName: string;
  /** For stdout without --to on a terminal: refuse binary bytes with this error. */
  binaryOnTerminal?: (bytesKnown: number | undefined) => GshError;
}

export interface Downloaded {
  bytes: number;
  /** The file written; absent for stdout. */
  path?: string;
}

/** What the file system said, in words, with its code. */
function fsReason(code: string | undefined): string {
  const words: Record<string, string> = {
    ENAMETOOLONG: 'the file name is too long for this file system',
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    ENOSPC: 'no space left on the device',
    EROFS: 'the file system is read-only',
    EISDIR: 'it is a directory',
    EINVAL: 'the file system refuses this name',
    EILSEQ: 'the file system refuses this name',
  };
  return code ? `${words[code] ?? 'the file system refused it'} (${code})` : 'the file system refused it';
}

/** The calls that save a file (a socket's errors come from others: read, connect). */
const FILE_CALLS = new Set(['open', 'write', 'fsync', 'close', 'rename', 'link', 'fchmod', 'chmod']);

/** A file-system failure while saving, as an error naming the file (never an internal error). */
function saveError(path: string, err: unknown): unknown {
  const { code, syscall } = err as NodeJS.ErrnoException;
  if (err instanceof GshError || !FILE_CALLS.has(syscall ?? '')) return err;
  // Without --clobber the file is linked at its name at the end: another writer got there first.
  if (code === 'EEXIST' && syscall === 'link') return new GshError(`${path} exists; nothing downloaded`, Exit.error, 'Add --clobber to replace it, or give a file name with --to.');
  return new GshError(`cannot save ${path}: ${fsReason(code)}; nothing downloaded`, Exit.error);
}

/**
 * GETs the signed URL and streams its body to the target. Each attempt writes a fresh temporary
 * file and removes it on failure; the request core retries a cut transfer like a dropped
 * connection (exit 9 when retries run out). To stdout, a retry happens only while nothing has
 * been written yet (bytes already in a pipe cannot be taken back).
 */
export function download(rt: Runtime, client: ApiClient, url: string, target: DownloadTarget, opts: DownloadOptions): Promise<Downloaded> {
  return saveBody(rt, client, fetchSpec(url), target, opts);
}

/** Sends `spec` and streams a successful answer's body to the target (downloads, `gsh api --to`). */
export async function saveBody(rt: Runtime, client: ApiClient, spec: RequestSpec, target: DownloadTarget, opts: DownloadOptions): Promise<Downloaded> {
  let done: Downloaded | undefined;
  // Ctrl-C or SIGTERM mid-transfer ends the body with an error, so the temporary file goes too.
  let reading: { destroy(err: Error): void } | undefined;
  let stopped: GshError | undefined;
  const handlers = ([['SIGINT', Exit.interrupted], ['SIGTERM', Exit.terminated]] as const).map(([signal, code]) => {
    const on = () => {
      stopped = new GshError(`interrupted: the download stopped${target.kind === 'stdout' ? '' : ' and nothing was saved'}`, code);
      reading?.destroy(stopped);
    };
    rt.ctx.signals.on(signal, on);
    return [signal, on] as const;
  });
  const sink = async (body: AsyncIterable<Uint8Array>, headers: Record<string, string>): Promise<void> => {
    if (stopped) throw stopped;
    reading = body as unknown as { destroy(err: Error): void };
    const length = headers['content-length'] !== undefined ? Number(headers['content-length']) : undefined;
    const expected = opts.size ?? (Number.isFinite(length) ? length : undefined);
    if (opts.size !== undefined && length !== undefined && length !== opts.size) {
      throw new GshError(`the download is ${length} bytes but the answer announced ${opts.size}`, Exit.error);
    }
    const bar = progressBar(rt, expected);
    try {
      if (target.kind === 'stdout') {
        done = { bytes: await toStdout(rt.io, body, bar, target.explicit ? undefined : opts.binaryOnTerminal, expected) };
        return;
      }
      const path = target.kind === 'file' ? target.path : join(target.dir, dispositionName(headers['content-disposition']) ?? safeName(opts.fallbackName) ?? 'download');
      if (target.kind === 'dir' && !target.clobber && exists(path)) {
        throw new GshError(`${path} exists; nothing downloaded`, Exit.error, 'Add --clobber to replace it, or give a file name with --to.');
      }
      done = { bytes: await toFile(path, body, bar, expected, target.clobber), path };
    } finally {
      bar.stop();
    }
  };
  try {
    const res = await client.request({ ...spec, sink });
    // The request core streams only a 2xx with a body to the sink; anything else saved nothing.
    if (!done) throw notADownload(res.status, res.headers.location);
  } catch (err) {
    throw stopped ?? err;
  } finally {
    for (const [signal, on] of handlers) rt.ctx.signals.off(signal, on);
  }
  return done;
}

/** A download is a 2xx with a body: a redirect (never followed) or a 204 is a failure, nothing saved. */
function notADownload(status: number, location: string | undefined): GshError {
  const redirect = status >= 300 && status < 400;
  const what = redirect ? `a redirect${location ? ` to ${location}` : ''}, which gsh does not follow` : 'no body';
  return new GshError(`the answer was HTTP ${status} (${what}), not the bytes: nothing was saved`, Exit.error,
    redirect ? 'gsh follows no redirect: ask for a new download URL, or fetch the target yourself if you trust it.' : undefined);
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

function truncated(got: number, expected: number): GshError {
  const err = new GshError(`the transfer ended after ${got} of ${expected} bytes`, Exit.unavailable);
  (err as GshError & { code: string }).code = 'ETRUNCATED';
  return err;
}

/** Fewer bytes than announced is a cut transfer (retried); more is an answer that lied (not). */
function checkSize(got: number, expected: number | undefined): void {
  if (expected === undefined || got === expected) return;
  if (got < expected) throw truncated(got, expected);
  throw new GshError(`the download sent ${got} bytes, more than the ${expected} announced`, Exit.error);
}

/**
 * The mode of the file a download replaces (kept), or undefined for a new file (0644 less the
 * umask). A symbolic link at the target is replaced, not written through (core/disk/disk.ts), so what
 * it points to gives no mode.
 */
function replacedMode(path: string): number | undefined {
  try {
    const st = lstatSync(path);
    return st.isFile() ? st.mode & 0o7777 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Streams to a temporary file in the target's directory (core/disk/disk.ts createBeside: created new
 * under a random name), renamed over the target at the end.
 */
async function toFile(path: string, body: AsyncIterable<Uint8Array>, bar: Progress, expected: number | undefined, clobber: boolean): Promise<number> {
  const file = await createBeside(path, { mode: replacedMode(path), replace: clobber }).catch((err: unknown) => {
    throw saveError(path, err);
  });
  try {
    // A replaced file keeps its mode (a 0600 secret stays 0600), set exactly, not through the umask.
    const written = isDirect(body) ? await writeDirect(file, body, (n) => bar.update(n)) : await writeAll(file.handle, body, (n) => bar.update(n));
    checkSize(written, expected);
    await file.commit();
    return written;
  } catch (err) {
    await file.discard();
    throw saveError(path, err);
  }
}

/** Whether a body can be drained straight from its connection's read buffer (core/wire/direct-body.ts). */
function isDirect(body: unknown): body is DirectAnswerBody {
  return typeof (body as Partial<DirectAnswerBody> | undefined)?.drainTo === 'function';
}

/**
 * Each read of the socket written at once, synchronously, from the one read buffer, as curl
 * does (issue 55): no allocation or stream step per chunk, the bytes still in the cache. A write
 * that fails ends the reading with its error.
 */
async function writeDirect(file: FileBeside, body: DirectAnswerBody, onBytes: (received: number) => void): Promise<number> {
  let received = 0;
  await body.drainTo((chunk) => {
    file.writeNow(chunk);
    received += chunk.length;
    onBytes(received);
  });
  return received;
}

/** The most bytes gathered while a write is on the disk; then the reading waits for it. */
const GATHER = 4 * 1024 * 1024;

/**
 * Writes the body in order with one write on the disk at a time, the chunks that arrive meanwhile
 * gathered for the next (one writev): the socket is read while the disk writes, instead of in
 * turns. Measured on a 1 GiB loopback download (issue 39): awaiting each chunk's write cost
 * 2.43 s of CPU, gathering 2.05 s. A write that failed ends the reading at the next chunk.
 */
export async function writeAll(fh: FileHandle, body: AsyncIterable<Uint8Array>, onBytes: (received: number) => void): Promise<number> {
  let received = 0;
  let gathered: Uint8Array[] = [];
  let gatheredBytes = 0;
  let writing: Promise<void> | undefined;
  let failed: { err: unknown } | undefined;
  const write = () => {
    const batch = gathered;
    gathered = [];
    gatheredBytes = 0;
    writing = fh.writev(batch).then(
      () => void (writing = undefined),
      (err: unknown) => void ((writing = undefined), (failed = { err })),
    );
  };
  const check = () => {
    if (failed) throw failed.err;
  };
  for await (const chunk of body) {
    check();
    gathered.push(chunk);
    gatheredBytes += chunk.length;
    received += chunk.length;
    onBytes(received);
    if (writing && gatheredBytes >= GATHER) await writing;
    check();
    if (!writing) write();
  }
  await writing;
  if (gathered.length) {
    write();
    await writing;
  }
  check();
  return received;
}

async function toStdout(io: Streams, body: AsyncIterable<Uint8Array>, bar: Progress, binaryOnTerminal: DownloadOptions['binaryOnTerminal'], expected: number | undefined): Promise<number> {
  let written = 0;
  try {
    for await (const chunk of body) {
      if (written === 0 && binaryOnTerminal && io.stdoutTTY && looksBinary(chunk)) throw binaryOnTerminal(expected);
      // Flat memory on a slow pipe: wait for it to drain before reading more.
      // The file's bytes as they came; on a terminal its escape sequences show as text, colours too.
      if (!io.serviceStdout.write(chunk)) await new Promise<void>((r) => (io.serviceStdout as NodeJS.WritableStream).once('drain', () => r()));
      written += chunk.length;
      bar.update(written);
    }
    checkSize(written, expected);
  } catch (err) {
    // Bytes already in the pipe cannot be taken back: a retry would repeat them.
    const cut = !(err instanceof GshError) || (err as { code?: string }).code === 'ETRUNCATED';
    if (written > 0 && cut) {
      throw new GshError(`the transfer was cut after ${written} bytes already written to standard output; the output is incomplete`, Exit.unavailable, 'Download to a file with --to FILE: a cut transfer is retried there.');
    }
    throw err;
  }
  return written;
}
