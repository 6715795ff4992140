import { rate, type Sample, type Usage } from './sample.js';
import { agreedUnit, nextMark, unitOf, type UptimeMark } from './uptime.js';

// The model of `gsh top` (ARCHITECTURE.md "Layers", `src/top/`): refreshes and keys
// change it, frame.ts draws it. Nothing here touches a terminal, a clock or the network.

/** Samples a sparkline keeps (the screen shows as many as fit). */
export const HISTORY = 120;
/** Console lines kept for an opened server. */
export const CONSOLE_LINES = 200;

export const SORT_KEYS = ['name', 'cpu', 'memory', 'state'] as const;
export type SortKey = (typeof SORT_KEYS)[number];

export interface ServerView extends Sample {
  /** Network bytes a second since the server's previous sample; absent without two readings. */
  rx?: number;
  tx?: number;
  cpuHistory: (number | undefined)[];
  memHistory: (number | undefined)[];
  /** The sample uptime's growth is measured from (uptime.ts). */
  uptimeMark?: UptimeMark;
}

/** An opened server: its console socket's per-second `stats` and its last console lines. */
export interface DetailView {
  id: string;
  name: string;
  /** The socket is authenticated. */
  connected: boolean;
  stats?: Usage & { state?: string; at: number };
  rx?: number;
  tx?: number;
  cpuHistory: (number | undefined)[];
  memHistory: (number | undefined)[];
  lines: string[];
  /** What the session last said (a reconnect, a renewal, an error). */
  message?: string;
  /** The `stats` uptime's units a second, once its growth showed them (uptime.ts); the socket's own. */
  uptimePerSecond?: number;
  uptimeMark?: UptimeMark;
}

export interface TopState {
  /** In the list's order (the service's: by name). */
  servers: ServerView[];
  sort: SortKey;
  descending: boolean;
  /** Rows whose name (or id) contains this, case-insensitively. */
  filter: string;
  /** The filter being typed after `/`; undefined when not typing. */
  typing?: string;
  /** The selected server's id. */
  selected?: string;
  /** The first row shown (kept so that moving scrolls by rows, not by pages). */
  scroll: number;
  refreshes: number;
  /** How often the list is read, and what decided it. */
  intervalMs?: number;
  /** X-RateLimit-Limit of the key (requests a minute), when the service sent it. */
  limit?: number;
  requestsPerRefresh?: number;
  /** Said after the interval: that --interval was stretched. */
  note?: string;
  color: boolean;
  detail?: DetailView;
  /** The list's uptime units a second, once their growth showed them (uptime.ts); `?` until then. */
  uptimePerSecond?: number;
  /** The key overlay (`?`) is shown. */
  help?: boolean;
  /** Servers marked with space: what r, s and x act on (the selected one when none is). */
  marked: Set<string>;
  /** An action asked for, waiting for `y` on the confirmation line that shows its command. */
  confirm?: PendingAction;
  /** What the last action did (or is doing), shown on the last line until the next key. */
  actionNote?: string;
}

/** The power actions top takes from a key: r, s, x. */
export type PowerAction = 'restart' | 'start' | 'stop';

export interface PendingAction {
  action: PowerAction;
  targets: { id: string; name: string }[];
  /** The equivalent gsh command, shown before it runs (the same fleet runner runs it). */
  command: string;
}

/** Numbers sort high first, words from A. */
const descendingFirst = (key: SortKey) => key === 'cpu' || key === 'memory';

export function initialState(color: boolean, sort: SortKey = 'name'): TopState {
  return { servers: [], sort, descending: descendingFirst(sort), filter: '', scroll: 0, refreshes: 0, color, marked: new Set() };
}

function push<T>(list: T[], v: T, max: number): T[] {
  const out = [...list, v];
  return out.length > max ? out.slice(out.length - max) : out;
}

/** A refresh's samples become the rows: rates from the previous sample, one more point per sparkline. */
export function applySamples(state: TopState, samples: readonly Sample[]): void {
  const before = new Map(state.servers.map((s) => [s.id, s]));
  const units: (number | undefined)[] = [];
  state.servers = samples.map((s) => {
    const prev = before.get(s.id);
    const seconds = prev ? (s.at - prev.at) / 1000 : 0;
    const rx = rate(prev?.rxTotal, s.rxTotal, seconds);
    const tx = rate(prev?.txTotal, s.txTotal, seconds);
    units.push(unitOf(prev?.uptimeMark, s.uptime, s.at));
    const uptimeMark = nextMark(prev?.uptimeMark, s.uptime, s.at);
    return {
      ...s,
      ...(rx !== undefined ? { rx } : {}),
      ...(tx !== undefined ? { tx } : {}),
      cpuHistory: push(prev?.cpuHistory ?? [], s.cpu, HISTORY),
      memHistory: push(prev?.memHistory ?? [], s.memory, HISTORY),
      ...(uptimeMark ? { uptimeMark } : {}),
    };
  });
  // The service's unit does not change: once the growths show one, it stays.
  state.uptimePerSecond ??= agreedUnit(units);
  state.refreshes++;
  if (state.selected === undefined || !state.servers.some((s) => s.id === state.selected)) state.selected = shown(state)[0]?.id;
}

/** The order states sort in: the ones that need a look first. */
const STATE_ORDER = ['running', 'starting', 'stopping', 'offline'];

export function stateLabel(s: Pick<Sample, 'visible' | 'state' | 'nodeReady'>): string {
  if (!s.visible) return 'no access';
  if (s.nodeReady === false) return 'no node';
  return s.state ?? 'unknown';
}

