import { UsageError } from '../errors.js';

// Shards for CI matrices (README "Rollouts"): --shard K/N takes the K-th of N slices of the
// selection. A slice is a function of the selection's ids alone (sorted by their code units, then
// cut into N runs whose sizes differ by at most one), so it is the same on every run and machine,
// whatever order the servers were named or listed in, and the N slices are disjoint and cover all.

export interface Shard {
  k: number;
  n: number;
}

export const MAX_SHARDS = 1000;

export function parseShard(text: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  const k = Number(m?.[1]);
  const n = Number(m?.[2]);
  if (!m || n < 1 || n > MAX_SHARDS || k < 1 || k > n) {
    throw new UsageError(`--shard takes K/N with 1 <= K <= N <= ${MAX_SHARDS}, e.g. 2/3 for the second of three slices (got "${text}")`);
  }
  return { k, n };
}

/** The ids of shard `k` of `n`: the k-th run of the sorted ids, the first `len % n` runs one longer. */
function shardIds(ids: readonly string[], { k, n }: Shard): Set<string> {
  const sorted = [...new Set(ids)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const base = Math.floor(sorted.length / n);
  const longer = sorted.length % n;
  const start = (k - 1) * base + Math.min(k - 1, longer);
  return new Set(sorted.slice(start, start + base + (k <= longer ? 1 : 0)));
}

/** The targets of this shard, in the order the selection had them. */
export function shardOf<T extends { id: string }>(targets: readonly T[], shard: Shard): T[] {
  const mine = shardIds(targets.map((t) => t.id), shard);
  return targets.filter((t) => mine.has(t.id));
}

/** --rate-share: `1/3`, `25%` or `0.5` of the key's per-minute budget → a fraction in (0, 1]. */
export function parseRateShare(text: string): number {
  const t = text.trim();
  const frac = /^(\d+)\/(\d+)$/.exec(t);
  const pct = /^(\d+(?:\.\d+)?)%$/.exec(t);
  const share = frac ? Number(frac[1]) / Number(frac[2]) : pct ? Number(pct[1]) / 100 : /^\d*\.?\d+$/.test(t) ? Number(t) : NaN;
  if (!(share > 0 && share <= 1)) throw new UsageError(`--rate-share takes a part of the key's per-minute budget above 0 and at most all of it: 1/3, 25% or 0.5 (got "${text}")`);
  return share;
}
