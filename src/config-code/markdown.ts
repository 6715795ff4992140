// `gsh config diff -o markdown`: the difference as a pull-request comment (README "Configuration
// as code"): a summary line, one table per kind, write-only values masked, and never more than
// MARKDOWN_LIMIT characters (GitHub refuses a comment over 65,536): rows that do not fit are
// summarised with counts by kind, and the full list is one `-o json` away.

import { markdownCell, markdownTable } from '../core/terminal/output.js';
import { asText } from './kind.js';
import { KIND_NAMES } from './kinds/index.js';

export const MARKDOWN_LIMIT = 65_000;
/** A cell longer than this is cut (a long motd would crowd out other servers' rows). */
const CELL = 120;

export interface DiffEntry {
  server_id: string | null;
  server_name: string | null;
  /** The account's target (run.ts idsOf). */
  account?: true;
  in_sync: boolean | null;
  /** As diff -o json shows them (run.ts changeView). */
  changes?: Array<Record<string, unknown>>;
  not_compared?: string[];
  error?: { message: string };
}

interface ChangeView {
  kind: string;
  action: string;
  held?: true;
  fields: Array<{ path: string; live: unknown; declared: unknown; clamped?: true }>;
}

const cut = (text: string) => (text.length > CELL ? `${text.slice(0, CELL - 1)}…` : text);
const value = (v: unknown) => cut(v === null || v === undefined ? '-' : Array.isArray(v) ? v.map(asText).join(', ') : asText(v));
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The comment's text; `shown` makes service text safe for where it goes (the terminal door on a terminal). */
export function diffMarkdown(entries: readonly DiffEntry[], shown: (s: string) => string = (s) => s, limit = MARKDOWN_LIMIT): string {
  const server = (e: DiffEntry) => (e.account ? 'account' : shown(e.server_name ?? e.server_id ?? '?'));
  const drifted = entries.filter((e) => e.in_sync === false);
  const unread = entries.filter((e) => e.error !== undefined);
  const rowsByKind = new Map<string, string[][]>(KIND_NAMES.map((k) => [k, []]));
  const serversByKind = new Map<string, Set<string>>(KIND_NAMES.map((k) => [k, new Set()]));
  for (const e of drifted) {
    for (const c of (e.changes ?? []) as unknown as ChangeView[]) {
      const change = `${c.action}${c.held ? ' (held)' : ''}`;
      for (const f of c.fields) rowsByKind.get(c.kind)?.push([server(e), shown(f.path), shown(value(f.live)), shown(value(f.declared)), f.clamped ? `${change} (clamped)` : change]);
      serversByKind.get(c.kind)?.add(server(e));
    }
    for (const p of e.not_compared ?? []) {
      const kind = KIND_NAMES.find((k) => p.startsWith(k)) ?? '';
      rowsByKind.get(kind)?.push([server(e), shown(p), '(write-only)', '(masked)', 'not compared']);
    }
  }
  const changes = [...rowsByKind.values()].reduce((n, r) => n + r.filter((row) => row[4] !== 'not compared').length, 0);
  const byKind = KIND_NAMES.filter((k) => rowsByKind.get(k)!.some((r) => r[4] !== 'not compared')).map((k) => `${k} ${rowsByKind.get(k)!.filter((r) => r[4] !== 'not compared').length}`);
  let out = `### gsh config diff: ${drifted.length ? `${plural(drifted.length, 'server')} of ${entries.length} ${drifted.length === 1 ? 'differs' : 'differ'}` : `all ${plural(entries.length, 'server')} in sync`}${unread.length ? `, ${unread.length} could not be read` : ''}\n\n`;
  if (changes) out += `${plural(changes, 'difference')}: ${byKind.join(', ')}. \`gsh config apply\` makes them; a clamped value needs the file changed instead.\n\n`;
  // What is left out is counted by kind, and the servers it is on.
  const omitted = new Map<string, number>();
  const omittedServers = new Set<string>();
  const unreadSection = unread.length
    ? `#### Not read\n\n${unread.slice(0, 50).map((e) => `- ${markdownCell(server(e))}: ${markdownCell(shown(cut(e.error!.message)))}`).join('\n')}\n${unread.length > 50 ? `- and ${unread.length - 50} more\n` : ''}\n`
    : '';
  const footerRoom = 400 + KIND_NAMES.join('').length * 2 + unreadSection.length;
  const tables: string[] = [];
  for (const kind of KIND_NAMES) {
    const rows = rowsByKind.get(kind)!;
    if (!rows.length) continue;
    const header = `#### ${kind} (${plural(serversByKind.get(kind)!.size, 'server')})\n\n`;
    const columns = ['Server', 'Path', 'Live', 'Declared', 'Change'];
    const fitted: string[][] = [];
    let size = out.length + tables.join('').length + header.length + markdownTable(columns, []).length + 1;
    for (const row of rows) {
      const line = markdownTable(columns, [row]).split('\n')[2]!.length + 1;
      if (omitted.size || size + line > limit - footerRoom) {
        if (row[4] !== 'not compared') omitted.set(kind, (omitted.get(kind) ?? 0) + 1);
        omittedServers.add(row[0]!);
        continue;
      }
      fitted.push(row);
      size += line;
    }
    if (fitted.length) tables.push(`${header}${markdownTable(columns, fitted)}\n`);
  }
  out += tables.join('');
  if (omitted.size || omittedServers.size) {
    const n = [...omitted.values()].reduce((a, b) => a + b, 0);
    out += `_Not shown, to keep this comment within ${limit.toLocaleString('en')} characters: ${plural(n, 'more difference')} (${[...omitted].map(([k, c]) => `${k} ${c}`).join(', ')}) on ${plural(omittedServers.size, 'server')}. \`gsh config diff -o json\` lists every one._\n\n`;
  }
  return out + unreadSection;
}
