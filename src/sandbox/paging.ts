import { fail } from './envelope.js';
import type { Query } from './request.js';

// 01-general-contract.md "Limits": `limit` default 25, max 100; `offset` default 0; values are
// clamped and echoed (Envelope rules 5). A value that is not an integer is a bad query (400).

export interface Paging {
  limit: number;
  offset: number;
}

function intParam(query: Query, name: string): number | undefined {
  const raw = query[name];
  if (raw === undefined) return undefined;
  const text = Array.isArray(raw) ? raw[raw.length - 1] ?? '' : raw;
  if (!/^-?\d{1,15}$/.test(text.trim())) throw fail.badRequest(`Query parameter ${name} must be an integer`);
  return Number(text.trim());
}

export function parsePaging(query: Query): Paging {
  const limit = intParam(query, 'limit') ?? 25;
  const offset = intParam(query, 'offset') ?? 0;
  return { limit: Math.min(100, Math.max(1, limit)), offset: Math.max(0, offset) };
}

export function pageOf<T>(items: readonly T[], paging: Paging): { data: T[]; pagination: { total: number; limit: number; offset: number; has_more: boolean } } {
  const data = items.slice(paging.offset, paging.offset + paging.limit);
  return {
    data,
    pagination: {
      total: items.length,
      limit: paging.limit,
      offset: paging.offset,
      has_more: paging.offset + data.length < items.length,
    },
  };
}

/** Catalogue proxies page with a provider `page` (1-indexed) instead (Envelope rules 7). */
export function parsePage(query: Query): number {
  const page = intParam(query, 'page') ?? 1;
  if (page < 1) throw fail.badRequest('Query parameter page must be 1 or more');
  return page;
}
