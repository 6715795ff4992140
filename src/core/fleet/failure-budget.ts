import { UsageError } from '../errors.js';

// The failure budget (README "Rollouts"): --max-fail N|P%, as Ansible's max_fail_percentage: once
// more targets have failed than it allows, no new target starts. --fail-fast is --max-fail 0.

export type MaxFail = { count: number } | { percent: number };

export function parseMaxFail(text: string): MaxFail {
  const pct = /^(\d+(?:\.\d+)?)%$/.exec(text.trim());
  if (pct && Number(pct[1]) <= 100) return { percent: Number(pct[1]) };
  if (/^\d+$/.test(text.trim())) return { count: Number(text.trim()) };
  throw new UsageError(`--max-fail takes a whole number of servers or a percentage of them, e.g. 2 or 10% (got "${text}")`);
}

/** How many targets of `total` may fail before no new one starts (a percentage rounds down). */
export function allowedFailures(max: MaxFail, total: number): number {
  return 'count' in max ? max.count : Math.floor((total * max.percent) / 100);
}

export function describeMaxFail(max: MaxFail, total: number): string {
  const n = allowedFailures(max, total);
  return n === 0 ? 'starting none after a failure' : `starting none once more than ${n} failed${'percent' in max ? ` (${max.percent}%)` : ''}`;
}
