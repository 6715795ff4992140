import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { distinctNames, safeFileName } from '../../../src/common/file-names.js';
import { exportFiles, printableName } from '../../../src/config-code/file-names.js';
import { createBeside } from '../../../src/core/disk/disk.js';

// File names made from server names (issue 51 items 4, 5, 9; README "Configuration as code",
// "One server, one file"): one safe-name rule, names given out for a whole run at once, and a
// no-clobber write that holds against a file that appears meanwhile.

describe('safeFileName', () => {
  it('replaces control characters, separators, Windows-refused characters, a leading dot and trailing dots', () => {
    expect(safeFileName('lobby')).toBe('lobby');
    expect(safeFileName('a\x1b[31mb\r\nc\x7f\x9b')).toBe('a_[31mb__c__');
    expect(safeFileName('../etc/passwd')).toBe('_._etc_passwd');
    expect(safeFileName('.hidden')).toBe('_hidden');
    expect(safeFileName('.')).toBe('_');
    expect(safeFileName('..')).toBe('__');
    expect(safeFileName('name. ')).toBe('name__');
    expect(safeFileName('a<b>c:d"e|f?g*h\\i')).toBe('a_b_c_d_e_f_g_h_i');
    expect(safeFileName('abc\u202Eexe.txt')).toBe('abc_exe.txt');
    expect(safeFileName('黄金の島')).toBe('黄金の島');
    expect(safeFileName('')).toBeUndefined();
    expect(safeFileName('x'.repeat(201))).toBeUndefined();
  });
});

describe('distinctNames', () => {
  const byName = (items: { id: string; name: string }[]) => distinctNames(items, (t) => safeFileName(t.name), (t) => t.id);
  it('shared names (case aside, or after replacement) fall back to ids; others keep theirs; order does not matter', () => {
    const items = [{ id: 'a1', name: 'Lobby' }, { id: 'b2', name: 'lobby' }, { id: 'c3', name: 'lo/bby' }, { id: 'd4', name: 'lo_bby' }, { id: 'e5', name: 'solo' }];
    const names = byName(items);
    expect([...names]).toEqual([['a1', 'a1'], ['b2', 'b2'], ['c3', 'c3'], ['d4', 'd4'], ['e5', 'solo']]);
    expect(new Map([...byName([...items].reverse())])).toEqual(names);
  });

  it('a name equal to another server\'s fallback id: that name falls back too, so no two share one', () => {
    const names = byName([{ id: 'aaaa1111', name: 'same' }, { id: 'bbbb2222', name: 'same' }, { id: 'cccc3333', name: 'aaaa1111' }]);
    expect(new Set(names.values()).size).toBe(3);
    expect(names.get('cccc3333')).toBe('cccc3333');
  });
});

describe('config export file names', () => {
  it('NAME.yaml; NAME--ID.yaml pinned where names are shared; an unknown name is ID.yaml, pinned', () => {
    const files = exportFiles([{ id: 'a1', name: 'twin' }, { id: 'b2', name: 'twin' }, { id: 'c3', name: 'lobby' }, { id: 'd4' }]);
    expect(files.get('a1')).toEqual({ file: 'twin--a1.yaml', pinned: true });
    expect(files.get('b2')).toEqual({ file: 'twin--b2.yaml', pinned: true });
    expect(files.get('c3')).toEqual({ file: 'lobby.yaml', pinned: false });
    expect(files.get('d4')).toEqual({ file: 'd4.yaml', pinned: true });
  });

  it('the header shows a name\'s control characters as \\uXXXX', () => {
    expect(printableName('a\x1b]0;x\x07\r\nb\u0085')).toBe('a\\u001b]0;x\\u0007\\u000d\\u000ab\\u0085');
  });
});

describe('no clobber under concurrency (core/disk/disk.ts createBeside)', () => {
  it('a file that appears while the download is written is kept: the commit fails with EEXIST', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsh-clobber-'));
    try {
      const path = join(dir, 'f.txt');
      const file = await createBeside(path, { replace: false });
      await file.handle.write('mine');
      writeFileSync(path, 'theirs');
      await expect(file.commit()).rejects.toMatchObject({ code: 'EEXIST' });
      expect(readFileSync(path, 'utf8')).toBe('theirs');
      // Nothing else is left beside it.
      const { readdirSync } = await import('node:fs');
      expect(readdirSync(dir)).toEqual(['f.txt']);
      // With replace (the default, --clobber) the file is replaced.
      const again = await createBeside(path);
      await again.handle.write('mine');
      await again.commit();
      expect(readFileSync(path, 'utf8')).toBe('mine');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
