import { describe, expect, it } from 'vitest';
import { stripAnsi } from '../../../src/core/terminal/io.js';
import { oneLine, width } from '../../../src/top/cells.js';
import { frame } from '../../../src/top/frame.js';
import { onKey, parseKeys } from '../../../src/top/keys.js';
import { type Sample, sampleOf } from '../../../src/top/sample.js';
import { addLine, applySamples, applyStats, initialState, type TopState } from '../../../src/top/state.js';

// `gsh top` against a hostile service at 80×24 (issue 44). Whatever the service sends as a name,
// a status `state` (02-endpoints-part-a.md "Servers", include=status; 01-general-contract.md
// "Server status") or a console socket `status`/`stats` event (01 "Console socket") is text on
// the screen, never a terminal command: no clipboard write (OSC 52), no title (OSC 0), no DCS, no
// C1, no conceal (SGR 8), no carriage return, no leaving the alternate screen (CSI ?1049l). And a
// name the service may send (wide East-Asian characters, emoji, a newline, a tab) keeps every
// line within 80 columns and the header on the first line.

const HOSTILE = [
  '\x1b]52;c;cm0gLXJmIH4=\x07', // OSC 52: the clipboard
  '\x1b]0;pwned\x07', // OSC 0: the window title
  '\x1bP+q544e\x1b\\', // DCS
  '\x9b2J\x9d0;t\x9c', // C1: CSI and OSC as single bytes
  '\x1b[8m', // SGR 8: conceal
  '\r', // back to the start of the line
  '\x1b[?1049l', // leave the alternate screen
];
const EVIL = `running${HOSTILE.join('')}`;

