// "Did you mean": edit distance and the nearest candidates, for the command line (program.ts,
// core/flags/values.ts, --columns in core/terminal/output.ts), server names (core/fleet/server-ref.ts) and the
// manifest linter (init/suggest.ts), which the sandbox runs too. Here, on
// the ground floor, because the sandbox may not reach core (ARCHITECTURE.md "Layers").
// Sorted by code units: commander's own suggester sorts with localeCompare, whose first call
// costs every usage error ~10 ms of ICU collation setup.

/** Levenshtein distance: insertions, deletions and substitutions, each costing 1. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The candidates at the smallest edit distance, if that is within 40 % of the word's length. */
export function similar(word: string, candidates: Iterable<string>): string[] {
  const limit = Math.max(1, Math.floor(word.length * 0.4));
  let best = limit + 1;
  let found: string[] = [];
  for (const c of new Set(candidates)) {
    const d = editDistance(word, c);
    if (d < best) {
      best = d;
      found = [c];
    } else if (d === best) {
      found.push(c);
    }
  }
  return found.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * The names a mistyped or partial name may have meant, case-insensitively, at most `max`: the
 * names it begins (a partial name), else those it is part of (as the API's `search`), else those
 * at the smallest edit distance (`similar`), else those with the same first word (`amber-nope`
 * → `amber-bastion-110`: the start of a name is what people remember).
 */
export function nearestNames(word: string, names: Iterable<string>, max = 5): string[] {
  const all = [...new Set(names)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const w = word.toLowerCase();
  const lower = (n: string) => n.toLowerCase();
  const firstWord = (s: string) => s.split(/[-_. ]/)[0] ?? '';
  const head = firstWord(w);
  const close = new Set(similar(w, all.map(lower)));
  const rules: ((n: string) => boolean)[] = [
    (n) => lower(n).startsWith(w),
    (n) => lower(n).includes(w),
    (n) => close.has(lower(n)),
    (n) => head.length >= 3 && firstWord(lower(n)) === head,
  ];
  for (const rule of rules) {
    const found = all.filter(rule);
    if (found.length) return found.slice(0, max);
  }
  return [];
}
