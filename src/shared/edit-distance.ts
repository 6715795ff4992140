// Edit distance for "Did you mean": of the command line (core/suggest.ts) and of the manifest
// linter (init/suggest.ts), which the sandbox runs too. Here, on the ground floor, because the
// sandbox may not reach core (ARCHITECTURE.md "Layers").

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