/** gsh's own colours (frame.ts paint()) are the only escapes a frame may hold. */
const OWN_SGR = /\x1b\[(1|2|7|22|27|39|31|32|33|35)m/g;

function assertSafe(text: string, total = 80, height = 24): void {
  const lines = text.split('\n');
  expect(lines).toHaveLength(height);
  for (const line of lines) {
    // eslint-disable-next-line no-control-regex
    expect(line.replace(OWN_SGR, ''), JSON.stringify(line)).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
    expect(width(stripAnsi(line)), line).toBeLessThanOrEqual(total);
  }
}

const status = (state: string, uptime = 60) => ({ state, node_ready: true, cpu_absolute: 12, memory_bytes: 1e9, memory_limit_bytes: 4e9, disk_bytes: 1e8, network: { rx_bytes: 0, tx_bytes: 0 }, uptime });

function stateOf(items: { id: string; name: string; status?: Record<string, unknown> }[], color: boolean): TopState {
  const s = initialState(color);
  applySamples(s, items.map((i) => sampleOf(i, 0)).filter((x): x is Sample => x !== undefined));
  return s;
}

describe('a hostile status.state', () => {
  for (const color of [false, true]) {
    it(`puts none of its sequences on the terminal, in the counts and the STATE column (colour ${color ? 'on' : 'off'})`, () => {
      const s = stateOf([
        { id: 'a', name: 'lobby', status: status(EVIL) },
        { id: 'b', name: 'survival', status: status('running') },
        ...HOSTILE.map((h, i) => ({ id: `h${i}`, name: `h${i}`, status: status(`x${h}`) })),
      ], color);
      const text = frame(s, 80, 24);
      assertSafe(text);
      // The benign state still shows, coloured as its own when colour is on.
      expect(stripAnsi(text)).toMatch(/survival\s+running/);
      if (color) expect(text).toContain('\x1b[32mrunning  \x1b[39m');
      // The hostile one shows as text: what it is, not what it does.
      expect(stripAnsi(text)).toMatch(/lobby\s+running\^… +12\.0%/);
      expect(stripAnsi(text.split('\n')[0]!)).toMatch(/^gsh top · 9 servers: 1 running · /);
    });
  }

  it('the frame drawn on every refresh stays safe (a new hostile word each time)', () => {
    const s = stateOf([{ id: 'a', name: 'lobby', status: status('running') }], true);
    HOSTILE.forEach((h, i) => {
      applySamples(s, [sampleOf({ id: 'a', name: `lobby${h}`, status: status(`st${h}${i}`) }, (i + 1) * 2000)!]);
      assertSafe(frame(s, 80, 24));
    });
  });
});

describe('an opened server\'s console', () => {
  it('a hostile `status` event, `stats` state and console line put none of their sequences on the terminal', () => {
    const s = stateOf([{ id: 'a', name: 'lobby', status: status('running') }], true);
    s.detail = { id: 'a', name: `lobby${HOSTILE[1]}`, connected: true, cpuHistory: [], memHistory: [], lines: [] };
    applyStats(s.detail, { cpu: 1, state: EVIL }, 0);
    assertSafe(frame(s, 80, 24));
    // The console socket's `status` event sets the state the same way (top/detail.ts).
    s.detail.stats!.state = `stopping${HOSTILE.join('')}`;
    s.detail.message = `console: ${HOSTILE.join('')}`;
    for (const h of HOSTILE) addLine(s.detail, `line${h}\tend`);
    const text = frame(s, 80, 24);
    assertSafe(text);
    expect(text.split('\n')[0]).toMatch(/^gsh top › lobby\^\[\]0;pwned\^G \(a\) · .*stopping\^\[\]5/);
  });
});

describe('names the service may send, at 80×24', () => {
  const names = [
    '黄金の島サーバー第一ロビー番', // wide East-Asian characters: two columns each
    '🎮🎮 arcade 🎮🎮 lobby number one',
    'e\u0301te\u0301 server with combining accents',
    'line one\nline two',
    'tab\there\tand\tthere',
    'cr\rhidden',
    ...Array.from({ length: 30 }, (_, i) => `srv-${i}`),
  ];
  const fleet = () => stateOf(names.map((n, i) => ({ id: `id${i}`, name: n, status: status('running') })), false);

  it('every line within 80 columns, 24 lines, the header first, after every refresh and move', () => {
    const s = fleet();
    for (let refresh = 0; refresh < 3; refresh++) {
      const text = frame(s, 80, 24);
      assertSafe(text);
      expect(text.split('\n')[0]).toMatch(/^gsh top · 36 servers: 36 running$/);
      expect(text.split('\n')[2]).toMatch(/^ {2}NAME/);
      for (const k of parseKeys('jjjj')) onKey(s, k, 24);
      applySamples(s, names.map((n, i) => sampleOf({ id: `id${i}`, name: n, status: status('running', 60 + refresh) }, (refresh + 1) * 2000)!));
    }
  });

  it('a wide name is cut by columns, a newline and a tab show as ^J and ^I', () => {
    const text = frame(fleet(), 80, 50);
    const row = (start: string) => text.split('\n').find((l) => l.slice(2).startsWith(start))!;
    expect(row('黄金')).toMatch(/^ {2}黄金の島サーバー第… {2}running/);
    expect(row('line one')).toContain('line one^Jline two ');
    expect(row('tab')).toContain('tab^Ihere');
    expect(row('cr')).toContain('cr^Mhidden');
    expect(oneLine('a\tb\nc\r\x1b')).toBe('a^Ib^Jc^M^[');
  });

  it('the fast path (one column a character) agrees with string-width, an independent measure, on every character it takes', async () => {
    const { default: stringWidth } = await import('string-width');
    const ranges = [[0x20, 0x7e], [0xa0, 0xac], [0xae, 0x2ff], [0x2010, 0x2027], [0x2030, 0x205e], [0x2190, 0x21ff], [0x2500, 0x259f]];
    for (const [from, to] of ranges) for (let c = from!; c <= to!; c++) expect(stringWidth(String.fromCharCode(c)), c.toString(16)).toBe(1);
    expect(width('› golden-…le-101 ▁▂█ –')).toBe(stringWidth('› golden-…le-101 ▁▂█ –'));
  });

  it('the width function counts terminal columns, not code points', () => {
    expect(width('黄金')).toBe(4);
    expect(width('🎮')).toBe(2);
    expect(width('e\u0301')).toBe(1);
    expect(width('abc')).toBe(3);
  });
});
