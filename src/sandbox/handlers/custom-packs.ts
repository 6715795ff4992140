import type { SandboxContext } from '../context.js';
import { isoSeconds } from '../clock.js';
import { ApiFailure, fail, ok } from '../envelope.js';
import { pageOf, parsePaging } from '../paging.js';
import { serverSlot } from '../node/slots.js';
import { treeOf } from '../node/server-files.js';
import { findProject } from './catalogue.js';
import { optString, reqString } from './fields.js';
import type { HandlerMap, HandlerRequest } from './types.js';
import { asBoolean, bodyObject, serverOf } from './util.js';

// 03-endpoints-part-b.md "Custom packs". Packs belong to the panel user who made them (others get
// 403); items are keyed by source and project id; install syncs the pack into /mods and answers
// `diff` when the same pack with the same loader and game version was installed before, else
// `full` (/mods wiped first).

export const PACK_LIMIT = 10;
export const ITEM_LIMIT = 100;
const LOADERS = ['fabric', 'forge', 'neoforge', 'quilt'];
const PACK_SOURCES = ['provider_a', 'provider_b'];

interface Item { source: string; project_id: string; version: string }
interface Pack {
  id: string; owner: number; name: string; loader: string; version: string; icon?: string;
  items: Map<string, Item>; created_at: string;
  /** What the last install put on the server (for diff and mode). */
  installed?: { loader: string; version: string; items: Map<string, Item> };
}

const packsOf = (ctx: SandboxContext, serverId: string) => serverSlot(ctx, serverId, 'custom-packs', () => new Map<string, Pack>());
const itemKey = (source: string, projectId: string) => `${source}/${projectId}`;
const caller = (req: HandlerRequest, ctx: SandboxContext) => req.principal?.userId ?? ctx.state.account.id;

function diffOf(p: Pack): { added: Item[]; removed: Item[]; changed: Item[] } {
  const before = p.installed?.items ?? new Map<string, Item>();
  return {
    added: [...p.items.values()].filter((i) => !before.has(itemKey(i.source, i.project_id))),
    removed: [...before.values()].filter((i) => !p.items.has(itemKey(i.source, i.project_id))),
    changed: [...p.items.values()].filter((i) => { const b = before.get(itemKey(i.source, i.project_id)); return b !== undefined && b.version !== i.version; }),
  };
}

function view(p: Pack, full = false): Record<string, unknown> {
  const d = diffOf(p);
  return {
    object: 'custom_pack', id: p.id, name: p.name, loader: p.loader, version: p.version, ...(p.icon ? { icon: p.icon } : {}),
    item_count: p.items.size, installed: p.installed !== undefined, pending_changes: d.added.length + d.removed.length + d.changed.length,
    created_at: p.created_at, ...(full ? { items: [...p.items.values()].map((i) => ({ object: 'custom_pack_item', ...i })) } : {}),
  };
}

function packOf(req: HandlerRequest, ctx: SandboxContext): Pack {
  const p = packsOf(ctx, serverOf(req, ctx).id).get(req.params.pack_id ?? '');
  if (!p) throw fail.notFound('Pack not found');
  if (p.owner !== caller(req, ctx)) throw new ApiFailure(403, 'forbidden', 'The pack belongs to someone else');
  return p;
}

