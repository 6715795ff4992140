import { MAX_PAGE } from '../core/wire/paging.js';
import { sharePaceMs } from '../core/rate-share.js';

// How often `gsh top` may read the fleet (README "gsh top"). One refresh is GET /servers with
// include=status, 100 servers a page (02-endpoints-part-a.md "Servers"; 01-general-contract.md
// "Limits": at most 100 a page), so ⌈N/100⌉ requests, never one per server. The key's budget is
// X-RateLimit-Limit requests a minute (01 "Limits"; default 60 when the service sends no header):
// top takes at most half of it, leaving the rest to the key's other users, and refreshes no
// faster than every 2 s unless --interval asks. An --interval that would take more than half is
// stretched, and says so.

/** The part of the key's per-minute budget top's refreshes may use. */
export const BUDGET_SHARE = 0.5;
/** The contract's default per-key limit (01-general-contract.md "Limits"), until headers say otherwise. */
export const DEFAULT_LIMIT = 60;
/** The default interval's floor: a screen that changes faster cannot be read. */
export const DEFAULT_FLOOR_MS = 2000;
/** The shortest --interval (the console socket's stats come every second anyway). */
export const MIN_INTERVAL_MS = 1000;

export function requestsPerRefresh(servers: number): number {
  return Math.max(1, Math.ceil(servers / MAX_PAGE));
}

/** The shortest interval at which `requests` a refresh stay within the share of `limit` a minute. */
export function budgetFloorMs(requests: number, limit: number): number {
  return sharePaceMs(requests, BUDGET_SHARE, limit);
}

export interface Interval {
  ms: number;
  /** --interval asked for less than the budget allows: what it asked. */
  stretchedFrom?: number;
}

/** The interval for a fleet of `servers` on a key of `limit` a minute, and --interval if given. */
export function refreshInterval(servers: number, limit: number | undefined, askedMs?: number): Interval {
  const floor = budgetFloorMs(requestsPerRefresh(servers), limit && limit > 0 ? limit : DEFAULT_LIMIT);
  if (askedMs === undefined) return { ms: Math.max(DEFAULT_FLOOR_MS, floor) };
  return askedMs >= floor ? { ms: askedMs } : { ms: floor, stretchedFrom: askedMs };
}

/** The note a stretched interval prints (stderr for scripts, the header on the screen). */
export function stretchNote(i: Interval, servers: number, limit: number | undefined): string | undefined {
  if (i.stretchedFrom === undefined) return undefined;
  const requests = requestsPerRefresh(servers);
  return `--interval ${i.stretchedFrom / 1000}s stretched to ${i.ms / 1000}s: ${requests} request${requests === 1 ? '' : 's'} a refresh (${servers} servers) must stay within half of the key's ${limit ?? DEFAULT_LIMIT} requests a minute`;
}
