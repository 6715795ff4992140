import { similar } from '../../common/suggest.js';
import { GshError } from '../errors.js';
import { ansi, type Streams } from './io.js';
import type { JqFilter } from './jq.js';
import { displayWidth, fitWidth, oneLine, padWidth, type SafeText, visible, visibleDeep } from './terminal-text.js';
import { hideSecrets, type SecretFields } from '../secrets-shown.js';

// One displayer for every resource (ARCHITECTURE.md "Lessons from other CLIs": doctl's displayers,
// gh's table printer). stdout carries data only. json prints the envelope's `data`; jsonl one item
// per line; yaml; csv and tsv with a header row; table sized to the terminal on a TTY and
// tab-separated rows when piped (no header, no colour, no truncation, so scripts can cut -f). --jq,
// -q and --columns shape any of them (ARCHITECTURE.md "Output for scripts").

export type Format = 'table' | 'json' | 'jsonl' | 'yaml' | 'csv' | 'tsv' | 'markdown';
export const FORMATS: readonly Format[] = ['table', 'json', 'jsonl', 'yaml', 'csv', 'tsv', 'markdown'];
/** Formats that print chosen columns of each item. */
export const COLUMN_FORMATS: readonly Format[] = ['table', 'csv', 'tsv', 'markdown'];

/** How a run asked for its output to be shaped (global flags, checked before any request). */
export interface Shaping {
  /** --jq: the compiled filter; it replaces the format. */
  jq?: JqFilter;
  /** --jq with -o csv or tsv: what the expression yields, objects, written as rows. */
  jqRows?: 'csv' | 'tsv';
  /** --columns: dot paths that replace the command's default columns. */
  columns?: readonly string[];
  /** false with --no-header. */
  header: boolean;
  /** -q: identifiers only, one per line. */
  quiet: boolean;
  /** --show-secret: secrets as the service sent them, not [set]/[hidden] (core/secrets-shown.ts). */
  showSecret?: boolean;
}

export interface ShowOptions {
  /** The answer's secret fields (the registry's `secret` fields), hidden unless --show-secret. */
  secrets?: SecretFields;
  /** Default columns (dot paths into each item): the registry's, or a hand-written command's. */
  columns?: readonly string[];
  /** Path of each item's identifier for -q (default `id`). */
  idField?: string;
}

export class Output {
  constructor(
    private readonly io: Streams,
    readonly format: Format,
    private readonly shaping: Shaping = { header: true, quiet: false },
  ) {}

  /** Whole results only: jq sees everything at once, so nothing may be printed page by page. */
  get streams(): boolean {
    return this.shaping.jq === undefined && (this.format === 'jsonl' || this.shaping.quiet);
  }

