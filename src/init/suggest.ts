// "Did you mean" for misspelt keys and names.

import { editDistance as distance } from '../common/suggest.js';

/** The closest candidate within a third of the word's length, as a message suffix, or ''. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(word.length / 3)) + 1;
  for (const candidate of candidates) {
    const d = distance(lower, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best === undefined ? '' : `; did you mean \`${best}\`?`;
}
