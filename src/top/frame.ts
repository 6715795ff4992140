import { stripAnsi } from '../core/io.js';
import { visible } from '../core/terminal-text.js';
import { ABSENT, fit, percent, shortBytes, sparkline, uptime, width } from './cells.js';
import { type DetailView, type ServerView, shown, stateLabel, type TopState, windowStart } from './state.js';

// `frame(state, width, height)`: the whole screen of `gsh top` as text, one line per terminal row,
// each at most `width` columns (ARCHITECTURE.md "Layers", `src/top/`). Tests compare
// frames as text; screen.ts only writes them. Service text (names, console lines) is shown inert
// (core/terminal-text.ts visible()) before it is cut and coloured.

/** Lines above the rows (title, totals, column titles) and below them (keys). */
export const HEADER_LINES = 3;
export const FOOTER_LINES = 1;

/** How many server rows a screen `height` lines high lists. */
export function listRows(height: number): number {
  return Math.max(0, height - HEADER_LINES - FOOTER_LINES);
}

interface Column {
  title: string;
  width: number;
  right?: boolean;
  cell(s: ServerView): string;
  colour?(s: ServerView): string | undefined;
}

const STATE_COLOURS: Record<string, string> = { running: '32', starting: '33', stopping: '33', 'no node': '31', 'no access': '35' };
const CLOSE: Record<string, string> = { '1': '22', '2': '22', '7': '27' };

/** SGR around text when colour is on; foreground colours end with 39 so an inverse row stays inverse. */
function paint(s: string, code: string | undefined, on: boolean): string {
  return on && code ? `\x1b[${code}m${s}\x1b[${CLOSE[code] ?? '39'}m` : s;
}

const cpuMax = (h: readonly (number | undefined)[]) => Math.max(100, ...h.filter((v): v is number => v !== undefined));
const memMax = (h: readonly (number | undefined)[], limit: number | undefined) => limit ?? Math.max(0, ...h.filter((v): v is number => v !== undefined));

function memory(used: number | undefined, limit: number | undefined): string {
  return used === undefined && limit === undefined ? ABSENT : `${shortBytes(used)}/${shortBytes(limit)}`;
}

function network(rx: number | undefined, tx: number | undefined): string {
  return rx === undefined && tx === undefined ? ABSENT : `${shortBytes(rx)}/${shortBytes(tx)}`;
}

/**
 * The columns that fit `total` columns: at 80 every column shows with short sparklines; wider
 * screens give the name, then the sparklines, more room; narrower ones drop the sparklines,
 * disk, uptime and network, in that order, so the name keeps at least 10 columns.
 */
function columns(total: number): { name: number; list: Column[] } {
  const spark = (title: string, pick: (s: ServerView) => (number | undefined)[], max: (s: ServerView) => number) => (w: number): Column => ({ title, width: w, cell: (s) => sparkline(pick(s), w, max(s)) });
  const cpuSpark = spark('trend', (s) => s.cpuHistory, (s) => cpuMax(s.cpuHistory));
  const memSpark = spark('trend', (s) => s.memHistory, (s) => memMax(s.memHistory, s.memoryLimit));
  const state: Column = { title: 'STATE', width: 9, cell: (s) => stateLabel(s), colour: (s) => STATE_COLOURS[stateLabel(s)] };
  const cpu: Column = { title: 'CPU', width: 6, right: true, cell: (s) => percent(s.cpu) };
  const mem: Column = { title: 'MEM/LIMIT', width: 9, right: true, cell: (s) => memory(s.memory, s.memoryLimit) };
  const disk: Column = { title: 'DISK', width: 5, right: true, cell: (s) => shortBytes(s.disk) };
  const net: Column = { title: 'NET RX/TX/s', width: 11, right: true, cell: (s) => network(s.rx, s.tx) };
  const up: Column = { title: 'UP', width: 6, right: true, cell: (s) => uptime(s.uptime) };
  // Dropped first to last as the screen narrows.
  const optional = ['memSpark', 'cpuSpark', 'disk', 'up', 'net'] as const;
  const build = (sparkW: number, drop: ReadonlySet<string>): Column[] => [
    state, cpu,
    ...(drop.has('cpuSpark') ? [] : [cpuSpark(sparkW)]),
    mem,
    ...(drop.has('memSpark') ? [] : [memSpark(sparkW)]),
    ...(drop.has('disk') ? [] : [disk]),
    ...(drop.has('net') ? [] : [net]),
    ...(drop.has('up') ? [] : [up]),
  ];
  // A row is the selection mark and a space, the name, and each column after a space.
  const used = (list: Column[]) => 2 + list.reduce((n, c) => n + c.width + 1, 0);
  const drop = new Set<string>();
  let list = build(5, drop);
  for (const d of optional) {
    if (total - used(list) >= 10) break;
    drop.add(d);
    list = build(5, drop);
  }
  let name = total - used(list);
  // Room beyond a 30-column name goes to the sparklines (up to 30 samples each).
  if (name > 30 && !drop.has('cpuSpark')) {
    const sparkW = Math.min(30, 5 + Math.floor((name - 30) / 2));
    list = build(sparkW, drop);
    name = total - used(list);
  }
  return { name: Math.max(1, name), list };
}

