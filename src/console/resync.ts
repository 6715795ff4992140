// Filling a gap without losing or repeating lines (issue 5, item 2). Console lines carry no ids,
// so after a reconnect or an expired token we ask for recent history and line it up with the
// last lines we printed: what follows the longest match of our tail is new. Lines that arrived
// live while the history reply was on its way are usually the end of that history; only the part
// that is not is kept.

/** How many recent lines are compared; long enough to be unique, short enough to be cheap. */
export const MATCH_LINES = 32;

export class RecentLines {
  private readonly ring: string[] = [];
  private next = 0;
  private count = 0;

  constructor(private readonly capacity = MATCH_LINES) {}

  push(line: string): void {
    if (this.ring.length < this.capacity) this.ring.push(line);
    else this.ring[this.next] = line;
    this.next = (this.next + 1) % this.capacity;
    this.count++;
  }

  /** Oldest first. */
  lines(): string[] {
    if (this.ring.length < this.capacity) return [...this.ring];
    return [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)];
  }

  get seen(): number {
    return this.count;
  }
}

export interface GapFill {
  /** Lines to print, in order. */
  lines: string[];
  /** False when our last lines were not found in the history: some lines may be missing. */
  matched: boolean;
}

/**
 * `seen`: the last lines printed (oldest first); `history`: the node's recent history (oldest
 * first); `live`: lines received since asking for it. With nothing seen yet there is nothing to
 * line up with, so only the live lines are kept.
 *
 * `before`: how many of `live` came before the history's newest page. The node sent them before
 * it answered, so they are in its history; a reader too slow for the node also misses some of
 * them (`N console lines skipped`), so they need not be the end of the history, and comparing
 * them with its end would print them twice and out of order. When the history reaches back to
 * the lines seen they are dropped; when it does not, those older than its first line are kept.
 */
export function fillGap(seen: readonly string[], history: readonly string[], live: readonly string[], before?: number): GapFill {
  let matched = seen.length === 0;
  let gap: readonly string[] = [];
  if (seen.length > 0) {
    const at = endOfLastMatch(seen, history);
    matched = at !== undefined;
    gap = at === undefined ? history : history.slice(at);
  }
  if (before === undefined || seen.length === 0) return { lines: [...gap, ...live.slice(longestOverlap(history, live))], matched };
  const earlier = live.slice(0, before);
  const later = live.slice(before);
  const known = new Set(history);
  const firstKnown = earlier.findIndex((line) => known.has(line));
  const older = matched ? [] : earlier.slice(0, firstKnown < 0 ? earlier.length : firstKnown);
  return { lines: [...older, ...gap, ...later.slice(longestOverlap(history, later))], matched };
}

/** Whether the last lines seen (all of them, MATCH_LINES at most) are found in `history`: paging can stop. */
export function tailFound(seen: readonly string[], history: readonly string[]): boolean {
  const m = Math.min(seen.length, MATCH_LINES);
  if (m === 0) return true;
  const from = seen.length - m;
  for (let i = history.length - m; i >= 0; i--) {
    let k = 0;
    while (k < m && history[i + k] === seen[from + k]) k++;
    if (k === m) return true;
  }
  return false;
}

/** Index in `history` just after the last occurrence of the longest suffix of `seen` found there. */
function endOfLastMatch(seen: readonly string[], history: readonly string[]): number | undefined {
  for (let m = Math.min(seen.length, MATCH_LINES, history.length); m >= 1; m--) {
    const from = seen.length - m;
    for (let i = history.length - m; i >= 0; i--) {
      let k = 0;
      while (k < m && history[i + k] === seen[from + k]) k++;
      if (k === m) return i + m;
    }
  }
  return undefined;
}

/** The largest k such that the last k lines of `a` are the first k lines of `b`. */
function longestOverlap(a: readonly string[], b: readonly string[]): number {
  for (let k = Math.min(a.length, b.length); k > 0; k--) {
    let j = 0;
    while (j < k && a[a.length - k + j] === b[j]) j++;
    if (j === k) return k;
  }
  return 0;
}
