import { finished, type Readable } from 'node:stream';
import { Exit, GshError, UsageError } from '../errors.js';

// Answers that are not downloads are read into memory (parsed, printed, filtered), so their size
// is bounded: 64 MiB unless GSH_MAX_RESPONSE_BYTES says otherwise. A body past the limit stops
// the read with a clear error instead of growing until the process dies; downloads stream
// (core/transfer/download.ts) and `gsh api --to FILE` streams a body of any size.

export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

const SUFFIX: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };

/** GSH_MAX_RESPONSE_BYTES: bytes, or a number with K, M or G (KiB, MiB, GiB). */
export function maxResponseBytes(env: NodeJS.ProcessEnv): number {
  const raw = env.GSH_MAX_RESPONSE_BYTES;
  if (raw === undefined || raw === '') return DEFAULT_MAX_RESPONSE_BYTES;
  const m = /^\s*(\d+)\s*([kmg]?)(?:i?b)?\s*$/i.exec(raw);
  const n = m ? Number(m[1]) * SUFFIX[m[2]!.toLowerCase()]! : NaN;
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new UsageError(`GSH_MAX_RESPONSE_BYTES must be a number of bytes, e.g. 67108864 or 64M (got "${raw}")`);
  }
  return n;
}

/** `declared`: the size Content-Length announced; without it, the body grew past the limit. */
async function tooLarge(limit: number, declared?: number): Promise<GshError> {
  // Only this message formats sizes: bytes.ts is not loaded with every request.
  const { formatBytes } = await import('../bytes.js');
  const seen = declared === undefined ? `over ${formatBytes(limit)}` : `${formatBytes(declared)} (Content-Length)`;
  return new GshError(
    `the answer is ${seen}, more than the ${formatBytes(limit)} gsh reads into memory (GSH_MAX_RESPONSE_BYTES)`,
    Exit.error,
    'Stream it to a file instead (gsh api PATH --to FILE), or raise GSH_MAX_RESPONSE_BYTES.',
  );
}

/**
 * The whole body, refused as soon as it is known to pass `limit`: from Content-Length before
 * reading, else when the bytes read pass it (the rest is not read; the caller destroys the body).
 * Read with 'data' events and stream.finished, which ends on the same errors and early closes as
 * `for await` over the stream did, without the async iterator it builds for every answer.
 */
export async function readLimited(body: Readable, limit: number, contentLength: string | undefined): Promise<Buffer> {
  const declared = contentLength === undefined ? NaN : Number(contentLength);
  if (Number.isFinite(declared) && declared > limit) throw await tooLarge(limit, declared);
  const chunks: Buffer[] = [];
  let size = 0;
  const read = await new Promise<boolean>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      body.off('data', onData);
      body.pause();
      resolve(false);
    };
    body.on('data', onData);
    finished(body, { writable: false }, (err) => (err ? reject(err) : resolve(true)));
  });
  if (!read) throw await tooLarge(limit);
  return Buffer.concat(chunks, size);
}
