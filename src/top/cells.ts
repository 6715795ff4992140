// The cells of `gsh top`'s screen: short numbers, sparklines, and text cut or padded to a width.
// An absent value is ABSENT (`–`), never a zero (README "gsh top").

import { duration } from '../console/stats-view.js';
import { displayWidth, visible } from '../core/terminal/terminal-text.js';

export const ABSENT = '–';
/** A value whose unit gsh has not inferred yet (README "What gsh assumes beyond the contract"). */
export const UNKNOWN = '?';
const SPARKS = '▁▂▃▄▅▆▇█';

/**
 * Columns a text takes on the terminal: the terminal door's displayWidth() (graphemes by East Asian Width:
 * wide characters and emoji take two, combining marks and zero-width characters none), with a
 * shortcut for the one-column text a frame is mostly made of. The one width function of `gsh
 * top`: the frame is measured, cut and padded with it alone. SGR sequences count nothing; every
 * other control is shown inert (oneLine()) before anything is measured.
 */
export function width(s: string): number {
  return NARROW.test(s) ? s.length : displayWidth(s);
}

/**
 * Text made only of characters that are one column and one grapheme each (printable ASCII and
 * Latin, and the punctuation, arrows and block elements gsh draws with: `›`, `…`, `–`, `▁`…`█`):
 * measured by its length, without segmenting (a frame is mostly such text).
 */
const NARROW = /^[\x20-\x7e\u00a0-\u00ac\u00ae-\u02ff\u2010-\u2027\u2030-\u205e\u2190-\u21ff\u2500-\u259f]*$/;

const segmenter = new Intl.Segmenter();

/** The text's graphemes (what a terminal draws as one character) with the columns of each. */
export function graphemes(s: string): { g: string; w: number }[] {
  if (NARROW.test(s)) return [...s].map((g) => ({ g, w: 1 }));
  return [...segmenter.segment(s)].map(({ segment }) => ({ g: segment, w: width(segment) }));
}

/**
 * Service text as one inert line of the screen: every control character and escape sequence
 * shown as text (core/terminal/terminal-text.ts visible()), and the tab, newline and carriage return that
 * visible() keeps for other output shown too (`^I`, `^J`, `^M`): on the screen a newline would
 * split a row and a tab would skip cells and leave the last frame's characters in them.
 */
export function oneLine(text: string): string {
  return visible(text.replace(/[\t\n\r]/g, (c) => `^${String.fromCharCode(c.charCodeAt(0) + 0x40)}`));
}

/** The first graphemes of `s` that fill at most `w` columns. */
function head(parts: readonly { g: string; w: number }[], w: number): { text: string; w: number } {
  let text = '';
  let used = 0;
  for (const p of parts) {
    if (used + p.w > w) break;
    text += p.g;
    used += p.w;
  }
  return { text, w: used };
}

/** Cut to `w` columns (an ellipsis marks the cut) or padded with spaces; `right` aligns to the right. */
export function fit(s: string, w: number, right = false): string {
  if (w <= 0) return '';
  const sw = width(s);
  if (sw > w) {
    const h = head(graphemes(s), w - 1);
    return `${h.text}…${' '.repeat(w - 1 - h.w)}`;
  }
  const pad = ' '.repeat(w - sw);
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

/**
 * Uptime as the console's stats line shows it (45s, 12m05s, 3h04m, 2d07h). `perSecond` is how
 * many of the service's units make a second (1: seconds, 1000: milliseconds), inferred from the
 * value's growth (uptime.ts); until then a value shows as `?` (0 is 0s in any unit).
 */
export function uptime(value: number | undefined, perSecond: number | undefined): string {
  if (value === undefined) return ABSENT;
  if (value === 0) return duration(0);
  return perSecond === undefined ? UNKNOWN : duration(value / perSecond);
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