function meta(body: Record<string, unknown>, partial: boolean): Partial<Pick<Pack, 'name' | 'loader' | 'version' | 'icon'>> {
  const name = partial ? optString(body, 'name') : reqString(body, 'name');
  const loader = partial ? optString(body, 'loader') : reqString(body, 'loader');
  const version = partial ? optString(body, 'version') : reqString(body, 'version');
  const icon = optString(body, 'icon');
  if (name !== undefined && (!name.trim() || name.length > 64)) throw fail.badRequest('name must be 1 to 64 characters');
  if (loader !== undefined && !LOADERS.includes(loader)) throw fail.badRequest(`loader must be one of ${LOADERS.join(', ')}`);
  if (version !== undefined && !/^\d+\.\d+(\.\d+)?$/.test(version)) throw fail.badRequest('version must be a game version like 1.21.4');
  if (icon !== undefined && !/^https:\/\//.test(icon)) throw fail.badRequest('icon must be an https URL');
  return { ...(name !== undefined ? { name } : {}), ...(loader ? { loader } : {}), ...(version ? { version } : {}), ...(icon ? { icon } : {}) };
}

function newPack(req: HandlerRequest, ctx: SandboxContext, m: Pick<Pack, 'name' | 'loader' | 'version'>): Pack {
  const packs = packsOf(ctx, serverOf(req, ctx).id);
  if (packs.size >= PACK_LIMIT) throw new ApiFailure(409, 'limit_reached', `At most ${PACK_LIMIT} packs`);
  const p: Pack = { id: `pack_${ctx.rng.hex(8)}`, owner: caller(req, ctx), ...m, items: new Map(), created_at: isoSeconds() };
  packs.set(p.id, p);
  return p;
}

function sourceOf(v: string): string {
  if (!PACK_SOURCES.includes(v)) throw fail.badRequest('source must be provider_a or provider_b');
  return v;
}

export const handlers: HandlerMap = {
  'GET /servers/{server_id}/addons/custom-packs': (req, ctx) => {
    const mine = [...packsOf(ctx, serverOf(req, ctx).id).values()].filter((p) => p.owner === caller(req, ctx));
    return { status: 200, body: pageOf(mine.map((p) => view(p)), parsePaging(req.query)) };
  },

  'POST /servers/{server_id}/addons/custom-packs': (req, ctx) => ok(view(newPack(req, ctx, meta(bodyObject(req), false) as Pick<Pack, 'name' | 'loader' | 'version'>), true), 201),

  'POST /servers/{server_id}/addons/custom-packs/fork': (req, ctx) => {
    const body = bodyObject(req);
    const source = sourceOf(reqString(body, 'source'));
    const project = findProject(reqString(body, 'project_id'), source);
    if (!project || project.type !== 'modpack') throw fail.notFound('Modpack not found');
    const p = newPack(req, ctx, { name: optString(body, 'name') ?? project.title, loader: project.loaders[0]!, version: '1.21.1' });
    for (const id of project.contains ?? []) {
      const item = findProject(id);
      if (item) p.items.set(itemKey(item.source, item.id), { source: item.source, project_id: item.id, version: item.versions.at(-1)! });
    }
    return ok(view(p, true), 201);
  },

  'GET /servers/{server_id}/addons/custom-packs/{pack_id}': (req, ctx) => ok(view(packOf(req, ctx), true)),

  'PATCH /servers/{server_id}/addons/custom-packs/{pack_id}': (req, ctx) => {
    const p = packOf(req, ctx);
    Object.assign(p, meta(bodyObject(req), true));
    return ok(view(p, true));
  },

  'DELETE /servers/{server_id}/addons/custom-packs/{pack_id}': (req, ctx) => {
    const p = packOf(req, ctx);
    packsOf(ctx, serverOf(req, ctx).id).delete(p.id);
    return ok({ object: 'custom_pack', id: p.id, deleted: true });
  },

  'GET /servers/{server_id}/addons/custom-packs/{pack_id}/diff': (req, ctx) => {
    const d = diffOf(packOf(req, ctx));
    return ok({ object: 'custom_pack_diff', ...d });
  },

  'POST /servers/{server_id}/addons/custom-packs/{pack_id}/install': (req, ctx) => {
    const p = packOf(req, ctx);
    const tree = treeOf(ctx, serverOf(req, ctx).id);
    const d = diffOf(p);
    const mode = p.installed && p.installed.loader === p.loader && p.installed.version === p.version ? 'diff' : 'full';
    if (mode === 'full') for (const [path] of tree.children('/mods')) tree.remove(path);
    tree.mkdirp('/mods');
    for (const i of mode === 'full' ? p.items.values() : [...d.added, ...d.changed]) tree.write(`/mods/${i.project_id}-${i.version}.jar`, `sandbox mod ${i.project_id}`);
    if (mode === 'diff') for (const i of d.removed) for (const [path] of tree.children('/mods')) if (path.startsWith(`/mods/${i.project_id}-`)) tree.remove(path);
    p.installed = { loader: p.loader, version: p.version, items: new Map([...p.items].map(([k, v]) => [k, { ...v }])) };
    return ok({ object: 'custom_pack_install', mode, added: mode === 'full' ? p.items.size : d.added.length, removed: d.removed.length, changed: d.changed.length });
  },

  'POST /servers/{server_id}/addons/custom-packs/{pack_id}/items': (req, ctx) => {
    const p = packOf(req, ctx);
    const body = bodyObject(req);
    const source = sourceOf(reqString(body, 'source'));
    const project = findProject(reqString(body, 'project_id'), source);
    if (!project || project.type !== 'mod') throw fail.notFound('Mod not found');
    const force = body.force === undefined ? false : asBoolean(body.force);
    if (force === undefined) throw fail.badRequest('force must be a boolean');
    if (!project.loaders.includes(p.loader) && !force) {
      return ok({ object: 'custom_pack_item_check', requires_confirmation: true, reason: `${project.title} does not support ${p.loader}` });
    }
    const adding = [project, ...project.dependencies.map((id) => findProject(id)).filter((x) => x !== undefined)];
    const fresh = adding.filter((x) => !p.items.has(itemKey(x.source, x.id)));
    if (p.items.size + fresh.length > ITEM_LIMIT) throw new ApiFailure(409, 'limit_reached', `At most ${ITEM_LIMIT} items per pack`);
    for (const x of fresh) p.items.set(itemKey(x.source, x.id), { source: x.source, project_id: x.id, version: x.versions.at(-1)! });
    return ok({ object: 'custom_pack_items', added: fresh.map((x) => ({ source: x.source, project_id: x.id })), pack: view(p, true) }, 201);
  },

  'DELETE /servers/{server_id}/addons/custom-packs/{pack_id}/items/{source}/{project_id}': (req, ctx) => {
    const p = packOf(req, ctx);
    const key = itemKey(sourceOf(req.params.source ?? ''), req.params.project_id ?? '');
    if (!p.items.delete(key)) throw fail.notFound('Item not in the pack');
    return ok(view(p, true));
  },

  'PATCH /servers/{server_id}/addons/custom-packs/{pack_id}/items/{source}/{project_id}': (req, ctx) => {
    const p = packOf(req, ctx);
    const item = p.items.get(itemKey(sourceOf(req.params.source ?? ''), req.params.project_id ?? ''));
    if (!item) throw fail.notFound('Item not in the pack');
    const version = reqString(bodyObject(req), 'version_id');
    if (!/^[A-Za-z0-9._+-]{1,64}$/.test(version)) throw fail.badRequest('Invalid version id');
    item.version = version;
    return ok({ object: 'custom_pack_item', ...item });
  },
};
