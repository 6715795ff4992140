import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { sendDirect } from '../../../src/core/wire/direct-body.js';
import type { DirectAnswerBody, WireAnswer } from '../../../src/core/wire/wire.js';

// The direct body reader of downloads (issue 55; core/wire/direct-body.ts): an HTTP/1.1 answer
// read into one reused buffer and drained synchronously, or read as a stream. Each test's server
// writes raw bytes, split where the framing is hardest to follow.

let server: Server | undefined;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

/** A server that answers each connection by `answer(socket)` once the request's head is in. */
async function rawServer(answer: (socket: Socket, request: string) => void): Promise<URL> {
  server = createServer((socket) => {
    let got = '';
    socket.on('data', (c: Buffer) => {
      got += c.toString('latin1');
      if (got.includes('\r\n\r\n')) answer(socket, got);
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/file?sig=1`);
}

const get = (url: URL, timeoutMs = 5000) => sendDirect({ url, method: 'GET', headers: { accept: '*/*' }, body: undefined, timeoutMs }, 5000);

/** Drains a body, copying each stretch (the buffer is reused after each call). */
async function drained(res: WireAnswer): Promise<Buffer> {
  const parts: Buffer[] = [];
  await (res.body as unknown as DirectAnswerBody).drainTo((c) => parts.push(Buffer.from(c)));
  return Buffer.concat(parts);
}

/** Writes `parts` one at a time, a turn apart, so the reader sees them as separate reads. */
function dribble(socket: Socket, parts: (string | Buffer)[], end = true): void {
  const next = () => {
    const p = parts.shift();
    if (p === undefined) return void (end && socket.end());
    socket.write(p, () => setTimeout(next, 5));
  };
  next();
}

describe('direct body', () => {
  it('sends one request (Host, the headers, Connection: close) and reads a Content-Length body split anywhere', async () => {
    let request = '';
    const url = await rawServer((s, req) => {
      request = req;
      dribble(s, ['HTTP/1.1 200 OK\r\nContent-Le', 'ngth: 11\r\nContent-Disposition: attachment; filename="a.bin"\r\n\r\nhel', 'lo world', 'ignored after the length']);
    });
    const res = await get(url);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-disposition']).toBe('attachment; filename="a.bin"');
    expect((await drained(res)).toString()).toBe('hello world');
    expect(request).toMatch(/^GET \/file\?sig=1 HTTP\/1\.1\r\nhost: 127\.0\.0\.1:\d+\r\naccept: \*\/\*\r\nconnection: close\r\n\r\n$/);
  });

  it('decodes a chunked body whose sizes and CRLFs fall across reads, trailers left out', async () => {
    const url = await rawServer((s) => dribble(s, ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r', '\nhello\r\n6;ext=1\r\n wor', 'ld\r', '\n0\r\nX-Trailer: 1\r\n', '\r\n'], false));
    expect((await drained(await get(url))).toString()).toBe('hello world');
  });

  it('reads a body delimited by the connection closing', async () => {
    const url = await rawServer((s) => dribble(s, ['HTTP/1.1 200 OK\r\n\r\nuntil ', 'the end']));
    expect((await drained(await get(url))).toString()).toBe('until the end');
  });

  it('is a stream too (an error\'s answer is read that way), with the same bytes', async () => {
    const url = await rawServer((s) => dribble(s, ['HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n{"error":', '"no"}']));
    const res = await get(url);
    expect(res.statusCode).toBe(404);
    const parts: Buffer[] = [];
    for await (const c of res.body) parts.push(c as Buffer);
    expect(Buffer.concat(parts).toString()).toBe('{"error":"no"}'.slice(0, 13));
  });

  it('a body cut before its Content-Length is a reset (retried by the request core), not a short success', async () => {
    const url = await rawServer((s) => dribble(s, ['HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly part']));
    await expect(drained(await get(url))).rejects.toMatchObject({ code: 'ECONNRESET' });
  });

  it('bytes that are not HTTP/1.1 are a malformed answer', async () => {
    const url = await rawServer((s) => dribble(s, ['SSH-2.0-OpenSSH_9.6\r\n\r\n']));
    await expect(get(url)).rejects.toMatchObject({ code: expect.stringMatching(/^HPE_/) });
  });

  it('no bytes within the timeout while reading is a timeout; a writer that throws ends the reading with its error', async () => {
    const slow = await rawServer((s) => dribble(s, ['HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nab'], false));
    await expect(drained(await get(slow, 100))).rejects.toMatchObject({ code: 'GSH_ATTEMPT_TIMEOUT' });
    await new Promise<void>((r) => server!.close(() => r()));
    const url = await rawServer((s) => dribble(s, ['HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nabcd']));
    const res = await get(url);
    const full = Object.assign(new Error('no space left'), { code: 'ENOSPC', syscall: 'write' });
    await expect((res.body as unknown as DirectAnswerBody).drainTo(() => {
      throw full;
    })).rejects.toBe(full);
    server = undefined;
  });
});
