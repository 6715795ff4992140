import { fit, graphemes, width } from './cells.js';

// The NAME column of `gsh top` (README "gsh top"): names cut to fit, but never cut so that two of
// them look the same. Fleets are named in series (`golden-isle-101`, `golden-isle-102`): a cut at
// the end keeps the part they share and drops the part that tells them apart. So each name keeps
// the place where it first differs from the names nearest it: cut at the end when that place is
// in the head, otherwise an ellipsis in the middle (`golden-…le-101`), or two when the name goes
// on long after it (`gold…sle-1-eu-w…`). Widths are the terminal's (cells.ts width()).

type Parts = { g: string; w: number }[];

function commonPrefix(a: Parts, b: Parts): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i]!.g === b[i]!.g) i++;
  return i;
}

/** For each name: the grapheme at which it first differs from every other (its length when it is a prefix of another). */
export function differAt(names: readonly string[]): Map<string, number> {
  const sorted = [...new Set(names)].sort();
  const parts = sorted.map(graphemes);
  const at = new Map<string, number>();
  sorted.forEach((name, i) => {
    const prev = i > 0 ? commonPrefix(parts[i]!, parts[i - 1]!) : 0;
    const next = i + 1 < sorted.length ? commonPrefix(parts[i]!, parts[i + 1]!) : 0;
    at.set(name, Math.max(prev, next));
  });
  return at;
}

/** Graphemes from the end that fill at most `w` columns. */
function tail(parts: Parts, w: number): { text: string; w: number } {
  let text = '';
  let used = 0;
  for (let i = parts.length - 1; i >= 0; i--) {
    if (used + parts[i]!.w > w) break;
    text = parts[i]!.g + text;
    used += parts[i]!.w;
  }
  return { text, w: used };
}

function headOf(parts: Parts, w: number): { text: string; w: number; n: number } {
  let text = '';
  let used = 0;
  let n = 0;
  for (const p of parts) {
    if (used + p.w > w) break;
    text += p.g;
    used += p.w;
    n++;
  }
  return { text, w: used, n };
}

/** `name` in exactly `w` columns, keeping grapheme `d` (where it differs from its neighbours) on screen. */
export function fitName(name: string, w: number, d = 0): string {
  if (w <= 0) return '';
  if (width(name) <= w || w < 5) return fit(name, w);
  const parts = graphemes(name);
  const first = headOf(parts, w - 1);
  if (d < first.n) return fit(name, w);
  const after = parts.slice(d);
  const afterW = after.reduce((n, p) => n + p.w, 0);
  let out: string;
  if (afterW <= w - 3) {
    // One ellipsis in the middle: a head, then the end of the name, which holds the difference.
    const headW = Math.min(Math.ceil((w - 1) / 2), w - 1 - afterW);
    const h = headOf(parts, headW);
    out = `${h.text}…${tail(parts, w - 1 - h.w).text}`;
  } else {
    // The difference is followed by more than fits: a head, the difference with one grapheme before it, an ellipsis.
    const h = headOf(parts, Math.max(1, Math.floor((w - 2) / 3)));
    const mid = headOf(parts.slice(Math.max(h.n, d - 1)), w - 2 - h.w);
    out = `${h.text}…${mid.text}…`;
  }
  return fit(out, w);
}
