import { describe, expect, it } from 'vitest';
import { SORT_KEYS as FLAG_KEYS } from '../../../src/commands/top.js';
import { stripAnsi } from '../../../src/core/terminal/io.js';
import { uptime, width } from '../../../src/top/cells.js';
import { frame } from '../../../src/top/frame.js';
import { onKey, parseKeys } from '../../../src/top/keys.js';
import { differAt, fitName } from '../../../src/top/names.js';
import { type Sample, sampleOf } from '../../../src/top/sample.js';
import { applySamples, applyStats, initialState, SORT_KEYS, type TopState } from '../../../src/top/state.js';
import { agreedUnit, nextMark, unitOf } from '../../../src/top/uptime.js';

// `gsh top` for an operator at 80 columns (issue 46): uptime's unit inferred, never assumed (the
// contract names none: 01-general-contract.md "Server status", "Console socket" `stats`); names
// told apart; every key on `?`; the footer keeps the keys.

function fleet(names: string[], uptime = 60, at = 0, state?: TopState): TopState {
  const s = state ?? initialState(false);
  applySamples(s, names.map((n, i) => sampleOf({ id: `id${i}`, name: n, status: { state: 'running', uptime } }, at)).filter((x): x is Sample => x !== undefined));
  return s;
}

const press = (s: TopState, keys: string) => parseKeys(keys).map((k) => onKey(s, k, 24));

describe('uptime: its unit inferred from its growth against the clock', () => {
  it('milliseconds and seconds are told apart from two samples; ? until then; 0 is 0s', () => {
    expect(uptime(40_000, undefined)).toBe('?');
    expect(uptime(0, undefined)).toBe('0s');
    expect(uptime(undefined, undefined)).toBe('–');
    for (const [perSecond, first, second] of [[1000, 40_000, 42_000], [1, 40, 42]] as const) {
      const s = fleet(['lobby'], first, 0);
      expect(s.uptimePerSecond).toBeUndefined();
      expect(frame(s, 80, 24).split('\n')[3]).toMatch(/ \?$/);
      fleet(['lobby'], second, 2000, s);
      expect(s.uptimePerSecond).toBe(perSecond);
      expect(frame(s, 80, 24).split('\n')[3]).toMatch(/ 42s$/);
    }
  });

  it('a value that does not grow, grows by no unit, or over less than a second, says nothing', () => {
    expect(unitOf({ value: 40, at: 0 }, 40, 2000)).toBeUndefined();
    expect(unitOf({ value: 40, at: 0 }, 30, 2000)).toBeUndefined();
    expect(unitOf({ value: 40, at: 0 }, 41, 500)).toBeUndefined();
    expect(unitOf({ value: 40, at: 0 }, 140, 2000)).toBeUndefined();
    expect(unitOf({ value: 40_000, at: 0 }, 42_100, 2000)).toBe(1000);
    // The mark stays while the value grows (a longer span averages rounding out), and moves after a restart.
    expect(nextMark({ value: 40, at: 0 }, 42, 2000)).toEqual({ value: 40, at: 0 });
    expect(nextMark({ value: 40, at: 0 }, 3, 2000)).toEqual({ value: 3, at: 2000 });
    expect(agreedUnit([undefined, 1, 1000, 1])).toBe(1);
  });

  it('a value rounded or cached by the service is still read over a longer span', () => {
    // Seconds, updated every 10 s by the service: 2 s refreshes see 0 or 10 of growth.
    const s = fleet(['lobby'], 100, 0);
    fleet(['lobby'], 100, 2000, s);
    fleet(['lobby'], 110, 4000, s);
    // 10 in 4 s: no unit yet.
    expect(s.uptimePerSecond).toBeUndefined();
    fleet(['lobby'], 110, 6000, s);
    // 10 in 6 s, measured from the first sample: seconds.
    expect(s.uptimePerSecond).toBe(1);
  });

  it('the opened server infers its own from the console socket\'s stats', () => {
    const d = { id: 'a', name: 'a', connected: true, cpuHistory: [], memHistory: [], lines: [] };
    const s = fleet(['a']);
    Object.assign(s, { detail: d });
    applyStats(d, { uptime: 660_000 }, 0);
    expect(frame(s, 80, 24)).toContain('UP ?');
    applyStats(d, { uptime: 661_000 }, 1000);
    expect(frame(s, 80, 24)).toContain('UP 11m01s');
  });
});

