import { envelopeData } from './envelope.js';
import type { ApiClient, ApiResponse, RequestSpec } from './http.js';

// Paginated lists (01-general-contract.md, "Envelope rules" 5 and "Limits": limit default 25, max
// 100, clamped and echoed). --all fetches the first page, then the rest concurrently (bounded;
// the client paces them on the rate-limit headers), keeping the server's order.

export interface Pagination {
  total: number;
  limit: number;
  offset: number;
  has_more: boolean;
}

export interface ListEnvelope {
  data?: unknown;
  pagination?: Partial<Pagination>;
}

export const MAX_PAGE = 100;
const CONCURRENCY = 4;

export interface PageResult {
  items: unknown[];
  pagination: Partial<Pagination> | undefined;
  first: ApiResponse<ListEnvelope>;
}

export async function fetchPage(client: ApiClient, spec: RequestSpec, limit?: number, offset?: number): Promise<PageResult> {
  const res = await client.request<ListEnvelope>({
    ...spec,
    query: { ...spec.query, ...(limit === undefined ? {} : { limit }), ...(offset === undefined ? {} : { offset }) },
  });
  const data = envelopeData(res);
  return { items: Array.isArray(data) ? data : data === undefined ? [] : [data], pagination: res.body?.pagination, first: res };
}

/**
 * Every page. `onPage` sees each page's items in order as soon as all earlier pages are in
 * (jsonl streams through it); the resolved array is the whole list.
 */
export async function fetchAll(
  client: ApiClient,
  spec: RequestSpec,
  opts: { pageSize?: number; onPage?: (items: unknown[]) => void } = {},
): Promise<{ items: unknown[]; first: PageResult }> {
  const first = await fetchPage(client, spec, opts.pageSize ?? MAX_PAGE, 0);
  opts.onPage?.(first.items);
  const p = first.pagination;
  const pageSize = p?.limit && p.limit > 0 ? p.limit : first.items.length;
  if (!p?.has_more || pageSize === 0) return { items: first.items, first };

  const offsets: number[] = [];
  if (typeof p.total === 'number') {
    for (let off = (p.offset ?? 0) + pageSize; off < p.total; off += pageSize) offsets.push(off);
  }
  if (offsets.length === 0) return sequentialRest(client, spec, first, pageSize, opts.onPage);

  const pages: (unknown[] | undefined)[] = new Array(offsets.length);
  let emitted = 0;
  const emitReady = () => {
    // Optional chaining would skip evaluating the argument, so advance outside the call.
    while (emitted < pages.length && pages[emitted] !== undefined) {
      const page = pages[emitted] as unknown[];
      emitted++;
      opts.onPage?.(page);
    }
  };
  let next = 0;
  const worker = async () => {
    while (next < offsets.length) {
      const i = next++;
      pages[i] = (await fetchPage(client, spec, pageSize, offsets[i])).items;
      emitReady();
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, offsets.length) }, worker));
  return { items: [first.items, ...(pages as unknown[][])].flat(), first };
}

/** When total is not given, follow has_more one page at a time. */
async function sequentialRest(
  client: ApiClient,
  spec: RequestSpec,
  first: PageResult,
  pageSize: number,
  onPage?: (items: unknown[]) => void,
): Promise<{ items: unknown[]; first: PageResult }> {
  const items = [...first.items];
  let offset = (first.pagination?.offset ?? 0) + pageSize;
  for (;;) {
    const page = await fetchPage(client, spec, pageSize, offset);
    items.push(...page.items);
    onPage?.(page.items);
    if (!page.pagination?.has_more || page.items.length === 0) return { items, first };
    offset += page.items.length;
  }
}
