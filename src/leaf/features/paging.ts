import { UsageError } from '../../core/errors.js';
import type { ApiClient, RequestSpec } from '../../core/wire/http.js';
import { fetchAll, fetchPage, MAX_PAGE } from '../../core/wire/paging.js';
import { step } from '../../core/plan.js';
import { type Execution, type Feature, slot } from '../feature.js';

// `paging`: `--limit/--offset/--all` (offset paging) or `--page` (provider pages). A paged list
// is fetched by core/wire/paging.ts instead of the one request (ARCHITECTURE.md "Requests": Paging).

/** Flags of paged commands only; an unpaged op may declare its own `limit`. */
const PAGING_FLAGS = { offset: ['limit', 'offset', 'all'], page: ['page'] } as const;

interface Paging { limit?: number; offset?: number; all: boolean }
const planned = slot<Paging>('paging');

function wholeNumber(raw: unknown, flag: string, min: number): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!/^\d+$/.test(String(raw).trim()) || !Number.isInteger(n) || n < min) {
    throw new UsageError(`${flag} takes a whole number of at least ${min} (got "${String(raw)}")`);
  }
  return n;
}

export const paging: Feature = {
  name: 'paging',
  reserves: (op) => (op.paging ? PAGING_FLAGS[op.paging] : []),
  flags({ cmd, leaf: { op } }) {
    if (op.paging === 'offset') {
      cmd.option('--limit <n>', 'items per page (default 25, max 100; the server clamps and echoes it)');
      cmd.option('--offset <n>', 'items to skip (default 0)');
      cmd.option('--all', 'fetch every page (concurrently, in order)');
    } else if (op.paging === 'page') {
      cmd.option('--page <n>', 'provider page, 1-indexed');
    }
  },
  values(d) {
    const { local } = d;
    const limit = wholeNumber(local.limit, '--limit', 1);
    const offset = wholeNumber(local.offset, '--offset', 0);
    const page = wholeNumber(local.page, '--page', 1);
    if (local.all && offset !== undefined) throw new UsageError('--all fetches every page from the first; leave out --offset');
    if (page !== undefined) d.query.page = page;
    planned.set(d, { ...(limit === undefined ? {} : { limit }), ...(offset === undefined ? {} : { offset }), all: local.all === true });
  },
  /** The first page's request carries the limit and offset it will be sent with. */
  spec(d, spec) {
    const p = planned.get(d);
    if (d.leaf.op.paging !== 'offset' || !p) return spec;
    // With --all, --limit is the page size (the service clamps it to 100 and echoes what it used).
    const limit = p.all ? (p.limit ?? MAX_PAGE) : p.limit;
    const offset = p.all ? 0 : p.offset;
    return { ...spec, query: { ...spec.query, ...(limit === undefined ? {} : { limit }), ...(offset === undefined ? {} : { offset }) } };
  },
  request(d) {
    if (planned.get(d)?.all) d.then.push(step('page', 'fetch every further page (4 at a time, in order)'));
  },
  async send(x) {
    if (x.p.leaf.op.paging !== 'offset') return false;
    await x.send((q) => list(x, q.client, q.spec, planned.get(q) ?? { all: false }));
    return true;
  },
};

async function list(x: Execution, client: ApiClient, spec: RequestSpec, opts: Paging): Promise<void> {
  const { out } = x;
  const how = x.showOptions([]);
  if (opts.all) {
    const stream = out.streamItems;
    let first = true;
    const onPage = (page: unknown[]) => {
      if (first) out.checkColumns?.(page);
      first = false;
      stream?.(page, how);
    };
    const { items } = await fetchAll(client, spec, { pageSize: opts.limit, onPage });
    if (!stream) await out.show(items, how);
    return;
  }
  const page = await fetchPage(client, spec, opts.limit, opts.offset);
  const p = page.pagination;
  if (opts.limit !== undefined && typeof p?.limit === 'number' && p.limit !== opts.limit) {
    out.note(`note: the server applied limit=${p.limit} (asked for ${opts.limit})`);
  }
  await out.show(page.items, how);
  // Always on stderr, whatever the format: a script reading one page must not take it for all.
  if (p?.has_more) {
    const next = (p.offset ?? 0) + page.items.length;
    out.note(`showing ${page.items.length} of ${p.total ?? 'more'}; --all fetches every page (or --offset ${next} the next one)`);
  }
}
