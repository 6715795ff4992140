import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFields, parseKeyPath, typedValue } from '../../../src/core/flags/fields.js';
import { UsageError } from '../../../src/core/errors.js';

describe('-f/-F fields', () => {
  it('keeps -f values as strings and types -F values', () => {
    expect(parseFields({ raw: ['a=1', 'b=true'], typed: ['c=1', 'd=true', 'e=null', 'f=1.5', 'g=x'] })).toEqual({
      a: '1', b: 'true', c: 1, d: true, e: null, f: 1.5, g: 'x',
    });
  });

  it('nests a[b]= and appends a[]=', () => {
    expect(parseFields({ raw: ['a[b]=1', 'a[c][d]=2', 'l[]=x', 'l[]=y', 'o[][k]=v'] })).toEqual({
      a: { b: '1', c: { d: '2' } }, l: ['x', 'y'], o: [{ k: 'v' }],
    });
  });

  it('reads @file and @- for -F', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsh-fields-'));
    try {
      writeFileSync(join(dir, 'f.txt'), 'hello');
      expect(typedValue(`@${join(dir, 'f.txt')}`)).toBe('hello');
      expect(typedValue('@-', () => 'from stdin')).toBe('from stdin');
      expect(() => typedValue(`@${join(dir, 'missing')}`)).toThrow(UsageError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects malformed assignments and names', () => {
    expect(() => parseFields({ raw: ['novalue'] })).toThrow(/key=value/);
    expect(() => parseKeyPath('a[b')).toThrow(UsageError);
    expect(() => parseFields({ raw: ['[]=x'] })).toThrow(UsageError);
  });
});
