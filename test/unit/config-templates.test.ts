import { describe, expect, it } from 'vitest';
import type { CompareContext } from '../../src/config-code/kind.js';
import { type LiveTemplate, templates } from '../../src/config-code/kinds/templates.js';
import type { RequestSpec } from '../../src/core/request-spec.js';
import type { ApiClient } from '../../src/core/wire/http.js';

// The init templates kind where the service shows less (02-endpoints-part-a.md "Init templates and
// manifest validation" lists no fields of a template; 01-general-contract.md "Resource table":
// name, description, manifest, the manifest's field name not shown): a field the listing leaves
// out is read from the template itself, and a manifest never shown is not compared, never taken
// as equal or as different.

const MANIFEST = '#service-init\nversion: 1\nenv:\n  MODE: lobby\n';
const ctx: CompareContext = { serverId: '', prune: false, replace: [], env: {}, secrets: false, skip: () => false };
const declared = (description?: string) => ({ prune: false, items: [{ name: 'lobby', ...(description !== undefined ? { description } : {}), manifest: { file: 'm.yaml', text: MANIFEST } }] });

/** A client answering the listing with `list` and each template's own read with `one`. */
function client(list: Array<Record<string, unknown>>, one: (id: string) => Record<string, unknown> | undefined): { api: ApiClient; sent: string[] } {
  const sent: string[] = [];
  const api = {
    async request(spec: RequestSpec) {
      sent.push(`${spec.method} ${spec.path}`);
      const id = /^\/init\/templates\/(.+)$/.exec(spec.path)?.[1];
      const data = id === undefined ? list : one(decodeURIComponent(id));
      return { status: 200, headers: {}, body: { data, ...(id === undefined ? { pagination: { total: list.length, limit: 100, offset: 0, has_more: false } } : {}) } };
    },
  } as unknown as ApiClient;
  return { api, sent };
}

describe('init templates: what the service does not show', () => {
  it('a listing without manifest and description: the template is read on its own for them', async () => {
    const { api, sent } = client([{ id: 'tpl_1', name: 'lobby' }, { id: 'tpl_2', name: 'other' }], (id) => ({ id, name: 'lobby', description: 'Lobby', manifest: MANIFEST }));
    const live = await templates.read(api, '', declared('Lobby'));
    // Only the declared template is read on its own.
    expect(sent).toEqual(['GET /init/templates', 'GET /init/templates/tpl_1']);
    expect(live[0]).toEqual({ id: 'tpl_1', name: 'lobby', description: 'Lobby', manifest: MANIFEST });
    expect(templates.compare(declared('Lobby'), live, ctx)).toEqual({ changes: [], notCompared: [] });
  });

  it('a manifest the service never shows is listed as not compared, and no write is made for it', async () => {
    const { api } = client([{ id: 'tpl_1', name: 'lobby' }], (id) => ({ id, name: 'lobby', description: 'Lobby' }));
    const live = await templates.read(api, '', declared('Lobby'));
    expect(live[0]!.manifest).toBeUndefined();
    expect(templates.compare(declared('Lobby'), live, ctx)).toEqual({ changes: [], notCompared: ['templates[lobby].manifest'] });
  });

  it('a manifest shown as data is compared as data; a different one is one PATCH with the file\'s text', () => {
    const asData: LiveTemplate[] = [{ id: 'tpl_1', name: 'lobby', description: 'Lobby', manifest: { version: 1, env: { MODE: 'lobby' } } }];
    expect(templates.compare(declared('Lobby'), asData, ctx).changes).toEqual([]);
    const other: LiveTemplate[] = [{ ...asData[0]!, manifest: { version: 1, env: { MODE: 'hub' } } }];
    const [change] = templates.compare(declared('Lobby'), other, ctx).changes;
    expect(change).toMatchObject({ action: 'update', spec: { method: 'PATCH', path: '/init/templates/tpl_1', body: { manifest: MANIFEST } } });
  });

  it('the template\'s own record without a description has none: a declared one is an update', async () => {
    const { api } = client([{ id: 'tpl_1', name: 'lobby', manifest: MANIFEST }], (id) => ({ id, name: 'lobby', manifest: MANIFEST }));
    const live = await templates.read(api, '', declared('Lobby'));
    expect(templates.compare(declared('Lobby'), live, ctx).changes).toMatchObject([{ action: 'update', spec: { body: { description: 'Lobby' } } }]);
  });
});
