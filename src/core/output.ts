import { ansi, type Streams } from './io.js';

// One displayer for every resource (STYLE.md: doctl's displayers, gh's table printer). stdout
// carries data only. json prints the envelope's `data`; jsonl one item per line; yaml; table
// sized to the terminal on a TTY and tab-separated rows when piped (no header, no colour, no
// truncation, so scripts can cut -f).

export type Format = 'table' | 'json' | 'jsonl' | 'yaml';
export const FORMATS: readonly Format[] = ['table', 'json', 'jsonl', 'yaml'];

export interface ShowOptions {
  /** Dot paths into each item; inferred from the data when omitted. */
  columns?: readonly string[];
}

export class Output {
  constructor(
    private readonly io: Streams,
    readonly format: Format,
  ) {}

  /** A whole value: a list (array) or one object, or a scalar. */
  async show(data: unknown, opts: ShowOptions = {}): Promise<void> {
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
      case 'table':
        if (Array.isArray(data)) await this.table(data, opts.columns);
        else if (data !== null && typeof data === 'object') await this.keyValues(data as Record<string, unknown>);
        else if (data !== undefined) this.io.stdout.write(`${formatCell(data)}\n`);
    }
  }

  /** Streams list items as pages arrive when the format allows it (jsonl); true when it did. */
  streamItems(items: readonly unknown[]): boolean {
    if (this.format !== 'jsonl') return false;
    for (const item of items) this.io.stdout.write(`${JSON.stringify(item ?? null)}\n`);
    return true;
  }

  private async table(items: readonly unknown[], columns?: readonly string[]): Promise<void> {
    if (items.length === 0) {
      if (this.io.stdoutTTY) this.io.stderr.write(ansi.dim('No results.\n', this.io.colorErr));
      return;
    }
    const cols = columns?.length ? [...columns] : inferColumns(items);
    const rows = items.map((item) => cols.map((c) => formatCell(pick(item, c))));
    if (!this.io.stdoutTTY) {
      for (const row of rows) this.io.stdout.write(`${row.map(tsvSafe).join('\t')}\n`);
      return;
    }
    const { default: Table } = await import('cli-table3');
    const widths = fitWidths(
      cols.map((c, i) => Math.max(c.length, ...rows.map((r) => displayWidth(r[i] ?? '')))),
      this.io.columns,
    );
    const table = new Table({
      // Bold decided by the run's streams: cli-table3's own head style goes through @colors, which
      // decides from the process's stdout and environment, not the run's.
      head: cols.map((c) => ansi.bold(headerLabel(c), this.io.color)),
      colWidths: widths.map((w) => w + 2),
      wordWrap: false,
      truncate: '…',
      chars: BORDERLESS,
      style: { head: [], border: [], 'padding-left': 0, 'padding-right': 2 },
    });
    for (const row of rows) table.push(row);
    this.io.stdout.write(`${table.toString().replace(/[ \t]+$/gm, '')}\n`);
  }

  private async keyValues(obj: Record<string, unknown>): Promise<void> {
    const entries = flatten(obj);
    if (!this.io.stdoutTTY) {
      for (const [k, v] of entries) this.io.stdout.write(`${k}\t${tsvSafe(v)}\n`);
      return;
    }
    const width = Math.max(0, ...entries.map(([k]) => k.length));
    for (const [k, v] of entries) {
      this.io.stdout.write(`${ansi.bold(k.padEnd(width), this.io.color)}  ${v}\n`);
    }
  }
}

const BORDERLESS = {
  top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '',
  'bottom-right': '', left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '',
};

export function pick(item: unknown, path: string): unknown {
  let cur: unknown = item;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

export function formatCell(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (Array.isArray(v) && v.every((x) => x === null || typeof x !== 'object')) return v.join(', ');
  return JSON.stringify(v);
}

function tsvSafe(s: string): string {
  return s.replace(/[\t\n\r]/g, ' ');
}

function headerLabel(path: string): string {
  return path.toUpperCase().replace(/[._]/g, ' ');
}

/** Scalar top-level fields of the first items, `object` and long text left out; id and name first. */
export function inferColumns(items: readonly unknown[]): string[] {
  const seen = new Map<string, number>();
  for (const item of items.slice(0, 20)) {
    if (item === null || typeof item !== 'object') continue;
    for (const [k, v] of Object.entries(item)) {
      if (k === 'object') continue;
      const scalar = v === null || typeof v !== 'object' || (Array.isArray(v) && v.every((x) => typeof x !== 'object'));
      if (scalar && !seen.has(k)) seen.set(k, seen.size);
    }
  }
  if (seen.size === 0) return items.every((i) => i === null || typeof i !== 'object') ? ['.'] : [];
  const rank = (k: string) => (k === 'id' ? -3 : k === 'name' ? -2 : /(^|_)(id|uuid)$/.test(k) ? -1 : 0);
  return [...seen.keys()].sort((a, b) => rank(a) - rank(b) || (seen.get(a) ?? 0) - (seen.get(b) ?? 0)).slice(0, 8);
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

function displayWidth(s: string): number {
  return [...s].length;
}

/** Shrinks the widest columns until the row fits the terminal (2 spaces between columns). */
export function fitWidths(natural: number[], columns: number): number[] {
  const widths = [...natural];
  const total = () => widths.reduce((a, b) => a + b + 2, 0);
  while (total() > columns) {
    let widest = 0;
    for (let i = 1; i < widths.length; i++) if ((widths[i] ?? 0) > (widths[widest] ?? 0)) widest = i;
    if ((widths[widest] ?? 0) <= 6) break;
    widths[widest] = (widths[widest] ?? 0) - 1;
  }
  return widths;
}
