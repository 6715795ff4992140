import { describe, expect, it } from 'vitest';
import type { FileHandle } from 'node:fs/promises';
import { announcedSize, dispositionName, writeAll } from '../../../src/core/transfer/download.js';
import { formatBytes } from '../../../src/core/bytes.js';
import { backupState } from '../../../src/core/fleet/wait.js';

describe('backupState: what the answer carries (the contract shows no backup fields or states)', () => {
  it('a status or state word decides first', () => {
    expect(backupState({ status: 'completed' })).toBe('finished');
    expect(backupState({ state: 'Succeeded' })).toBe('finished');
    expect(backupState({ status: 'failed', completed_at: '2026-01-01T00:00:00Z' })).toBe('failed');
    expect(backupState({ status: 'in_progress', completed_at: '2026-01-01T00:00:00Z' })).toBe('running');
    // An unknown word (envelope rule 4: tolerate unknown enum values) is not an end.
    expect(backupState({ status: 'compressing' })).toBe('running');
  });

  it('without one, completed_at (and is_successful) decide; a missing field means null', () => {
    expect(backupState({ completed_at: '2026-01-01T00:00:00Z' })).toBe('finished');
    expect(backupState({ completed_at: '2026-01-01T00:00:00Z', is_successful: false })).toBe('failed');
    expect(backupState({ completed_at: null })).toBe('running');
    expect(backupState({ uuid: 'x' })).toBe('running');
  });
});

describe('download names and sizes', () => {
  it('takes a base name from Content-Disposition (filename* first), never a path', () => {
    expect(dispositionName('attachment; filename="world.tar.gz"')).toBe('world.tar.gz');
    expect(dispositionName("attachment; filename*=UTF-8''caf%C3%A9.tar.gz; filename=\"cafe.tar.gz\"")).toBe('café.tar.gz');
    expect(dispositionName('attachment; filename="../../etc/passwd"')).toBe('passwd');
    expect(dispositionName('attachment; filename=".."')).toBeUndefined();
    expect(dispositionName('attachment')).toBeUndefined();
    expect(dispositionName(undefined)).toBeUndefined();
  });

  it('reads a size the answer gives', () => {
    expect(announcedSize({ size: 10 })).toBe(10);
    expect(announcedSize({ bytes: 0 })).toBe(0);
    expect(announcedSize({ size: '10' })).toBeUndefined();
    expect(announcedSize(undefined)).toBeUndefined();
  });

  it('formats sizes in binary units', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(3 * 1024 * 1024)).toBe('3.0 MiB');
  });
});

describe('planTarget: --to checked while planning', () => {
  it('- is stdout; --clobber alone is a usage error', async () => {
    const { planTarget } = await import('../../../src/core/transfer/download.js');
    expect(planTarget('-', false)).toEqual({ kind: 'stdout', explicit: true });
    expect(planTarget(undefined, false)).toBeUndefined();
    expect(() => planTarget(undefined, true)).toThrow(/--clobber replaces a file --to would write/);
    expect(() => planTarget('', false)).toThrow(/--to needs a file/);
  });
});

describe('writeAll: a download written while it arrives', () => {
  const MiB = 1024 * 1024;
  async function* chunks(n: number): AsyncGenerator<Uint8Array> {
    for (let i = 0; i < n; i++) yield Buffer.alloc(MiB, i);
  }
  /** A file whose writes finish a turn of the event loop later; `failAt` makes that write fail. */
  function file(failAt?: number) {
    const batches: Buffer[][] = [];
    const fh = {
      writev: (bufs: Buffer[]) =>
        new Promise((resolve, reject) =>
          setImmediate(() => {
            batches.push(bufs);
            if (batches.length === failAt) reject(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' }));
            else resolve({ bytesWritten: bufs.reduce((n, b) => n + b.length, 0), buffers: bufs });
          }),
        ),
    };
    return { fh: fh as unknown as FileHandle, batches };
  }

  it('writes every byte in order, gathering the chunks that arrive while a write is on the disk', async () => {
    const { fh, batches } = file();
    const seen: number[] = [];
    expect(await writeAll(fh, chunks(10), (n) => seen.push(n))).toBe(10 * MiB);
    // One write at a time: the first chunk alone, then 4 MiB gathered behind each write.
    expect(batches.map((b) => b.length)).toEqual([1, 4, 4, 1]);
    expect(Buffer.concat(batches.flat()).equals(Buffer.concat(Array.from({ length: 10 }, (_, i) => Buffer.alloc(MiB, i))))).toBe(true);
    expect(seen).toEqual(Array.from({ length: 10 }, (_, i) => (i + 1) * MiB));
  });

  it('a write that fails ends the download with its error, and stops reading the body', async () => {
    const { fh, batches } = file(2);
    let read = 0;
    const body = (async function* () {
      for await (const c of chunks(64)) {
        read++;
        yield c;
      }
    })();
    await expect(writeAll(fh, body, () => {})).rejects.toMatchObject({ code: 'ENOSPC', syscall: 'write' });
    expect(batches.length).toBe(2);
    expect(read).toBeLessThan(64);
  });
});
