import { stripAnsi } from '../core/terminal/io.js';
import { NAME_KEPT } from '../core/terminal/output.js';
import { ABSENT, fit, graphemes, oneLine, percent, shortBytes, sparkline, uptime, width } from './cells.js';
import { differAt, fitName } from './names.js';
import { type DetailView, type ServerView, shown, stateLabel, type TopState, windowStart } from './state.js';

// `frame(state, width, height)`: the whole screen of `gsh top` as text, one line per terminal row,
// each at most `width` columns of the terminal (cells.ts width(): wide characters take two)
// (ARCHITECTURE.md "Layers", `src/top/`). Tests compare frames as text; screen.ts only writes
// them. Service text (names, ids, states, the console's status and lines, session messages) is
// shown inert on one line (cells.ts oneLine()) before it is cut and coloured; then every line is
// checked once more (ownEscapesOnly): the only escapes a frame can hold are gsh's own colours.

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
 * The columns that fit `total` columns: the name comes first (issue 50: names of up to
 * NAME_KEPT columns stay whole), so the sparklines, disk, uptime and network are dropped, in that
 * order, until the longest name fits (at least 10 columns when none is that short); wider screens
 * give the name, then the sparklines, more room.
 */
function columns(total: number, perSecond: number | undefined, longest: number): { name: number; list: Column[] } {
  const wanted = Math.max(10, Math.min(longest, NAME_KEPT));
  const spark = (title: string, pick: (s: ServerView) => (number | undefined)[], max: (s: ServerView) => number) => (w: number): Column => ({ title, width: w, cell: (s) => sparkline(pick(s), w, max(s)) });
  const cpuSpark = spark('trend', (s) => s.cpuHistory, (s) => cpuMax(s.cpuHistory));
  const memSpark = spark('trend', (s) => s.memHistory, (s) => memMax(s.memHistory, s.memoryLimit));
  const state: Column = { title: 'STATE', width: 9, cell: (s) => oneLine(stateLabel(s)), colour: (s) => STATE_COLOURS[stateLabel(s)] };
  const cpu: Column = { title: 'CPU', width: 6, right: true, cell: (s) => percent(s.cpu) };
  const mem: Column = { title: 'MEM/LIMIT', width: 9, right: true, cell: (s) => memory(s.memory, s.memoryLimit) };
  const disk: Column = { title: 'DISK', width: 5, right: true, cell: (s) => shortBytes(s.disk) };
  const net: Column = { title: 'NET RX/TX/s', width: 11, right: true, cell: (s) => network(s.rx, s.tx) };
  const up: Column = { title: 'UP', width: 6, right: true, cell: (s) => uptime(s.uptime, perSecond) };
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
    if (total - used(list) >= wanted) break;
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

/** Title and counts by state, within `total` columns: states that do not fit are counted as `+N more`. */
function countsLine(state: TopState, total: number): string {
  const counts = new Map<string, number>();
  for (const s of state.servers) counts.set(stateLabel(s), (counts.get(stateLabel(s)) ?? 0) + 1);
  const order = ['running', 'starting', 'stopping', 'offline'];
  const labels = [...order.filter((k) => counts.has(k)), ...[...counts.keys()].filter((k) => !order.includes(k)).sort()];
  let line = `gsh top · ${state.servers.length} server${state.servers.length === 1 ? '' : 's'}`;
  let used = width(line);
  labels.forEach((k, i) => {
    if (used < 0) return;
    // A state word the service made up is shown inert and cut (a word, not a paragraph).
    const text = `${counts.get(k)} ${fit(oneLine(k), Math.min(width(oneLine(k)), 20))}`;
    const sep = i === 0 ? ': ' : ' · ';
    const rest = labels.length - i - 1;
    const more = rest ? ` · +${rest} more` : '';
    if (used + width(sep + text + more) <= total || (rest === 0 && used + width(sep + text) <= total)) {
      line += sep + paint(text, STATE_COLOURS[k], state.color);
      used += width(sep + text);
    } else {
      line += `${i === 0 ? ':' : ' ·'} +${labels.length - i} more`;
      used = -1;
    }
  });
  return line;
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

/** The end of `text` in at most `w` columns, an ellipsis first when cut (what is being typed shows its end). */
function lastColumns(text: string, w: number): string {
  if (width(text) <= w) return text;
  const parts = graphemes(text);
  let out = '';
  let used = 1;
  for (let i = parts.length - 1; i >= 0 && used + parts[i]!.w <= w; i--) {
    out = parts[i]!.g + out;
    used += parts[i]!.w;
  }
  return w > 0 ? `…${out}` : '';
}

/** The keys the footer always shows, and hints added while they fit. */
const LIST_KEYS = ['? keys', 'q quit'];
const LIST_HINTS = ['enter open', '/ filter', 'c m n t sort', '↑↓ move', 'space mark', 'r s x restart start stop'];

/**
 * The last line: where the selection is, the filter, the order, and the keys. The keys are never
 * cut off: what the user typed is cut first (its end kept), then the hints after `? keys · q quit`.
 */
function footer(state: TopState, at: number, count: number, total: number): string {
  // The confirmation line: the command that will run, in full, then the keys.
  if (state.confirm) return `y runs, other keys cancel: ${state.confirm.command}`;
  if (state.actionNote !== undefined) return oneLine(state.actionNote);
  if (state.typing !== undefined) {
    const keys = '_ · enter keep · esc clear';
    return `filter: ${lastColumns(oneLine(state.typing), total - width(`filter: ${keys}`))}${keys}`;
  }
  const where = count ? `${at + 1}/${count}` : '0/0';
  const sort = ` · sort ${state.sort}${state.descending ? '↓' : '↑'}`;
  const keys = ` · ${LIST_KEYS.join(' · ')}`;
  let filter = '';
  if (state.filter) {
    const room = total - width(`${where} · filter ""${sort}${keys}`);
    filter = ` · filter "${lastColumns(oneLine(state.filter), room)}"`;
  }
  let line = `${where}${filter}${sort}${keys}`;
  for (const hint of LIST_HINTS) {
    if (width(`${line} · ${hint}`) <= total) line += ` · ${hint}`;
  }
  return line;
}

/** Every key, over the whole screen (`?`; any key goes back). */
const HELP: [string, string][] = [
  ['↑ ↓  k j', 'move'],
  ['PgUp PgDn', 'a page up or down'],
  ['space', 'mark the server (again: unmark)'],
  ['r s x', 'restart, start, stop the marked servers (or the selected one): shows the gsh command, y runs it'],
  ['Home End  g G', 'the first or the last server'],
  ['c m n t', 'sort by CPU, memory, name, state (again: reverse)'],
  ['/', 'filter by name as you type: enter keeps it, esc clears it'],
  ['esc', 'clear the filter; in an opened server: back to the list'],
  ['enter', 'open the server: its stats every second, last console lines'],
  ['?', 'these keys'],
  ['q', 'quit (Ctrl-C too: exit 130)'],
];

function helpFrame(state: TopState, height: number): string[] {
  const out = [paint('gsh top · keys', '1', state.color), ''];
  for (const [key, does] of HELP) out.push(`  ${key.padEnd(18)}${does}`);
  while (out.length < height - FOOTER_LINES) out.push('');
  out.push('any key goes back');
  return out;
}

/** The list of servers (or the opened server, see detailFrame) as `height` lines of at most `total` columns. */
export function frame(state: TopState, total: number, height: number): string {
  const lines = state.help ? helpFrame(state, height) : state.detail ? detailFrame(state, state.detail, total, height) : listFrame(state, total, height);
  return lines.slice(0, height).map((l) => cutLine(ownEscapesOnly(l), total)).join('\n');
}

function listFrame(state: TopState, total: number, height: number): string[] {
  // The longest name among every server, not only those on screen, so columns do not come and go as it scrolls.
  const { name, list } = columns(total, state.uptimePerSecond, Math.max(0, ...state.servers.map((s) => width(oneLine(s.name)))));
  const rows = shown(state);
  const at = Math.max(0, rows.findIndex((s) => s.id === state.selected));
  const visibleRows = listRows(height);
  const start = windowStart(state.scroll, at, visibleRows, rows.length);
  const titles = `  ${fit('NAME', name)} ${list.map((c) => fit(c.title, c.width, c.right)).join(' ')}`;
  const out = [countsLine(state, total), totalsLine(state), paint(titles, '1', state.color)];
  if (state.refreshes === 0) out.push('  reading the servers…');
  else if (rows.length === 0) out.push(state.filter ? `  no server name contains "${oneLine(state.filter)}"` : '  no servers');
  const onScreen = rows.slice(start, start + visibleRows);
  // Where each name differs from the others, among every server (not only those on screen).
  const differ = onScreen.some((s) => width(oneLine(s.name)) > name) ? differOf(state.servers) : undefined;
  for (const s of onScreen) {
    const selected = s.id === state.selected;
    const cells = list.map((c) => paint(fit(c.cell(s), c.width, c.right), c.colour?.(s), state.color));
    const shownName = oneLine(s.name);
    const line = `${selected ? '›' : ' '}${state.marked.has(s.id) ? '*' : ' '}${fitName(shownName, name, differ?.get(shownName))} ${cells.join(' ')}`;
    out.push(selected ? paint(line, '7', state.color) : line);
  }
  while (out.length < height - FOOTER_LINES) out.push('');
  out.push(footer(state, at, rows.length, total));
  return out;
}

/** differAt() once per refresh: a refresh replaces the list, keys and redraws keep it. */
const differCache = new WeakMap<readonly ServerView[], Map<string, number>>();
function differOf(servers: readonly ServerView[]): Map<string, number> {
  let at = differCache.get(servers);
  if (!at) differCache.set(servers, (at = differAt(servers.map((s) => oneLine(s.name)))));
  return at;
}

function detailFrame(state: TopState, d: DetailView, total: number, height: number): string[] {
  const st = d.stats;
  const label = st?.state !== undefined ? oneLine(st.state) : d.connected ? 'waiting for stats' : 'connecting';
  const sparkW = Math.max(0, total - 22);
  // The name takes what the id, the state and the console's word leave, so a long name (or a
  // hostile one) never pushes the state out of the header.
  const shownLabel = fit(label, Math.min(width(label), 20));
  const id = oneLine(d.id);
  const tail = ` (${id}) · ${shownLabel} · console ${d.connected ? 'live' : 'connecting'}`;
  const name = oneLine(d.name);
  const nameW = Math.max(8, total - width('gsh top › ') - width(tail));
  const out = [
    `gsh top › ${width(name) > nameW ? fit(name, nameW) : name} (${id}) · ${paint(shownLabel, STATE_COLOURS[label], state.color)} · console ${d.connected ? 'live' : 'connecting'}`,
    `CPU  ${fit(percent(st?.cpu), 15)} ${sparkline(d.cpuHistory, sparkW, cpuMax(d.cpuHistory))}`,
    `MEM  ${fit(memory(st?.memory, st?.memoryLimit), 15)} ${sparkline(d.memHistory, sparkW, memMax(d.memHistory, st?.memoryLimit))}`,
    `DISK ${shortBytes(st?.disk)} · NET RX/TX ${network(d.rx, d.tx)}/s · UP ${uptime(st?.uptime, d.uptimePerSecond)}`,
    paint(fit(`── last console lines${d.message ? ` · ${oneLine(d.message)}` : ''} ${'─'.repeat(total)}`, total).replace(/…$/, '─'), '2', state.color),
  ];
  const room = Math.max(0, height - out.length - FOOTER_LINES);
  const lines = room ? d.lines.slice(-room) : [];
  // A game's colours are dropped and its tabs laid out as spaces (a tab skips cells, leaving the last frame's characters in them).
  for (const line of lines) out.push(oneLine(expandTabs(stripAnsi(line))));
  while (out.length < height - FOOTER_LINES) out.push('');
  out.push('esc back · q quit · ? keys · stats every second from the console socket');
  return out;
}

function expandTabs(line: string): string {
  if (!line.includes('\t')) return line;
  return line.split('\t').reduce((acc, piece, i) => (i === 0 ? piece : acc + ' '.repeat(8 - (width(acc) % 8)) + piece), '');
}

/**
 * The last line of defence: the only escape sequences a line of the frame may hold are gsh's own
 * colours (paint() above: SGR 1, 2, 7, the state colours and their ends). Anything else, a
 * control character or another sequence, is shown as text, had any service text escaped
 * oneLine() on its way here.
 */
const OWN_SGR = new Set(['1', '2', '7', '22', '27', '39', '31', '32', '33', '35']);
function ownEscapesOnly(line: string): string {
  // eslint-disable-next-line no-control-regex
  return line.replace(/\x1b\[(\d{1,2})m|[\x00-\x1f\x7f-\x9f]/g, (m: string, code?: string) => (code !== undefined && OWN_SGR.has(code) ? m : oneLine(m)));
}

/** At most `total` columns; SGR sequences take none (they are gsh's own, added after fitting). */
function cutLine(line: string, total: number): string {
  if (width(stripAnsi(line)) <= total) return line;
  // Only lines gsh built without colour can be too long here (titles, notes, console lines).
  return fit(stripAnsi(line), total);
}
