// The cells of `gsh top`'s screen: short numbers, sparklines, and text cut or padded to a width.
// An absent value is ABSENT (`–`), never a zero (README "gsh top").

import { duration } from '../console/stats-view.js';

export const ABSENT = '–';
const SPARKS = '▁▂▃▄▅▆▇█';

/** Width on the terminal, one column per code point (the names gsh lays out are shown inert first). */
export function width(s: string): number {
  return [...s].length;
}

/** Cut to `w` columns (an ellipsis marks the cut) or padded with spaces; `right` aligns to the right. */
export function fit(s: string, w: number, right = false): string {
  if (w <= 0) return '';
  const chars = [...s];
  if (chars.length > w) return w === 1 ? '…' : `${chars.slice(0, w - 1).join('')}…`;
  const pad = ' '.repeat(w - chars.length);
  return right ? pad + s : s + pad;
}

/** Bytes in at most five columns: 512B, 9.5K, 123M, 1.0G (1024-based, as `console stats` shows). */
export function shortBytes(n: number | undefined): string {
  if (n === undefined) return ABSENT;
  const units = ['B', 'K', 'M', 'G', 'T', 'P'];
  let v = n;
  let i = 0;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? Math.round(v) : v < 10 ? v.toFixed(1) : Math.round(v)}${units[i]}`;
}

/** cpu_absolute is a percentage of one core: 100 is one full core, so a value may pass 100. */
export function percent(n: number | undefined): string {
  if (n === undefined) return ABSENT;
  return n < 100 ? `${n.toFixed(1)}%` : `${Math.round(n)}%`;
}

/** Uptime in seconds, as the console's stats line shows it (45s, 12m05s, 3h04m, 2d07h). */
export function uptime(seconds: number | undefined): string {
  return seconds === undefined ? ABSENT : duration(seconds);
}

/** The last `w` samples as bars scaled to `max`; a missing sample is a space. */
export function sparkline(samples: readonly (number | undefined)[], w: number, max: number): string {
  const shown = samples.slice(-w).map((v) => {
    if (v === undefined || !(max > 0)) return ' ';
    const level = Math.round((Math.min(Math.max(v, 0), max) / max) * (SPARKS.length - 1));
    return SPARKS[level] as string;
  });
  return ' '.repeat(Math.max(0, w - shown.length)) + shown.join('');
}
