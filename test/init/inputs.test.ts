import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileOnce } from '../../src/init/inputs.js';

// A directory's file is read once: its head first (is it a manifest?), then the rest into a
// buffer sized from fstat. Every size around the head and far past it comes back byte for byte.

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gsh-inputs-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function manifestOf(size: number): Buffer {
  const head = Buffer.from('#service-init\nversion: 1\n# ');
  const body = Buffer.alloc(Math.max(0, size - head.length), 'x');
  return Buffer.concat([head, body]).subarray(0, Math.max(size, 0));
}

describe('readFileOnce', () => {
  for (const size of [30, 63, 64, 65, 4096, 48_000, 300_000]) {
    it(`reads a ${size}-byte manifest whole, from a directory and by name`, () => {
      const file = join(dir, `m${size}.yaml`);
      const bytes = manifestOf(size);
      writeFileSync(file, bytes);
      for (const manifestsOnly of [true, false]) {
        const read = readFileOnce(file, manifestsOnly);
        expect('bytes' in read && Buffer.from(read.bytes).equals(bytes)).toBe(true);
      }
    });
  }

  it('skips a file in a directory that does not start like a manifest, without reading it whole', () => {
    const file = join(dir, 'compose.yml');
    writeFileSync(file, `services:\n${'  web: {image: nginx}\n'.repeat(1000)}`);
    expect(readFileOnce(file, true)).toEqual({ skipped: true });
  });
});