describe('names told apart in the NAME column', () => {
  it('keeps the place where names differ: the end of a series, the middle, after a long common head', () => {
    const names = ['golden-isle-101', 'golden-isle-102', 'golden-isle-europe-1-lobby', 'golden-isle-europe-2-lobby', 'golden-isle-1-of-a-very-long-series-name', 'golden-isle-2-of-a-very-long-series-name', 'lobby'];
    const at = differAt(names);
    const cut = names.map((n) => fitName(n, 14, at.get(n)));
    expect(cut).toEqual(['golden-…le-101', 'golden-…le-102', 'golden…1-lobby', 'golden…2-lobby', 'gold…1-of-a-v…', 'golden-isle-2…', 'lobby         ']);
    expect(fitName('aaaaaaaaaaaaaaaaaaaaa-1-bbbbbbbbbbbbbbbbbbbbbbbbbb', 14, 22)).toBe('aaaa…-1-bbbbb…');
    for (const c of cut) expect(width(c)).toBe(14);
  });

  it('on the 80×24 screen, names alike for their first 20+ columns show differently, in columns (wide ones too)', () => {
    const s = fleet(['golden-isle-101', 'golden-isle-102', '黄金の島サーバー第一ロビー', '黄金の島サーバー第二ロビー']);
    // The NAME column, up to the STATE column (issue 50: names keep up to 20 columns).
    const rows = frame(s, 80, 24).split('\n').slice(3, 7).map((l) => l.slice(2).replace(/ +running.*$/, ''));
    expect(rows.slice(0, 2)).toEqual(['golden-isle-101', 'golden-isle-102']);
    expect(new Set(rows).size).toBe(4);
    expect(rows[2]).not.toBe(rows[3]);
    for (const l of frame(s, 80, 24).split('\n')) expect(width(l)).toBeLessThanOrEqual(80);
  });
});

describe('keys', () => {
  it('? shows every key over the screen; any key goes back; Ctrl-C still interrupts', () => {
    const s = fleet(['a', 'b']);
    press(s, '?');
    const help = frame(s, 80, 24);
    expect(help.split('\n')[0]).toBe('gsh top · keys');
    for (const k of ['↑ ↓  k j', 'PgUp PgDn', 'Home End', 'c m n t', 'sort by CPU', 'filter by name', 'esc', 'enter', 'open the server', '?', 'q', 'quit']) expect(help).toContain(k);
    for (const l of help.split('\n')) expect(width(l)).toBeLessThanOrEqual(80);
    // The key that closes the overlay does nothing else.
    expect(press(s, 'q')).toEqual([undefined]);
    expect(frame(s, 80, 24).split('\n')[0]).toMatch(/^gsh top · 2 servers/);
    press(s, '?');
    expect(onKey(s, 'ctrl-c', 24)).toBe('interrupt');
  });

  it('the footer never hides the keys: a long filter is cut, while typed and after', () => {
    const s = fleet(['a', 'b']);
    press(s, `/${'x'.repeat(100)}`);
    const typing = frame(s, 80, 24).split('\n').at(-1)!;
    expect(typing).toMatch(/^filter: …x+_ · enter keep · esc clear$/);
    expect(width(typing)).toBe(80);
    press(s, '\r');
    const kept = stripAnsi(frame(s, 80, 24).split('\n').at(-1)!);
    expect(kept).toMatch(/^0\/0 · filter "…x+" · sort name↑ · \? keys · q quit$/);
    expect(width(kept)).toBeLessThanOrEqual(80);
    // At 40 columns the keys stay and the hints go.
    press(s, '\x1b');
    expect(frame(s, 40, 24).split('\n').at(-1)).toBe('1/2 · sort name↑ · ? keys · q quit');
  });

  it('--sort takes the keys the screen sorts by', () => {
    expect([...FLAG_KEYS]).toEqual([...SORT_KEYS]);
    expect(initialState(false, 'cpu')).toMatchObject({ sort: 'cpu', descending: true });
    expect(initialState(false, 'state')).toMatchObject({ sort: 'state', descending: false });
  });
});