function stateRank(s: ServerView): number {
  if (!s.visible) return STATE_ORDER.length + 2;
  const i = STATE_ORDER.indexOf(s.state ?? '');
  return s.nodeReady === false ? STATE_ORDER.length + 1 : i < 0 ? STATE_ORDER.length : i;
}

/** Names as a person orders them (issue 50): case and accents aside (`amber` before `Arctic`), digits by value (`web-2` before `web-10`). */
const collator = new Intl.Collator(undefined, { sensitivity: 'base', numeric: true });
const byCode = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
const byName = (a: ServerView, b: ServerView) => collator.compare(a.name, b.name) || byCode(a.name, b.name) || byCode(a.id, b.id);

/** Numbers high first (descending) or low first; an absent value always last. */
function byNumber(pick: (s: ServerView) => number | undefined, descending: boolean) {
  return (a: ServerView, b: ServerView) => {
    const x = pick(a);
    const y = pick(b);
    if (x === undefined || y === undefined) return x === y ? byName(a, b) : x === undefined ? 1 : -1;
    return x === y ? byName(a, b) : descending ? y - x : x - y;
  };
}

/** The rows as the screen lists them: filtered, then sorted. */
export function shown(state: TopState): ServerView[] {
  const needle = state.filter.toLowerCase();
  const rows = needle ? state.servers.filter((s) => s.name.toLowerCase().includes(needle) || s.id.toLowerCase().includes(needle)) : [...state.servers];
  const d = state.descending;
  switch (state.sort) {
    case 'cpu':
      return rows.sort(byNumber((s) => s.cpu, d));
    case 'memory':
      return rows.sort(byNumber((s) => s.memory, d));
    case 'state':
      return rows.sort((a, b) => (stateRank(a) - stateRank(b)) * (d ? -1 : 1) || byName(a, b));
    default:
      return rows.sort((a, b) => byName(a, b) * (d ? -1 : 1));
  }
}

/** The first row shown so that row `index` is on screen, moving as little as possible from `scroll`. */
export function windowStart(scroll: number, index: number, rows: number, total: number): number {
  if (rows <= 0) return 0;
  let start = Math.min(Math.max(0, scroll), Math.max(0, total - rows));
  if (index < start) start = index;
  if (index >= start + rows) start = index - rows + 1;
  return Math.max(0, start);
}

/** Moves the selection by `delta` rows (clamped), scrolling as needed for a list `rows` high. */
export function move(state: TopState, delta: number, rows: number): void {
  const list = shown(state);
  if (list.length === 0) return;
  const at = Math.max(0, list.findIndex((s) => s.id === state.selected));
  const to = Math.min(list.length - 1, Math.max(0, at + delta));
  state.selected = list[to]!.id;
  // From the window on screen, which a re-sort (a key or a refresh) moved to keep the selected
  // row in view (frame.ts), not from the one before it: the cursor moves, the rows stay.
  const onScreen = windowStart(state.scroll, at, rows, list.length);
  state.scroll = windowStart(onScreen, to, rows, list.length);
}

/** Sorting by the key pressed; the same key again reverses the order. Numbers start high first. */
export function sortBy(state: TopState, key: SortKey): void {
  state.descending = state.sort === key ? !state.descending : descendingFirst(key);
  state.sort = key;
  keepSelection(state);
}

export function setFilter(state: TopState, filter: string): void {
  state.filter = filter;
  state.scroll = 0;
  keepSelection(state);
}

/** After the rows changed order or membership: the selection stays if still listed, else the first row. */
function keepSelection(state: TopState): void {
  const list = shown(state);
  if (!list.some((s) => s.id === state.selected)) state.selected = list[0]?.id;
}

/** Space: marks the selected server, or unmarks it. */
export function toggleMark(state: TopState): void {
  const id = state.selected;
  if (id === undefined) return;
  if (state.marked.has(id)) state.marked.delete(id);
  else state.marked.add(id);
}

/**
 * r, s, x: the action on the marked servers still listed (in the list's order), or on the
 * selected one when none is marked, waiting for its confirmation.
 */
export function askAction(state: TopState, action: PowerAction): void {
  const listed = shown(state);
  const marked = listed.filter((s) => state.marked.has(s.id));
  const targets = (marked.length ? marked : listed.filter((s) => s.id === state.selected)).map((s) => ({ id: s.id, name: s.name }));
  if (!targets.length) return;
  state.confirm = { action, targets, command: `gsh power ${action} -s ${targets.map((t) => t.id).join(',')} --yes` };
}

/** A console socket's `stats` payload for the opened server (rates from its previous one). */
export function applyStats(d: DetailView, usage: Usage & { state?: string }, at: number): void {
  const prev = d.stats;
  const seconds = prev ? (at - prev.at) / 1000 : 0;
  const rx = rate(prev?.rxTotal, usage.rxTotal, seconds);
  const tx = rate(prev?.txTotal, usage.txTotal, seconds);
  if (rx !== undefined) d.rx = rx;
  else delete d.rx;
  if (tx !== undefined) d.tx = tx;
  else delete d.tx;
  d.uptimePerSecond ??= unitOf(d.uptimeMark, usage.uptime, at);
  const mark = nextMark(d.uptimeMark, usage.uptime, at);
  if (mark) d.uptimeMark = mark;
  else delete d.uptimeMark;
  d.stats = { ...usage, at };
  d.cpuHistory = push(d.cpuHistory, usage.cpu, HISTORY);
  d.memHistory = push(d.memHistory, usage.memory, HISTORY);
}

export function addLine(d: DetailView, line: string): void {
  d.lines = push(d.lines, line, CONSOLE_LINES);
}