  /** A whole value: a list (array) or one object, or a scalar. */
  async show(data: unknown, opts: ShowOptions = {}): Promise<void> {
    // Before anything reads it, --jq included: a secret is printed only when asked for.
    if (!this.shaping.showSecret) data = hideSecrets(data, opts.secrets);
    if (this.shaping.jq) {
      const { renderJq } = await import('./jq.js');
      const values = await this.shaping.jq.apply(data ?? null);
      if (this.shaping.jqRows) {
        const rows = jqRows(values);
        return this.delimited(this.io.stdoutTTY ? (visibleDeep(rows) as unknown[]) : rows, this.shaping.columns ?? columnsOf(rows), this.shaping.jqRows);
      }
      // Strings are printed raw: on a terminal, their control characters are shown (core/terminal/terminal-text.ts).
      this.io.stdout.write(renderJq(this.io.stdoutTTY ? values.map((v) => (typeof v === 'string' ? visible(v) : v)) : values, this.io.stdoutTTY));
      return;
    }
    // JSON and YAML escape control characters themselves; the other formats lay service text out as
    // it is, so on a terminal it is made visible before gsh's own colours go around it.
    if (this.io.stdoutTTY && this.format !== 'json' && this.format !== 'jsonl' && this.format !== 'yaml') data = visibleDeep(data);
    if (this.shaping.quiet) return this.ids(Array.isArray(data) ? data : [data], opts.idField);
    if (COLUMN_FORMATS.includes(this.format)) this.checkColumns(Array.isArray(data) ? data : [data]);
    const columns = this.shaping.columns ?? opts.columns;
    switch (this.format) {
      case 'json':
        this.io.stdout.write(`${JSON.stringify(data ?? null, null, 2)}\n`);
        return;
      case 'jsonl':
        for (const item of Array.isArray(data) ? data : [data]) this.io.stdout.write(`${JSON.stringify(item ?? null)}\n`);
        return;
      case 'yaml': {
        // `default`: a bundled dynamic import of a CommonJS package exposes only module.exports.
        const { default: YAML } = await import('yaml');
        this.io.stdout.write(YAML.stringify(data ?? null));
        return;
      }
      case 'csv':
      case 'tsv':
        return this.delimited(Array.isArray(data) ? data : [data], columns ?? columnsOf(data));
      case 'markdown': {
        const items = Array.isArray(data) ? data : [data];
        const cols = columns ?? columnsOf(data);
        this.io.stdout.write(markdownTable(cols, items.map((item) => cols.map((c) => formatCell(pick(item, c))))));
        return;
      }
      case 'table':
        if (Array.isArray(data)) await this.table(data, columns ?? columnsOf(data), opts.idField ?? 'id');
        else if (data !== null && typeof data === 'object') this.keyValues(data as Record<string, unknown>, this.shaping.columns);
        else if (data !== undefined) this.io.stdout.write(`${formatCell(data)}\n`);
    }
  }

  /**
   * --columns names paths into the rows; a path no row has would print an empty column (an
   * inventory that parses and is empty), so it is an error naming the path and the fields the
   * rows do have. Lists call this on their first page, before fetching more.
   */
  checkColumns(items: readonly unknown[]): void {
    const wanted = this.shaping.columns;
    const rows = items.filter((item): item is object => item !== null && typeof item === 'object' && !Array.isArray(item));
    if (!wanted || this.shaping.jq || this.shaping.quiet || !COLUMN_FORMATS.includes(this.format) || rows.length === 0) return;
    for (const path of wanted) {
      if (path === '.' || rows.some((item) => pick(item, path) !== undefined)) continue;
      const have = columnsOf(rows);
      throw new GshError(`--columns: no row has "${path}"; the rows have ${have.length ? have.join(', ') : 'no fields'}`, 1, columnHint(path, have, rows));
    }
  }

  /**
   * Prints one page of a list as it arrives when the output allows it (jsonl, -q); true when it
   * did, so the caller need not show the whole list at the end.
   */
  streamItems(items: readonly unknown[], opts: ShowOptions = {}): boolean {
    if (!this.streams) return false;
    if (!this.shaping.showSecret) items = hideSecrets(items, opts.secrets) as unknown[];
    if (this.shaping.quiet) this.ids(this.io.stdoutTTY ? (visibleDeep(items) as unknown[]) : items, opts.idField);
    else for (const item of items) this.io.stdout.write(`${JSON.stringify(item ?? null)}\n`);
    return true;
  }

  private ids(items: readonly unknown[], idField = 'id'): void {
    for (const item of items) {
      const id = idOf(item, idField);
      if (id === undefined) {
        const held = item !== null && typeof item === 'object' ? Object.keys(item).join(', ') : JSON.stringify(item ?? null);
        throw new GshError(`-q: the answer names no id (it holds ${held || 'nothing'})`, 1, 'Pick the field with --jq instead, e.g. --jq .name.');
      }
      this.io.stdout.write(`${id}\n`);
    }
  }

