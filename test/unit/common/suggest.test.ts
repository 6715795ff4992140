import { describe, expect, it } from 'vitest';
import { editDistance, nearestNames, similar } from '../../../src/common/suggest.js';

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

describe('names a server reference may have meant', () => {
  const names = ['amber-bastion-110', 'amber-bastion-2', 'lobby-1', 'lobby-2', 'Survival'];
  it('a partial name: the names it begins, then those it is part of', () => {
    expect(nearestNames('amber-bastion', names)).toEqual(['amber-bastion-110', 'amber-bastion-2']);
    expect(nearestNames('amber-bastion-1', names)).toEqual(['amber-bastion-110']);
    expect(nearestNames('bastion-2', names)).toEqual(['amber-bastion-2']);
  });
  it('a typo: the nearest by edit distance, case-insensitively, in the names as they are', () => {
    expect(nearestNames('lobyy-1', names)).toEqual(['lobby-1']);
    expect(nearestNames('survivl', names)).toEqual(['Survival']);
  });
  it('else the names with the same first word; nothing when nothing is near', () => {
    expect(nearestNames('amber-nope', names)).toEqual(['amber-bastion-110', 'amber-bastion-2']);
    expect(nearestNames('zzz-top', names)).toEqual([]);
    expect(nearestNames('lobby', ['lobby-1', 'lobby-2', 'lobby-3'], 2)).toEqual(['lobby-1', 'lobby-2']);
  });
});
