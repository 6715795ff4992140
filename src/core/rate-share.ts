/**
 * The pause between rounds of `requests` that keeps them within `share` of a key's per-minute
 * limit (X-RateLimit-Limit, 01-general-contract.md "Limits"), so the rest of the key's budget is
 * left to the requests that matter more: a fleet's actions, the run's own work, other users.
 */
export function sharePaceMs(requests: number, share: number, limitPerMinute: number): number {
  return Math.ceil((requests * 60_000) / (share * limitPerMinute));
}
