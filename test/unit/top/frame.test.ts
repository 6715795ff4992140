import { describe, expect, it } from 'vitest';
import { stripAnsi } from '../../../src/core/terminal/io.js';
import { frame, listRows } from '../../../src/top/frame.js';
import { onKey, parseKeys } from '../../../src/top/keys.js';
import { recordOf } from '../../../src/top/records.js';
import { type Sample, sampleOf } from '../../../src/top/sample.js';
import { addLine, applySamples, applyStats, initialState, shown, type TopState } from '../../../src/top/state.js';

// `gsh top`'s screen as text (ARCHITECTURE.md "Layers", `src/top/`): frame(state,
// width, height) after refreshes and keys. The usage names are the console socket's `stats` keys
// (01-general-contract.md "Console socket"); the list's status carries them only "when the node is
// reachable" (01 "Resource table", "Server status") and only for servers whose console the key's
// user may access (02-endpoints-part-a.md "Servers", GET /servers include=status).

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

function item(name: string, status?: Record<string, unknown>) {
  return { id: `id-${name}`, name, ...(status ? { status } : {}) };
}

const running = (cpu: number, memGiB: number, extra: Record<string, unknown> = {}) => ({
  state: 'running', node_ready: true, cpu_absolute: cpu, memory_bytes: memGiB * GiB, memory_limit_bytes: 4 * GiB,
  disk_bytes: 150 * MiB, network: { rx_bytes: 1000, tx_bytes: 2000 }, uptime: 3725, ...extra,
});

function stateOf(items: unknown[], at = 0, color = false): TopState {
  const s = initialState(color);
  applySamples(s, items.map((i) => sampleOf(i, at)).filter((x): x is Sample => x !== undefined));
  return s;
}

function press(s: TopState, keys: string, height = 24): void {
  for (const k of parseKeys(keys)) onKey(s, k, height);
}

const lines = (text: string) => text.split('\n');
const names = (s: TopState) => shown(s).map((x) => x.name);

