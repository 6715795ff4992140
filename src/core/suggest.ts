import { editDistance } from '../shared/edit-distance.js';

// "Did you mean" for the command line. Sorted by code units: commander's own suggester sorts with
// localeCompare, whose first call costs every usage error ~10 ms of ICU collation setup.

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
