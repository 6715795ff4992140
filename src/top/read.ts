import type { ApiClient, RequestSpec } from '../core/wire/http.js';
import { fetchAll, MAX_PAGE } from '../core/wire/paging.js';
import { type Interval, refreshInterval, requestsPerRefresh, stretchNote } from './budget.js';
import { type Sample, sampleOf } from './sample.js';
import { applySamples, type TopState } from './state.js';

// One refresh of `gsh top`: the list with statuses through the paging code every list uses
// (core/wire/paging.ts: the first page, then the rest, paced by the client on the rate-limit headers).

/** The first page's request (the plan shows it; the others differ only by offset). */
export const LIST_STATUS: RequestSpec = { method: 'GET', path: '/servers', query: { include: 'status' } };

export interface Reading {
  samples: Sample[];
  /** Servers the list holds (pagination.total, else those read): what the next refresh costs. */
  total: number;
  /** X-RateLimit-Limit of the key, when the service sent it. */
  limit?: number;
}

/** Reads every page once; `only` keeps the servers named with -s (all are still read: the list has no id filter). */
export async function readFleet(client: ApiClient, now: () => number, only?: ReadonlySet<string>): Promise<Reading> {
  const { items, first } = await fetchAll(client, LIST_STATUS, { pageSize: MAX_PAGE });
  const at = now();
  const samples = items.map((item) => sampleOf(item, at)).filter((s): s is Sample => s !== undefined && (!only || only.has(s.id)));
  const limit = Number(first.first.headers['x-ratelimit-limit']);
  const total = typeof first.pagination?.total === 'number' ? first.pagination.total : items.length;
  return { samples, total, ...(Number.isFinite(limit) && limit > 0 ? { limit } : {}) };
}

/** One refresh applied to the state; gives the interval until the next one (budget.ts) and its note. */
export async function refresh(state: TopState, client: ApiClient, now: () => number, only: ReadonlySet<string> | undefined, askedMs: number | undefined): Promise<Interval & { note?: string }> {
  const reading = await readFleet(client, now, only);
  applySamples(state, reading.samples);
  const interval = refreshInterval(reading.total, reading.limit, askedMs);
  state.intervalMs = interval.ms;
  state.requestsPerRefresh = requestsPerRefresh(reading.total);
  if (reading.limit !== undefined) state.limit = reading.limit;
  const note = stretchNote(interval, reading.total, reading.limit);
  state.note = note === undefined ? undefined : `stretched from ${interval.stretchedFrom! / 1000}s`;
  return { ...interval, ...(note !== undefined ? { note } : {}) };
}