describe('the list at 80 columns', () => {
  const fleet = [
    item('lobby', running(12.5, 1.5)),
    item('survival', running(150, 3)),
    item('creative', { state: 'offline', node_ready: true, cpu_absolute: 0, memory_bytes: 0, memory_limit_bytes: 2 * GiB, disk_bytes: 2 * GiB, uptime: 0 }),
    item('hidden'),
    item('partial', { state: 'starting' }),
  ];

  it('draws title, totals, column titles, one row per server and the keys, each line within 80 columns', () => {
    const s = stateOf(fleet);
    s.intervalMs = 6000;
    s.requestsPerRefresh = 1;
    s.limit = 60;
    const text = frame(s, 80, 10);
    expect(text).toBe([
      'gsh top · 5 servers: 2 running · 1 starting · 1 offline · 1 no access',
      'cpu 163% · mem 4.5G/10G · net –/s · every 6s (1 req of 60/min)',
      '  NAME           STATE        CPU trend MEM/LIMIT trend  DISK NET RX/TX/s     UP',
      '› creative       offline     0.0%     ▁   0B/2.0G     ▁  2.0G           –     0s',
      '  hidden         no access      –               –           –           –      –',
      '  lobby          running    12.5%     ▂ 1.5G/4.0G     ▄  150M           –      ?',
      '  partial        starting       –               –           –           –      –',
      '  survival       running     150%     █ 3.0G/4.0G     ▆  150M           –      ?',
      '',
      '1/5 · sort name↑ · ? keys · q quit · enter open · / filter · c m n t sort',
    ].join('\n'));
    for (const line of lines(text)) expect([...line].length).toBeLessThanOrEqual(80);
  });

  it('a value the service did not send is –, never 0; a server without status is "no access", not offline', () => {
    const s = stateOf(fleet);
    const row = (name: string) => lines(frame(s, 80, 12)).find((l) => l.slice(2).startsWith(name))!;
    expect(row('partial')).toMatch(/starting\s+–\s+–\s+–\s+–\s+–$/);
    expect(row('hidden')).toContain('no access');
    expect(row('hidden')).not.toContain('offline');
    expect(row('hidden')).not.toMatch(/\d/);
    // For scripts: null, and the state null with status_visible false.
    const hidden = recordOf(shown(s).find((x) => x.name === 'hidden')!);
    expect(hidden).toMatchObject({ state: null, status_visible: false, node_ready: null, cpu_absolute: null, memory_bytes: null, rx_bytes_per_second: null });
    expect(recordOf(shown(s).find((x) => x.name === 'partial')!)).toMatchObject({ state: 'starting', status_visible: true, node_ready: null, cpu_absolute: null, uptime: null });
  });

  it('node_ready false is "no node": the offline it comes with says nothing about the server', () => {
    const s = stateOf([item('far', { state: 'offline', node_ready: false })]);
    expect(frame(s, 80, 6)).toMatch(/far\s+no node/);
    expect(frame(s, 80, 6)).toContain('1 no node');
  });

  it('network rates come from the counters of two refreshes, per second', () => {
    const s = stateOf([item('lobby', running(10, 1, { network: { rx_bytes: 10_000, tx_bytes: 20_000 } }))], 0);
    expect(recordOf(shown(s)[0]!).rx_bytes_per_second).toBeNull();
    applySamples(s, [sampleOf(item('lobby', running(10, 1, { network: { rx_bytes: 30_480, tx_bytes: 61_000 } })), 10_000)!]);
    expect(recordOf(shown(s)[0]!)).toMatchObject({ rx_bytes_per_second: 2048, tx_bytes_per_second: 4100 });
    expect(frame(s, 80, 6)).toMatch(/2\.0K\/4\.0K/);
    // A counter that went back (a restart) gives no rate rather than a negative one.
    applySamples(s, [sampleOf(item('lobby', running(10, 1, { network: { rx_bytes: 5, tx_bytes: 61_500 } })), 20_000)!]);
    expect(recordOf(shown(s)[0]!)).toMatchObject({ rx_bytes_per_second: null, tx_bytes_per_second: 50 });
  });

  it('service text is shown inert: a name cannot move the cursor or write the clipboard', () => {
    const s = stateOf([item('evil\x1b]52;c;aGk=\x07\x1b[2J', running(1, 1))]);
    const text = frame(s, 120, 6);
    expect(text).not.toMatch(/\x1b/);
    expect(text).toContain('evil^[]52;c;aGk=^G^[[2J');
  });

  it('colour by state only when colour is on; the selected row is inverse', () => {
    const on = frame(stateOf(fleet, 0, true), 80, 10);
    expect(on).toContain('\x1b[32mrunning  \x1b[39m');
    expect(on).toContain('\x1b[35mno access\x1b[39m');
    expect(on).toMatch(/\x1b\[7m› creative/);
    expect(frame(stateOf(fleet, 0, false), 80, 10)).not.toMatch(/\x1b/);
    expect(stripAnsi(on)).toBe(frame(stateOf(fleet, 0, false), 80, 10));
  });

  it('narrower screens drop the sparklines, disk, uptime and network, wider ones give the name room', () => {
    const s = stateOf([item('a-rather-long-server-name-for-a-lobby', running(5, 1))]);
    for (const w of [40, 50, 60, 79, 80, 100, 160]) {
      for (const line of lines(frame(s, w, 8))) expect([...line].length, `${w}: ${line}`).toBeLessThanOrEqual(w);
    }
    expect(lines(frame(s, 50, 8))[2]).toBe('  NAME                  STATE        CPU MEM/LIMIT');
    expect(frame(s, 160, 8)).toContain('a-rather-long-server-name-for-a-lobby');
  });
});

describe('keys', () => {
  const fleet = () => stateOf([
    item('b-mid', running(50, 2)),
    item('a-hot', running(90, 1)),
    item('c-cold', running(5, 3)),
    item('d-none', { state: 'offline' }),
    item('e-secret'),
  ]);

  it('sort by CPU (high first, absent last), again reverses; memory, state, name', () => {
    const s = fleet();
    expect(names(s)).toEqual(['a-hot', 'b-mid', 'c-cold', 'd-none', 'e-secret']);
    press(s, 'c');
    expect(names(s)).toEqual(['a-hot', 'b-mid', 'c-cold', 'd-none', 'e-secret']);
    press(s, 'c');
    expect(names(s)).toEqual(['c-cold', 'b-mid', 'a-hot', 'd-none', 'e-secret']);
    press(s, 'm');
    expect(names(s)).toEqual(['c-cold', 'b-mid', 'a-hot', 'd-none', 'e-secret']);
    press(s, 't');
    expect(names(s)).toEqual(['a-hot', 'b-mid', 'c-cold', 'd-none', 'e-secret']);
    press(s, 'n');
    expect(names(s)).toEqual(['a-hot', 'b-mid', 'c-cold', 'd-none', 'e-secret']);
    press(s, 'n');
    expect(names(s)).toEqual(['e-secret', 'd-none', 'c-cold', 'b-mid', 'a-hot']);
    expect(frame(s, 80, 10)).toMatch(/sort name↓/);
  });

  it('the selection follows its server when the order changes', () => {
    const s = fleet();
    press(s, 'jj');
    expect(s.selected).toBe('id-c-cold');
    press(s, 'c');
    expect(s.selected).toBe('id-c-cold');
    expect(lines(frame(s, 80, 10)).filter((l) => l.startsWith('›'))).toEqual([expect.stringContaining('c-cold')]);
  });

  it('/ filters by name as it is typed; enter keeps it, esc clears it', () => {
    const s = fleet();
    press(s, '/co');
    expect(frame(s, 80, 10).split('\n').at(-1)).toBe('filter: co_ · enter keep · esc clear');
    expect(names(s)).toEqual(['c-cold']);
    press(s, '\x7fl');
    expect(s.filter).toBe('cl');
    expect(names(s)).toEqual([]);
    expect(frame(s, 80, 10)).toContain('no server name contains "cl"');
    press(s, '\x7fo\r');
    expect(s.typing).toBeUndefined();
    expect(names(s)).toEqual(['c-cold']);
    expect(frame(s, 80, 10).split('\n').at(-1)).toMatch(/^1\/1 · filter "co"/);
    press(s, '\x1b');
    expect(names(s)).toHaveLength(5);
  });

  it('q quits, Ctrl-C interrupts, enter opens the selected server, esc goes back', () => {
    const s = fleet();
    expect(onKey(s, { char: 'q' }, 24)).toBe('quit');
    expect(onKey(s, 'ctrl-c', 24)).toBe('interrupt');
    expect(onKey(s, 'enter', 24)).toBe('open');
    s.detail = { id: 'id-a-hot', name: 'a-hot', connected: true, cpuHistory: [], memHistory: [], lines: [] };
    expect(onKey(s, { char: 'c' }, 24)).toBeUndefined();
    expect(onKey(s, 'escape', 24)).toBe('close');
    expect(parseKeys('\x1b[A\x1b[B\x1b[5~\x1b[6~\x1b\r\x03x')).toEqual(['up', 'down', 'pageup', 'pagedown', 'escape', 'enter', 'ctrl-c', { char: 'x' }]);
  });
});

describe('hundreds of servers scroll', () => {
  const many = () => stateOf(Array.from({ length: 300 }, (_, i) => item(`srv-${String(i).padStart(3, '0')}`, running(i % 100, 1))));

  it('moving past the bottom scrolls a row at a time; PgDn, End and Home jump', () => {
    const s = many();
    const height = 20;
    const rowsShown = (t: string) => lines(t).slice(3, 3 + listRows(height)).map((l) => l.slice(2, 9));
    expect(rowsShown(frame(s, 80, height))[0]).toBe('srv-000');
    press(s, 'j'.repeat(20), height);
    const text = frame(s, 80, height);
    expect(rowsShown(text)).toEqual(Array.from({ length: 16 }, (_, i) => `srv-${String(i + 5).padStart(3, '0')}`));
    expect(lines(text).find((l) => l.startsWith('›'))).toContain('srv-020');
    expect(lines(text).at(-1)).toMatch(/^21\/300 /);
    press(s, '\x1b[6~', height);
    expect(lines(frame(s, 80, height)).at(-1)).toMatch(/^37\/300 /);
    press(s, 'G', height);
    expect(rowsShown(frame(s, 80, height)).at(-1)).toBe('srv-299');
    press(s, 'k', height);
    expect(rowsShown(frame(s, 80, height)).at(-1)).toBe('srv-299');
    press(s, 'g', height);
    expect(rowsShown(frame(s, 80, height))[0]).toBe('srv-000');
    expect(lines(frame(s, 80, height))).toHaveLength(height);
  });
});

describe('an opened server', () => {
  it('shows the console socket\'s stats (rates from two of them) and the last lines, inert', () => {
    const s = stateOf([item('lobby', running(1, 1))]);
    s.detail = { id: 'id-lobby', name: 'lobby', connected: true, cpuHistory: [], memHistory: [], lines: [] };
    const d = s.detail;
    expect(frame(s, 80, 12)).toMatch(/CPU  –/);
    applyStats(d, { cpu: 20, memory: GiB, memoryLimit: 2 * GiB, rxTotal: 0, txTotal: 0, uptime: 61, state: 'running' }, 0);
    applyStats(d, { cpu: 40, memory: GiB, memoryLimit: 2 * GiB, rxTotal: 1024, txTotal: 2048, uptime: 62, state: 'running' }, 1000);
    for (let i = 0; i < 30; i++) addLine(d, `line ${i}`);
    addLine(d, '\x1b[32mgreen\x1b[0m and \x1b]0;title\x07 bell\x07\r');
    const text = frame(s, 80, 12);
    expect(lines(text).slice(0, 4)).toEqual([
      'gsh top › lobby (id-lobby) · running · console live',
      `CPU  40.0%           ${' '.repeat(56)}▂▄`,
      `MEM  1.0G/2.0G       ${' '.repeat(56)}▅▅`,
      'DISK – · NET RX/TX 1.0K/2.0K/s · UP 1m02s',
    ]);
    expect(lines(text).slice(5, 11)).toEqual(['line 25', 'line 26', 'line 27', 'line 28', 'line 29', 'green and  bell^G^M']);
    expect(lines(text).at(-1)).toMatch(/^esc back/);
  });
});
