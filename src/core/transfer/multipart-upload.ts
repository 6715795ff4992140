import { randomBytes } from 'node:crypto';
import { open } from 'node:fs/promises';
import { Exit, GshError } from '../errors.js';
import type { RequestSpec, StreamBody } from '../wire/http.js';

// The upload half of a signed-URL transfer (03-endpoints-part-b.md "File transfers": "send the
// file there by POST as a multipart form with query parameter `directory` appended"). The body is
// streamed (the part's head, the file read from disk, the closing boundary) with an exact
// Content-Length, so memory stays flat whatever the file's size. Each attempt opens the file
// afresh, so a retry sends it from the start; a file whose size changes while it is read is an
// error, never a body that disagrees with its Content-Length.

/** What one upload sends: a name for the node and bytes that can be read again from the start. */
export interface UploadSource {
  name: string;
  size: number;
  /**
   * A fresh read from the first byte; called once per attempt. A chunk is valid until the next
   * is asked for (its buffer is read into again): a consumer that keeps one copies it.
   */
  open(): AsyncIterable<Uint8Array>;
}

/**
 * Reads of 1 MiB, the next one started while the last is being sent: the disk and the socket work
 * at once instead of in turns. Measured on a 1 GiB loopback upload (issue 39): 256 KiB reads in
 * turns cost 1.24-1.44 s of CPU, 1 MiB reads read ahead 0.90-1.12 s; 4 MiB reads were no faster.
 */
const READ_SIZE = 1024 * 1024;

/**
 * The read size of each of `parallel` uploads at once: they share one upload's 1 MiB (at least
 * 64 KiB each), as each holds a few reads in memory. Measured on 32 files of 64 MiB at once: 1 MiB
 * each peaked at 230 MiB, 64 KiB each at 108 MiB.
 */
export function readSizeFor(parallel: number): number {
  return Math.max(64 * 1024, Math.floor(READ_SIZE / Math.max(1, parallel)));
}

/** A local file of `size` bytes (its size when planned); reading it checks the size still holds. */
export function localFile(path: string, size: number, name: string, readSize = READ_SIZE): UploadSource {
  return { name, size, open: () => readExactly(path, size, readSize) };
}

function changed(path: string, planned: number, now: string): GshError {
  return new GshError(`${path} changed size during the upload (${planned} bytes when it started, ${now} now); nothing complete was sent`, Exit.error, 'Upload it again once nothing is writing to it.');
}

async function* readExactly(path: string, size: number, readSize: number): AsyncGenerator<Uint8Array> {
  const fh = await open(path, 'r').catch((err: NodeJS.ErrnoException) => {
    throw new GshError(`cannot read ${path}: ${err.code ?? err.message}`, Exit.error);
  });
  let read = 0;
  // One byte past the planned size is asked for, so a file that grew is seen. Two buffers, used in
  // turn: one is read into while the other is sent, and the consumer asks for the next chunk
  // only once the last is written (undici waits for the socket's drain, which a chunk larger
  // than its high-water mark always needs), so a buffer is read into again only after its bytes
  // left. Fresh buffers for each read cost a page fault per 4 KiB: measured on a 1 GiB loopback
  // upload (issue 55), see README "Speed".
  const buffers = [Buffer.allocUnsafe(Math.min(readSize, size + 1)), Buffer.allocUnsafe(Math.min(readSize, size + 1))];
  let turn = 0;
  const next = (at: number) => fh.read(buffers[turn++ % 2]!, 0, Math.min(readSize, Math.max(size - at, 0) + 1), at);
  let pending: ReturnType<typeof next> | undefined = next(0);
  try {
    for (;;) {
      const { bytesRead, buffer } = await pending;
      pending = undefined;
      if (bytesRead === 0) break;
      read += bytesRead;
      if (read > size) throw changed(path, size, 'more');
      pending = next(read);
      yield buffer.subarray(0, bytesRead);
    }
  } finally {
    // A stopped upload (an error, Ctrl-C) leaves no read running on the closed file.
    await pending?.catch(() => {});
    await fh.close();
  }
  if (read !== size) throw changed(path, size, `${read} bytes`);
}

/** Counts the bytes of each read as they pass (progress); the count starts again on a retry. */
export function counted(source: UploadSource, onBytes: (sentOfThisAttempt: number) => void): UploadSource {
  return {
    ...source,
    async *open() {
      let sent = 0;
      for await (const chunk of source.open()) {
        yield chunk;
        sent += chunk.length;
        onBytes(sent);
      }
    },
  };
}

/** One file part (field name `files`, as the node expects) around the source's bytes. */
export function multipartBody(source: UploadSource): { body: StreamBody; contentType: string } {
  const boundary = `gsh${randomBytes(12).toString('hex')}`;
  const safe = source.name.replace(/["\r\n\\]/g, '_');
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="${safe}"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    body: {
      length: head.length + source.size + tail.length,
      async *open() {
        yield head;
        yield* source.open();
        yield tail;
      },
    },
  };
}

/** The POST of the bytes to a signed upload URL, into `directory` on the server. */
export function uploadSpec(url: string, directory: string, source: UploadSource): RequestSpec {
  const form = multipartBody(source);
  return { method: 'POST', path: url, query: { directory }, streamBody: form.body, headers: { 'content-type': form.contentType } };
}
