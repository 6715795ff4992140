import { describe, expect, it } from 'vitest';
import { announcedSize, dispositionName } from '../../../src/core/download.js';
import { formatBytes } from '../../../src/core/bytes.js';
import { backupState } from '../../../src/core/wait.js';

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
    const { planTarget } = await import('../../../src/core/download.js');
    expect(planTarget('-', false)).toEqual({ kind: 'stdout', explicit: true });
    expect(planTarget(undefined, false)).toBeUndefined();
    expect(() => planTarget(undefined, true)).toThrow(/--clobber replaces a file --to would write/);
    expect(() => planTarget('', false)).toThrow(/--to needs a file/);
  });
});
