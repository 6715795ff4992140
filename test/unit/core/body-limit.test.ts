import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readLimited } from '../../../src/core/wire/body-limit.js';

// An answer read into memory is bounded (ARCHITECTURE.md "Requests": answers; README
// GSH_MAX_RESPONSE_BYTES): refused from Content-Length before reading, or as soon as the bytes
// read pass the limit; a body that breaks or closes early fails as the stream says.
describe('readLimited', () => {
  const chunks = (...parts: string[]) => Readable.from(parts.map((p) => Buffer.from(p)), { objectMode: false });

  it('the whole body, in order', async () => {
    expect((await readLimited(chunks('ab', 'cd', 'e'), 5, undefined)).toString()).toBe('abcde');
    expect((await readLimited(chunks(), 5, '0')).length).toBe(0);
  });

  it('a Content-Length past the limit is refused before a byte is read', async () => {
    const body = chunks('x');
    await expect(readLimited(body, 10, '2048')).rejects.toThrow('the answer is 2.0 KiB (Content-Length), more than the 10 B gsh reads into memory (GSH_MAX_RESPONSE_BYTES)');
    expect(body.readableEnded).toBe(false);
  });

  it('a body without a length stops being read once it passes the limit', async () => {
    let pulled = 0;
    const body = new Readable({ read() { pulled += 1; this.push(Buffer.alloc(4)); } });
    await expect(readLimited(body, 10, undefined)).rejects.toThrow('the answer is over 10 B, more than the 10 B');
    const seen = pulled;
    await new Promise((r) => setImmediate(r));
    expect(pulled).toBeLessThanOrEqual(seen + 1);
    body.destroy();
  });

  it('a body that breaks, or closes before its end, fails with what the stream says', async () => {
    const broken = new Readable({ read() {} });
    const reading = readLimited(broken, 100, undefined);
    broken.push('part');
    broken.destroy(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    await expect(reading).rejects.toMatchObject({ code: 'ECONNRESET' });
    const cut = new Readable({ read() {} });
    const cutReading = readLimited(cut, 100, undefined);
    cut.push('part');
    cut.destroy();
    await expect(cutReading).rejects.toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
  });
});
