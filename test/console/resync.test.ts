import { describe, expect, it } from 'vitest';
import { fillGap, RecentLines, tailFound } from '../../src/console/resync.js';

// Issue 5, item 2: after renewal or reconnect "losing no line and duplicating none"; the gap is
// filled from `send history` (01-general-contract.md "Console socket").

const n = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `line ${from + i}`);

describe('fillGap', () => {
  it('keeps only what follows the last lines seen', () => {
    expect(fillGap(n(1, 10), n(5, 15), [])).toEqual({ lines: n(11, 15), matched: true });
  });

  it('drops live lines that the history already holds and keeps the newer ones', () => {
    expect(fillGap(n(1, 10), n(1, 14), n(13, 16)).lines).toEqual(n(11, 16));
  });

  it('lines up on the last occurrence when lines repeat', () => {
    const seen = ['a', 'tick', 'b', 'tick'];
    const history = ['a', 'tick', 'b', 'tick', 'c', 'tick'];
    expect(fillGap(seen, history, []).lines).toEqual(['c', 'tick']);
  });

  it('says so when the last lines seen are not in the history, and keeps all of it', () => {
    expect(fillGap(['gone'], n(1, 3), [])).toEqual({ lines: n(1, 3), matched: false });
  });

  it('with nothing seen yet keeps only the live lines', () => {
    expect(fillGap([], n(1, 5), n(5, 7))).toEqual({ lines: n(6, 7), matched: true });
  });
});

describe('RecentLines', () => {
  it('keeps the newest lines, oldest first', () => {
    const r = new RecentLines(3);
    for (const l of n(1, 5)) r.push(l);
    expect(r.lines()).toEqual(n(3, 5));
    expect(r.seen).toBe(5);
  });
});

describe('tailFound (paging a gap back stops once it holds)', () => {
  it('holds only when all of the last lines seen are found in order, not just the last one', () => {
    expect(tailFound(n(1, 10), n(1, 20))).toBe(true);
    expect(tailFound(n(1, 10), n(5, 20))).toBe(false);
    expect(tailFound(['x', 'line 3'], n(1, 5))).toBe(false);
    expect(tailFound([], n(1, 5))).toBe(true);
  });
});

describe('fillGap with the lines that came before the history answered', () => {
  it('drops them even when a slow connection lost some of them (they are not the end of the history)', () => {
    // Seen up to 10; before the reply 11-12 (13-20 skipped by the node for a slow reader); after it 21-22.
    const r = fillGap(n(1, 10), n(5, 20), [...n(11, 12), ...n(21, 22)], 2);
    expect(r).toEqual({ lines: [...n(11, 20), ...n(21, 22)], matched: true });
  });

  it('keeps those older than a history that does not reach back to the lines seen, in order', () => {
    const r = fillGap(['gone'], n(5, 20), [...n(2, 3), ...n(6, 7), ...n(21, 22)], 4);
    expect(r).toEqual({ lines: [...n(2, 3), ...n(5, 20), ...n(21, 22)], matched: false });
  });
});