  /** csv (RFC 4180: quoted where needed, CRLF) or tsv (tabs, newlines and backslashes escaped), with a header row. */
  private async delimited(items: readonly unknown[], columns: readonly string[], format: Format = this.format): Promise<void> {
    // No columns (--jq yielded no rows to take them from): no header and no rows, so nothing at
    // all, not a lone line end a reader would take for one empty record.
    if (columns.length === 0) return;
    const rows = items.map((item) => columns.map((c) => formatCell(pick(item, c))));
    if (this.shaping.header) rows.unshift([...columns]);
    if (format === 'tsv') {
      this.io.stdout.write(rows.map((r) => `${r.map(tsvEscape).join('\t')}\n`).join(''));
      return;
    }
    const { stringify } = await import('csv-stringify/sync');
    // RFC 4180 quotes a field holding CR, LF, a comma or a quote; csv-stringify quotes LF, commas
    // and quotes itself, and a bare CR only when told (quoted_match), or a name holding one would
    // end its row early for a reader that takes CR as a line end (issue #44).
    this.io.stdout.write(stringify(rows, { record_delimiter: 'windows', quoted_match: /[\r\n,"]/ }));
  }

  private async table(items: readonly unknown[], cols: readonly string[], idField: string): Promise<void> {
    if (items.length === 0) {
      if (this.io.stdoutTTY) this.io.stderr.write(ansi.dim('No results.\n', this.io.colorErr));
      return;
    }
    const rows = items.map((item) => cols.map((c) => formatCell(pick(item, c))));
    if (!this.io.stdoutTTY) {
      for (const row of rows) this.io.stdout.write(`${row.map(tsvSafe).join('\t')}\n`);
      return;
    }
    // Laid out here, by display width (core/terminal/terminal-text.ts: graphemes, wide East-Asian
    // characters as 2): each cell one line, cut with fitWidth() where the terminal is too narrow.
    const header = this.shaping.header;
    const cells = rows.map((r) => r.map((c) => oneLine(c)));
    const natural = cols.map((c, i) => Math.max(header ? displayWidth(headerLabel(c)) : 0, ...cells.map((r) => displayWidth(r[i] ?? ''))));
    const widths = fitWidths(
      natural,
      this.io.columns,
      // Ids are never cut: a cut id cannot be pasted into the next command.
      cols.map((c) => c === idField || isIdPath(c)),
      // Names are what a person reads a list by: other columns are cut or dropped first.
      cols.map((c) => c === 'name'),
    );
    const dropped = cols.filter((_, i) => widths[i] === 0 && (natural[i] ?? 0) > 0);
    const line = (parts: readonly SafeText[], style: (s: SafeText) => string = (s) => s) =>
      parts.flatMap((p, i) => {
        if (widths[i] === 0 && (natural[i] ?? 0) > 0) return [];
        const fitted = fitWidth(p, widths[i] ?? 0);
        return [`${style(fitted)}${' '.repeat(Math.max(0, (widths[i] ?? 0) - displayWidth(fitted)))}`];
      }).join('  ').replace(/[ \t]+$/, '');
    const out: string[] = [];
    // Bold decided by the run's streams, never the process's.
    if (header) out.push(line(cols.map((c) => oneLine(headerLabel(c))), (s) => ansi.bold(s, this.io.color)));
    for (const row of cells) out.push(line(row));
    this.io.stdout.write(`${out.join('\n')}\n`);
    if (dropped.length) {
      const names = dropped.map(headerLabel).join(', ');
      this.io.stderr.write(ansi.dim(`${names} left out at ${this.io.columns} columns: a wider terminal or --columns shows ${dropped.length === 1 ? 'it' : 'them'}.\n`, this.io.colorErr));
    }
  }

  private keyValues(obj: Record<string, unknown>, only?: readonly string[]): void {
    const entries: [string, string][] = only ? only.map((c) => [c, formatCell(pick(obj, c))]) : flatten(obj);
    if (!this.io.stdoutTTY) {
      for (const [k, v] of entries) this.io.stdout.write(`${k}\t${tsvSafe(v)}\n`);
      return;
    }
    // One line per field: a newline in a value cannot forge the next field.
    const width = Math.max(0, ...entries.map(([k]) => displayWidth(oneLine(k))));
    for (const [k, v] of entries) {
      this.io.stdout.write(`${ansi.bold(padWidth(oneLine(k), width), this.io.color)}  ${oneLine(v)}\n`);
    }
  }
}

const BORDERLESS = {
  top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '',
  'bottom-right': '', left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '',
};

/** The value at a dot path; `.` is the item itself (a list of strings). */
export function pick(item: unknown, path: string): unknown {
  if (path === '.') return item;
  let cur: unknown = item;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/**
 * An item's identifier for -q, whatever the service calls it (the contract names ids only in
 * paths): the registry's field, then `id`, `uuid`, then `<kind>_id` / `<kind>_uuid` after its
 * `object` (`server_backup` → `backup_id`). Undefined when none is a non-empty string or number.
 */
export function idOf(item: unknown, idField = 'id'): string | undefined {
  // A list of plain values (names) is its own ids.
  if ((typeof item === 'string' && item !== '') || typeof item === 'number') return String(item);
  if (item === null || typeof item !== 'object') return undefined;
  const kind = String((item as { object?: unknown }).object ?? '').split('_').pop();
  const names = [idField, 'id', 'uuid', ...(kind ? [`${kind}_id`, `${kind}_uuid`] : [])];
  for (const name of names) {
    const v = pick(item, name);
    if ((typeof v === 'string' && v !== '') || typeof v === 'number') return String(v);
  }
  return undefined;
}

/**
 * What --jq yielded, as rows for -o csv|tsv: one array of objects, or objects one by one
 * (`.[] | {id, name}`). Anything else cannot be rows: exit 1 naming what it was.
 */
function jqRows(values: readonly unknown[]): Record<string, unknown>[] {
  const isRow = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
  const list = values.length === 1 && Array.isArray(values[0]) ? (values[0] as unknown[]) : values;
  const bad = list.find((v) => !isRow(v));
  if (bad !== undefined) {
    const what = bad === null ? 'null' : Array.isArray(bad) ? 'an array' : typeof bad === 'object' ? 'an object' : `a ${typeof bad}`;
    throw new GshError(`--jq with -o csv or tsv writes objects as rows: the expression yielded ${what}`, 1, 'Make it yield an array of objects, e.g. --jq \'[.[] | {id, name}]\', or use -o json.');
  }
  return list as Record<string, unknown>[];
}

/**
 * One cell. A nested object (the contract rarely fixes a field's shape: `application` may be a
 * slug or an object) shows its `name`, `slug` or `id`, in that order; one with none of them its
 * `key=value` pairs; a list, its items so shown, comma-separated. Never raw JSON.
 */
export function formatCell(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (Array.isArray(v)) return v.map(formatCell).join(', ');
  const o = v as Record<string, unknown>;
  const label = [o.name, o.slug, o.id].find((x) => (typeof x === 'string' && x !== '') || typeof x === 'number');
  if (label !== undefined) return String(label);
  return Object.entries(o).map(([k, x]) => `${k}=${formatCell(x)}`).join(', ');
}

function tsvSafe(s: string): string {
  return s.replace(/[\t\n\r]/g, ' ');
}

function headerLabel(path: string): string {
  return path.toUpperCase().replace(/[._]/g, ' ');
}

/**
 * What to do about a --columns path no row has: the paths it may have meant (those ending in it,
 * else the nearest by edit distance, parents included), and the status hint only where it is
 * true: server rows (01-general-contract.md "Envelope rules" 2: `object` names the kind) that
 * carry no status.
 */
function columnHint(path: string, have: readonly string[], rows: readonly object[]): string {
  const parents = have.flatMap((p) => p.split('.').slice(0, -1).map((_, i, parts) => parts.slice(0, i + 1).join('.')));
  let near = path.includes('.') ? [] : have.filter((p) => p.endsWith(`.${path}`));
  if (!near.length) near = similar(path, [...have, ...parents]);
  const lines = near.length ? [`Did you mean ${near.slice(0, 5).join(', ')}?`] : [];
  const serversWithoutStatus = rows.every((r) => (r as { object?: unknown }).object === 'server' && pick(r, 'status') === undefined);
  if ((path === 'status' || path.startsWith('status.')) && serversWithoutStatus) lines.push('Server lists carry status only with --include-status.');
  else lines.push('Pick from the fields above (-o json shows whole rows).');
  return lines.join('\n');
}

/**
 * Columns for an answer the registry does not describe (`gsh api`, a single object): every
 * field, dot paths for nested objects, in the order they first appear. Registry lists declare
 * theirs.
 */
export function columnsOf(data: unknown): string[] {
  const seen = new Set<string>();
  for (const item of Array.isArray(data) ? data : [data]) {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) seen.add('.');
    else for (const [k] of flatten(item as Record<string, unknown>)) seen.add(k);
  }
  return [...seen];
}

const isIdPath = (path: string): boolean => /(^|[._])(id|uuid)$/.test(path);

function tsvEscape(s: string): string {
  return s.replace(/[\\\t\n\r]/g, (c) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[c] as string);
}

/** Nested objects become dot paths for the key/value view. */
export function flatten(obj: Record<string, unknown>, prefix = ''): [string, string][] {
  const out: [string, string][] = [];
  for (const [k, v] of Object.entries(obj)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0) {
      out.push(...flatten(v as Record<string, unknown>, key));
    } else {
      out.push([key, formatCell(v)]);
    }
  }
  return out;
}

/** Columns a name keeps whole before any other column is dropped (issue 50: names first at 80 columns). */
export const NAME_KEPT = 20;
/** Columns a cut column keeps (its ellipsis included). */
const CUT_FLOOR = 6;

/**
 * Widths that fit the terminal (2 spaces between columns): first the widest columns that may be
 * cut are shrunk, a `kept` column (the name) only down to its kept width; then columns that are
 * neither fixed nor kept are dropped, the last first (width 0); only then is a kept column cut
 * further. Fixed columns (ids) are never cut.
 */
export function fitWidths(natural: number[], columns: number, fixed: readonly boolean[] = [], kept: readonly boolean[] = []): number[] {
  const dropped = new Set<number>();
  const droppable = natural.map((_, i) => i).filter((i) => !fixed[i] && !kept[i] && (natural[i] ?? 0) > 0).reverse();
  for (;;) {
    const widths = natural.map((w, i) => (dropped.has(i) ? 0 : w));
    const next = droppable.find((i) => !dropped.has(i));
    if (shrink(widths, columns, dropped, (i) => (fixed[i] ? Infinity : kept[i] ? Math.min(natural[i] ?? 0, NAME_KEPT) : CUT_FLOOR))) return widths;
    if (next === undefined) {
      shrink(widths, columns, dropped, (i) => (fixed[i] ? Infinity : CUT_FLOOR));
      return widths;
    }
    dropped.add(next);
  }
}

/** Shrinks the widest column above its floor, a column at a time, until the row fits; false if it cannot. */
function shrink(widths: number[], columns: number, dropped: ReadonlySet<number>, floor: (i: number) => number): boolean {
  const total = () => widths.reduce((a, b, i) => a + (dropped.has(i) ? 0 : b + 2), 0);
  while (total() > columns) {
    let widest = -1;
    for (let i = 0; i < widths.length; i++) {
      if (dropped.has(i) || (widths[i] ?? 0) <= floor(i)) continue;
      if (widest < 0 || (widths[i] ?? 0) > (widths[widest] ?? 0)) widest = i;
    }
    if (widest < 0) return false;
    widths[widest] = (widths[widest] ?? 0) - 1;
  }
  return true;
}

/**
 * One cell of a GitHub-flavoured Markdown table (a pull-request comment): on one line, and what
 * Markdown or the page would read as markup escaped, so service text stays text: `|` and the
 * emphasis, code and link characters with a backslash, `<`, `>`, `&` as entities, and `@` so a
 * value never mentions (and notifies) someone.
 */
export function markdownCell(text: string): string {
  return text.replace(/\r\n|\r|\n/g, ' ').replace(/[\\`*_[\]|~#]/g, (c) => `\\${c}`).replace(/[&<>@]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A Markdown table: a header row (Markdown has no table without one) and one row per item. */
export function markdownTable(columns: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.map(markdownCell).join(' | ')} |\n`;
  return line(columns) + `|${columns.map(() => ' --- ').join('|')}|\n` + rows.map(line).join('');
}
