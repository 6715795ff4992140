import { Exit, GshError } from '../errors.js';
import type { ApiClient } from './http.js';
import { fetchAll } from './paging.js';

// --if-absent (issue: CI re-runs that create nothing): before creating, look for a resource
// with the same unique-by-intent value (a server's name, a hook's URL, a template's name).

export interface Existing {
  item: Record<string, unknown>;
  id: string;
}

/** The one existing item whose `field` equals `value`, or undefined; several is a conflict (exit 6). */
export async function findExisting(client: ApiClient, listPath: string, field: string, value: unknown): Promise<Existing | undefined> {
  const { items } = await fetchAll(client, { method: 'GET', path: listPath });
  const same = (items as Record<string, unknown>[]).filter((i) => i !== null && typeof i === 'object' && i[field] === value);
  const idOf = (i: Record<string, unknown>) => String(i.id ?? i.uuid ?? i.name ?? '?');
  if (same.length > 1) {
    throw new GshError(`--if-absent: ${same.length} already have ${field} ${JSON.stringify(value)}: ${same.map(idOf).join(', ')}`, Exit.conflict, 'Pick one by id, or remove the duplicates.');
  }
  return same[0] ? { item: same[0], id: idOf(same[0]) } : undefined;
}
