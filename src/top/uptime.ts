// The unit of `uptime` (README "What gsh assumes beyond the contract"). The contract names the
// value (01-general-contract.md "Resource table", "Server status": "uptime usage"; "Console
// socket": the `stats` key `uptime`) but not its unit, and a service that sends milliseconds
// read as seconds shows 7d10h for a server up 11 minutes. So the unit is inferred, never assumed:
// a running server's uptime grows by one unit per unit of time, so its growth between two samples
// against gsh's own clock says how many units make a second (1: seconds, 1000: milliseconds,
// also 10⁶ and 10⁹). Until a growth says so, the screen shows `?`; scripts get the service's
// value as it came.

/** A sample to measure growth from: the value, and when it was read (ms, the run's clock). */
export interface UptimeMark {
  value: number;
  at: number;
}

/** The units gsh recognises: units of uptime per second. */
const UNITS = [1, 1e3, 1e6, 1e9];
/** A growth counts for a unit within a factor of two (a cached or rounded value drifts; units are 1000× apart). */
const TOLERANCE = 2;
/** Growth over less than this is too short to tell (rounding to whole units). */
const MIN_SPAN_MS = 1000;

/**
 * The baseline to keep for a server after a new sample: the earlier one while the value kept
 * growing (a longer span averages rounding and caching out), the new one after a restart.
 */
export function nextMark(before: UptimeMark | undefined, value: number | undefined, at: number): UptimeMark | undefined {
  if (value === undefined) return undefined;
  if (before === undefined || value < before.value) return { value, at };
  return before;
}

/** Units per second that the growth from `mark` to `value` at `at` shows, if it shows one. */
export function unitOf(mark: UptimeMark | undefined, value: number | undefined, at: number): number | undefined {
  if (mark === undefined || value === undefined) return undefined;
  const span = at - mark.at;
  const grown = value - mark.value;
  if (span < MIN_SPAN_MS || !(grown > 0)) return undefined;
  const perSecond = grown / (span / 1000);
  return UNITS.find((u) => perSecond >= u / TOLERANCE && perSecond <= u * TOLERANCE);
}

/** The unit most of the growths show (a server caught mid-restart may show none, or a wrong one). */
export function agreedUnit(units: readonly (number | undefined)[]): number | undefined {
  const counts = new Map<number, number>();
  for (const u of units) if (u !== undefined) counts.set(u, (counts.get(u) ?? 0) + 1);
  let best: number | undefined;
  let n = 0;
  for (const [u, c] of counts) if (c > n) [best, n] = [u, c];
  return best;
}
