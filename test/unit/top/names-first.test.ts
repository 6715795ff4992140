import { describe, expect, it } from 'vitest';
import { width } from '../../../src/top/cells.js';
import { frame } from '../../../src/top/frame.js';
import { onKey, parseKeys } from '../../../src/top/keys.js';
import { type Sample, sampleOf } from '../../../src/top/sample.js';
import { applySamples, initialState, shown, type TopState } from '../../../src/top/state.js';

// `gsh top` read by its names (issue 50, items 4 and 9): at 80 columns names of up to 20 columns
// stay whole, other columns go first; names sort as a person orders them; the cursor follows its
// server across a re-sort. Usage fields as the console socket's `stats` names them
// (01-general-contract.md "Console socket", "Server status").

function fleet(rows: { name: string; cpu?: number }[], state = initialState(false)): TopState {
  const samples = rows.map((r, i) => sampleOf({ id: `id${String(i).padStart(2, '0')}`, name: r.name, status: { state: 'running', node_ready: true, cpu_absolute: r.cpu ?? 1, memory_bytes: 1, memory_limit_bytes: 2, disk_bytes: 3, uptime: 60 } }, 0));
  applySamples(state, samples.filter((x): x is Sample => x !== undefined));
  return state;
}
const press = (s: TopState, keys: string, height: number) => { for (const k of parseKeys(keys)) onKey(s, k, height); };

describe('names first at 80 columns', () => {
  for (const name of ['ember-creek-2024x', 'amber-bastion-01', 'jade-summit-035']) {
    it(`"${name}" (${name.length} characters) shows whole, its row within 80 columns`, () => {
      const s = fleet([{ name }, { name: 'lobby' }]);
      const text = frame(s, 80, 24);
      const row = text.split('\n').find((l) => l.slice(2).startsWith(name.slice(0, 5)))!;
      expect(row.slice(2, 2 + name.length)).toBe(name);
      expect(row).not.toContain('…');
      for (const l of text.split('\n')) expect(width(l)).toBeLessThanOrEqual(80);
      // STATE and CPU stay; a sparkline went to make room.
      expect(text.split('\n')[2]).toMatch(/NAME +STATE +CPU/);
    });
  }

  it('a name longer than 20 is cut at 20 columns, not before; short names keep every column', () => {
    const s = fleet([{ name: 'a-very-long-server-name-indeed' }]);
    const row = frame(s, 80, 24).split('\n')[3]!;
    expect(row.slice(2, 22)).toBe('a-very-long-server-…');
    const short = frame(fleet([{ name: 'lobby' }]), 80, 24).split('\n')[2]!;
    expect(short.match(/trend/g)).toHaveLength(2);
  });
});

describe('order and cursor', () => {
  it('names sort case-insensitively, digits by value (not byte order: Arctic before amber)', () => {
    const s = fleet([{ name: 'Arctic-1' }, { name: 'amber-2' }, { name: 'web-10' }, { name: 'Web-2' }, { name: 'émeraude' }]);
    expect(shown(s).map((x) => x.name)).toEqual(['amber-2', 'Arctic-1', 'émeraude', 'Web-2', 'web-10']);
  });

  it('after a re-sort the cursor moves from where the selected row is on screen; the rows stay', () => {
    // 10 list rows on a 14-line screen; 30 servers, cpu rising with the name.
    const s = fleet(Array.from({ length: 30 }, (_, i) => ({ name: `s${String(i).padStart(2, '0')}`, cpu: i })));
    press(s, 'jj', 14);
    expect(s.selected).toBe('id02');
    // By CPU, high first: s02 is now the 28th row, drawn on the last list line.
    press(s, 'c', 14);
    const before = frame(s, 80, 14).split('\n').slice(3, 13);
    expect(before.at(-1)).toMatch(/^› s02/);
    press(s, 'k', 14);
    const after = frame(s, 80, 14).split('\n').slice(3, 13);
    expect(s.selected).toBe('id03');
    // Same rows on screen, the cursor one line up.
    expect(after.map((l) => l.slice(2, 5))).toEqual(before.map((l) => l.slice(2, 5)));
    expect(after.at(-2)).toMatch(/^› s03/);
  });

  it('a refresh that re-sorts keeps the cursor on its server', () => {
    const s = fleet([{ name: 'a', cpu: 1 }, { name: 'b', cpu: 2 }, { name: 'c', cpu: 3 }]);
    // By CPU: c, b, a; the cursor from a up to b.
    press(s, 'c', 24);
    press(s, 'k', 24);
    expect(s.selected).toBe('id01');
    fleet([{ name: 'a', cpu: 1 }, { name: 'b', cpu: 9 }, { name: 'c', cpu: 3 }], s);
    expect(s.selected).toBe('id01');
    expect(frame(s, 80, 24).split('\n')[3]).toMatch(/^› b /);
  });
});
