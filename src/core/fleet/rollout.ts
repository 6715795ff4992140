import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { type Step, step } from '../plan.js';
import { parseDuration } from '../flags/duration.js';
import { describeMaxFail, type MaxFail, parseMaxFail } from './failure-budget.js';
import { parseRateShare, parseShard, type Shard } from './shards.js';
import { parseBatch, splitWaves, type WaveSize } from './waves.js';

// The rollout flags of every fleet command (README "Rollouts", ARCHITECTURE.md "Many servers at once"): declared
// once here, so a registry leaf (leaf/features/servers.ts) and every hand-written fleet command
// (files, wait, console, init) take the same flags with the same words, and checked once here
// while planning, before any request (a usage error never follows one).

export interface Rollout {
  /** --batch: the waves' sizes (none: one wave of everything). */
  batch?: WaveSize[];
  /** --pause between waves (ms). */
  pauseMs: number;
  /** --max-fail (--fail-fast is a count of 0). */
  maxFail?: MaxFail;
  shard?: Shard;
  /** The part of the key's per-minute budget this run takes: --rate-share, else 1/N of a shard. */
  rateShare: number;
  journal?: string;
  resume?: string;
}

/** The flags as commander stores them. */
export interface RolloutFlags {
  failFast?: boolean;
  batch?: string;
  pause?: string;
  maxFail?: string;
  shard?: string;
  rateShare?: string;
  journal?: string;
  resume?: string;
}

/** Every flag name the rollout takes (a registry field may not take one; a replay leaves them out). */
export const ROLLOUT_FLAG_NAMES = ['fail-fast', 'batch', 'pause', 'max-fail', 'shard', 'rate-share', 'journal', 'resume'] as const;

/** The flags on `cmd`, in the order --help lists them. */
export function fleetFlags(cmd: Command): Command {
  return cmd
    .option('--fail-fast', 'with several servers: start no new one after a failure (same as --max-fail 0)')
    .option('--batch <sizes>', 'with several servers: run in waves of these sizes, counts or percentages (1,10%,50%; the last repeats); a wave starts once the one before has finished, its wait included')
    .option('--pause <duration>', 'with --batch: wait this long between waves (e.g. 30s)')
    .option('--max-fail <n|p%>', 'with several servers: start no new one once more than this many (or this part) have failed; exit 11')
    .option('--shard <k/n>', 'run on the K-th of N disjoint slices of the servers (stable across runs and machines), with 1/N of the key\'s rate limit')
    .option('--rate-share <part>', 'the part of the key\'s per-minute rate limit this run may use: 1/3, 25% or 0.5 (default: all, or 1/N with --shard)')
    .option('--journal <file>', 'append each server\'s outcome to FILE as it finishes (one JSON line each; gsh fleet report reads it)')
    .option('--resume <file>', 'run only on the servers the journal FILE does not show done (the same command line), appending to it');
}

/** The rollout a command line asks for, checked (nothing is sent). */
export function rolloutOf(raw: RolloutFlags): Rollout {
  if (raw.failFast && raw.maxFail !== undefined) throw new UsageError('--fail-fast is --max-fail 0: give one of them');
  if (raw.pause !== undefined && raw.batch === undefined) throw new UsageError('--pause is the wait between waves: it needs --batch');
  const shard = raw.shard === undefined ? undefined : parseShard(raw.shard);
  const maxFail = raw.failFast ? { count: 0 } : raw.maxFail === undefined ? undefined : parseMaxFail(raw.maxFail);
  return {
    ...(raw.batch === undefined ? {} : { batch: parseBatch(raw.batch) }),
    pauseMs: raw.pause === undefined ? 0 : parseDuration(raw.pause, '--pause'),
    ...(maxFail ? { maxFail } : {}),
    ...(shard ? { shard } : {}),
    rateShare: raw.rateShare !== undefined ? parseRateShare(raw.rateShare) : shard ? 1 / shard.n : 1,
    ...(raw.journal === undefined ? {} : { journal: raw.journal }),
    ...(raw.resume === undefined ? {} : { resume: raw.resume }),
  };
}

/** A shard, a journal or a resume is about the selection, so even one server runs as a fleet of one. */
export function runsAsFleet(r: Rollout | undefined): boolean {
  return r !== undefined && (r.shard !== undefined || r.journal !== undefined || r.resume !== undefined);
}

const labelOf = (t: { id: string; name?: string }) => (t.name ? `${t.name} (${t.id})` : t.id);

/** The plan's lines about the fleet: how many at once, the failure budget, the share, and each wave. */
export function fleetSteps(targets: readonly { id: string; name?: string }[], parallel: number, r: Rollout | undefined): Step[] {
  const budget = r?.maxFail ? `, ${describeMaxFail(r.maxFail, targets.length)}` : '';
  const share = r && r.rateShare < 1 ? `, using ${Math.round(r.rateShare * 1000) / 10}% of the key's rate limit` : '';
  const shard = r?.shard ? ` (shard ${r.shard.k}/${r.shard.n})` : '';
  const head = step('fleet', `run on ${targets.length} server${targets.length === 1 ? '' : 's'}${shard}, ${parallel} at a time${budget}${share}: ${targets.map(labelOf).join(', ')}`);
  if (!r?.batch) return [head];
  const waves = splitWaves(targets, r.batch);
  const pause = r.pauseMs ? `, ${r.pauseMs / 1000} s apart` : '';
  return [head, ...waves.map((w, i) => step('fleet', `wave ${i + 1} of ${waves.length} (${w.length} server${w.length === 1 ? '' : 's'}${i ? `, after wave ${i} has finished${pause}` : ''}): ${w.map(labelOf).join(', ')}`))];
}
