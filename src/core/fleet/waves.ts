import { UsageError } from '../errors.js';

// Waves (README "Rollouts"): --batch SIZES, as Ansible's `serial`: a comma list of counts or
// percentages of the selection; the last size repeats until every target has its wave. A wave
// starts only once every target of the one before it has finished (its wait included).

export type WaveSize = { count: number } | { percent: number };

/** `1,10%,50%` → sizes; 0, a fraction of a server, or a percentage outside 1-100 is a usage error. */
export function parseBatch(text: string): WaveSize[] {
  const parts = text.split(',').map((p) => p.trim());
  return parts.map((p): WaveSize => {
    const pct = /^(\d+(?:\.\d+)?)%$/.exec(p);
    if (pct) {
      const percent = Number(pct[1]);
      if (percent > 0 && percent <= 100) return { percent };
    } else if (/^\d+$/.test(p) && Number(p) >= 1) return { count: Number(p) };
    throw new UsageError(`--batch takes a comma list of server counts (1 or more) or percentages (above 0%, at most 100%), e.g. 1,10%,50% (got "${text}")`);
  });
}

/** One size in servers: a percentage of the whole selection, rounded down, at least one. */
function servers(size: WaveSize, total: number): number {
  return 'count' in size ? size.count : Math.max(1, Math.floor((total * size.percent) / 100));
}

/** The waves' lengths for `total` targets (they add up to `total`). */
export function waveLengths(sizes: readonly WaveSize[] | undefined, total: number): number[] {
  if (!sizes?.length) return total ? [total] : [];
  const out: number[] = [];
  let left = total;
  for (let i = 0; left > 0; i++) {
    const n = Math.min(left, servers(sizes[Math.min(i, sizes.length - 1)] as WaveSize, total));
    out.push(n);
    left -= n;
  }
  return out;
}

/** The targets cut into waves, in order. */
export function splitWaves<T>(targets: readonly T[], sizes: readonly WaveSize[] | undefined): T[][] {
  let at = 0;
  return waveLengths(sizes, targets.length).map((n) => targets.slice(at, (at += n)));
}
