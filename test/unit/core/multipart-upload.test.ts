import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { localFile, readSizeFor } from '../../../src/core/transfer/multipart-upload.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const dir = mkdtempSync(join(tmpdir(), 'gsh-multipart-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function reads(source: { open(): AsyncIterable<Uint8Array> }): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for await (const c of source.open()) out.push(Buffer.from(c));
  return out;
}

describe('localFile: a file read for an upload', () => {
  const bytes = Buffer.from(Array.from({ length: 2 * MiB + 5 }, (_, i) => i % 251));
  const path = join(dir, 'f.bin');
  writeFileSync(path, bytes);

  it('reads 1 MiB at a time, every byte in order, again from the start on each attempt', async () => {
    const source = localFile(path, bytes.length, 'f.bin');
    for (let attempt = 0; attempt < 2; attempt++) {
      const got = await reads(source);
      expect(got.map((c) => c.length)).toEqual([MiB, MiB, 5]);
      expect(Buffer.concat(got).equals(bytes)).toBe(true);
    }
  });

  it('reads the size it is given (uploads at once share one upload\'s reads)', async () => {
    const got = await reads(localFile(path, bytes.length, 'f.bin', readSizeFor(8)));
    expect(got.every((c, i) => c.length === (i < got.length - 1 ? 128 * KiB : bytes.length % (128 * KiB)))).toBe(true);
    expect(Buffer.concat(got).equals(bytes)).toBe(true);
  });

  it('a file that is not the planned size is an error, not a body that disagrees with its length', async () => {
    await expect(reads(localFile(path, bytes.length - 1, 'f.bin'))).rejects.toThrow('changed size during the upload');
    await expect(reads(localFile(path, bytes.length + 1, 'f.bin'))).rejects.toThrow(`(${bytes.length + 1} bytes when it started, ${bytes.length} bytes now)`);
  });
});

describe('readSizeFor: the reads of uploads at once', () => {
  it('one upload reads 1 MiB; several share it, never below 64 KiB each', () => {
    expect([1, 2, 4, 16, 32].map(readSizeFor)).toEqual([MiB, 512 * KiB, 256 * KiB, 64 * KiB, 64 * KiB]);
  });
});
