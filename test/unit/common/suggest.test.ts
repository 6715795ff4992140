import { describe, expect, it } from 'vitest';
import { editDistance, similar } from '../../../src/common/suggest.js';

describe('did you mean', () => {
  it('measures edit distance', () => {
    expect(editDistance('lst', 'list')).toBe(1);
    expect(editDistance('servrs', 'servers')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('same', 'same')).toBe(0);
  });

  it('keeps the closest candidates within 40 % of the word, sorted by code units', () => {
    expect(similar('lst', ['list', 'ls', 'get', 'create'])).toEqual(['list', 'ls']);
    expect(similar('--serch', ['--search', '--server', '--limit'])).toEqual(['--search']);
    expect(similar('zzz', ['list', 'get'])).toEqual([]);
    expect(similar('strat', ['stop', 'start', 'restart', 'start'])).toEqual(['start']);
  });
});
