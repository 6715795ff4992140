// The long random and exhaustive walks run on a deterministic sample in `npm test` and in full
// where GSH_TEST_FULL=1 (.ci/run sets it): the same seeded generators draw fewer cases, so a
// sample run is the same on every machine and a failure in either names its seed.

export const FULL = process.env.GSH_TEST_FULL === '1';

/** `full` cases in a full run, else `sample`. */
export function cases(full: number, sample: number): number {
  return FULL ? full : Math.min(full, sample);
}