function countsLine(state: TopState): string {
  const counts = new Map<string, number>();
  for (const s of state.servers) counts.set(stateLabel(s), (counts.get(stateLabel(s)) ?? 0) + 1);
  const order = ['running', 'starting', 'stopping', 'offline'];
  const labels = [...order.filter((k) => counts.has(k)), ...[...counts.keys()].filter((k) => !order.includes(k)).sort()];
  const parts = labels.map((k) => paint(`${counts.get(k)} ${k}`, STATE_COLOURS[k], state.color));
  const total = `${state.servers.length} server${state.servers.length === 1 ? '' : 's'}`;
  return `gsh top · ${total}${parts.length ? `: ${parts.join(' · ')}` : ''}`;
}

/** A sum over the servers that report the value; absent when none does. */
function sum(list: readonly ServerView[], pick: (s: ServerView) => number | undefined): number | undefined {
  const values = list.map(pick).filter((v): v is number => v !== undefined);
  return values.length ? values.reduce((a, b) => a + b, 0) : undefined;
}

function totalsLine(state: TopState): string {
  const s = state.servers;
  const requests = state.requestsPerRefresh;
  const budget = requests === undefined ? '' : ` (${requests} req${state.limit ? ` of ${state.limit}/min` : ''})`;
  const every = state.intervalMs === undefined ? '' : ` · every ${formatSeconds(state.intervalMs)}${state.note ? `, ${state.note}` : ''}${budget}`;
  return `cpu ${percent(sum(s, (x) => x.cpu))} · mem ${memory(sum(s, (x) => x.memory), sum(s, (x) => x.memoryLimit))} · net ${network(sum(s, (x) => x.rx), sum(s, (x) => x.tx))}/s${every}`;
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${(ms / 1000).toFixed(1)}s`;
}

function footer(state: TopState, at: number, count: number): string {
  if (state.typing !== undefined) return `filter: ${visible(state.typing)}_   enter keep · esc clear`;
  const where = count ? `${at + 1}/${count}` : '0/0';
  const filter = state.filter ? ` · filter "${visible(state.filter)}"` : '';
  return `${where}${filter} · sort ${state.sort}${state.descending ? '↓' : '↑'} · q quit · ↑↓ move · enter open · / filter · c m n s sort`;
}

/** The list of servers (or the opened server, see detailFrame) as `height` lines of at most `total` columns. */
export function frame(state: TopState, total: number, height: number): string {
  const lines = state.detail ? detailFrame(state, state.detail, total, height) : listFrame(state, total, height);
  return lines.slice(0, height).map((l) => cutLine(l, total)).join('\n');
}

function listFrame(state: TopState, total: number, height: number): string[] {
  const { name, list } = columns(total);
  const rows = shown(state);
  const at = Math.max(0, rows.findIndex((s) => s.id === state.selected));
  const visibleRows = listRows(height);
  const start = windowStart(state.scroll, at, visibleRows, rows.length);
  const titles = `  ${fit('NAME', name)} ${list.map((c) => fit(c.title, c.width, c.right)).join(' ')}`;
  const out = [countsLine(state), totalsLine(state), paint(titles, '1', state.color)];
  if (state.refreshes === 0) out.push('  reading the servers…');
  else if (rows.length === 0) out.push(state.filter ? `  no server name contains "${visible(state.filter)}"` : '  no servers');
  for (const s of rows.slice(start, start + visibleRows)) {
    const selected = s.id === state.selected;
    const cells = list.map((c) => paint(fit(c.cell(s), c.width, c.right), c.colour?.(s), state.color));
    const line = `${selected ? '›' : ' '} ${fit(visible(s.name), name)} ${cells.join(' ')}`;
    out.push(selected ? paint(line, '7', state.color) : line);
  }
  while (out.length < height - FOOTER_LINES) out.push('');
  out.push(footer(state, at, rows.length));
  return out;
}

function detailFrame(state: TopState, d: DetailView, total: number, height: number): string[] {
  const st = d.stats;
  const label = st?.state ?? (d.connected ? 'waiting for stats' : 'connecting');
  const sparkW = Math.max(0, total - 22);
  const out = [
    `gsh top › ${visible(d.name)} (${visible(d.id)}) · ${paint(label, STATE_COLOURS[label], state.color)} · console ${d.connected ? 'live' : 'connecting'}`,
    `CPU  ${fit(percent(st?.cpu), 15)} ${sparkline(d.cpuHistory, sparkW, cpuMax(d.cpuHistory))}`,
    `MEM  ${fit(memory(st?.memory, st?.memoryLimit), 15)} ${sparkline(d.memHistory, sparkW, memMax(d.memHistory, st?.memoryLimit))}`,
    `DISK ${shortBytes(st?.disk)} · NET RX/TX ${network(d.rx, d.tx)}/s · UP ${uptime(st?.uptime)}`,
    paint(`── last console lines${d.message ? ` · ${visible(d.message)}` : ''} `.padEnd(total, '─'), '2', state.color),
  ];
  const room = Math.max(0, height - out.length - FOOTER_LINES);
  const lines = room ? d.lines.slice(-room) : [];
  for (const line of lines) out.push(visible(stripAnsi(line)));
  while (out.length < height - FOOTER_LINES) out.push('');
  out.push('esc back · q quit · stats every second from the console socket');
  return out;
}

/** At most `total` columns; SGR sequences take none (they are gsh's own, added after fitting). */
function cutLine(line: string, total: number): string {
  if (width(stripAnsi(line)) <= total) return line;
  // Only lines gsh built without colour can be too long here (titles, notes, console lines).
  return fit(stripAnsi(line), total);
}
