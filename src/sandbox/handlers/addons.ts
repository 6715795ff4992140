import { posix } from 'node:path';
import { isoSeconds } from '../clock.js';
import { fail, ok } from '../envelope.js';
import { queryValue } from '../request.js';
import { treeOf } from '../node/server-files.js';
import { serverSlot } from '../node/slots.js';
import { PROVIDERS, SOFTWARE, findProject } from './catalogue.js';
import { boolQuery, reqString, stringList } from './fields.js';
import type { HandlerMap } from './types.js';
import { bodyObject, serverOf } from './util.js';

// 03-endpoints-part-b.md "Addons", on the server's files: installed addons are the jars in
// /plugins and /mods and the datapacks in /world/datapacks; toggling renames with `.disabled`.
// The modpack install is the generic 202 job (mode clean's file.delete is the registry's rule).

const DIRS = { plugin: '/plugins', mod: '/mods', datapack: '/world/datapacks' } as const;
type AddonType = keyof typeof DIRS;
const CONFIGURABLE: Readonly<Record<string, number>> = { geyser: 19132, floodgate: 0, dynmap: 8123, bluemap: 8100, votifier: 8192 };

function addonType(v: unknown): AddonType {
  if (v !== 'plugin' && v !== 'mod' && v !== 'datapack') throw fail.badRequest('type must be mod, plugin or datapack');
  return v;
}

export const handlers: HandlerMap = {
  'GET /servers/{server_id}/addons': (req, ctx) => {
    const tree = treeOf(ctx, serverOf(req, ctx).id);
    const detailed = boolQuery(req.query, 'detailed', true);
    const out: Record<string, unknown>[] = [];
    for (const [type, dir] of Object.entries(DIRS)) {
      if (tree.get(dir)?.type !== 'directory') continue;
      for (const [p, e] of tree.children(dir)) {
        if (e.type !== 'file') continue;
        const filename = posix.basename(p);
        const enabled = !filename.endsWith('.disabled');
        out.push({
          object: 'server_addon', type, filename, enabled, size: e.data.length,
          ...(detailed ? { matched: false, update_available: false, modified_at: isoSeconds(e.modified) } : {}),
        });
      }
    }
    return ok(out);
  },

  'POST /servers/{server_id}/addons/configure': (req, ctx) => {
    const s = serverOf(req, ctx);
    const slug = reqString(bodyObject(req), 'slug').toLowerCase();
    const port = CONFIGURABLE[slug];
    if (port === undefined) throw fail.badRequest(`Unsupported slug; one of ${Object.keys(CONFIGURABLE).join(', ')}`);
    const path = `/plugins/${slug}/config.yml`;
    treeOf(ctx, s.id).write(path, `# configured by the sandbox\n${port ? `port: ${port}\n` : 'enabled: true\n'}`);
    return ok({ object: 'addon_configuration', slug, ...(port ? { port } : {}), config_path: path });
  },

  'POST /servers/{server_id}/addons/dependencies': (req) => {
    const ids = stringList(bodyObject(req), 'ids') ?? [];
    if (!ids.length || ids.length > 50) throw fail.badRequest('ids must hold 1 to 50 project ids');
    if (ids.some((id) => !/^[A-Za-z0-9_-]{1,64}$/.test(id))) throw fail.badRequest('Invalid project id');
    return ok(ids.map((id) => findProject(id)).filter((p) => p !== undefined).map((p) => ({ object: 'marketplace_project', ...p })));
  },

  'POST /servers/{server_id}/addons/install': (req, ctx) => {
    const tree = treeOf(ctx, serverOf(req, ctx).id);
    const body = bodyObject(req);
    const source = reqString(body, 'source');
    if (!(PROVIDERS as readonly string[]).includes(source)) throw fail.badRequest('Invalid source');
    const type = addonType(body.type);
    const root = findProject(reqString(body, 'project_id'), source);
    if (!root) throw fail.notFound('Project not found');
    const installed: string[] = [];
    const skipped: string[] = [];
    const pull = (id: string) => {
      const p = findProject(id);
      if (!p) return;
      for (const dep of p.dependencies) pull(dep);
      const path = `${DIRS[type]}/${p.slug}-${p.versions.at(-1)}.${type === 'datapack' ? 'zip' : 'jar'}`;
      if (tree.get(path)) skipped.push(path);
      else {
        tree.write(path, Buffer.from(`sandbox ${p.type} ${p.slug}`));
        installed.push(path);
      }
    };
    pull(root.id);
    return ok({ object: 'addon_install', project_id: root.id, version: root.versions.at(-1), installed, skipped });
  },

  'POST /servers/{server_id}/addons/set-version': (req, ctx) => {
    const s = serverOf(req, ctx);
    const body = bodyObject(req);
    const software = reqString(body, 'software');
    const version = reqString(body, 'version');
    if (!SOFTWARE[software]?.[version]) throw fail.badRequest('Unknown software or version; see addons software-versions');
    const record = serverSlot(ctx, s.id, 'software', () => ({ software: '', version: '' }));
    Object.assign(record, { software, version });
    return ok({ object: 'server_software', software, version, reinstall: false });
  },

  'POST /servers/{server_id}/addons/toggle': (req, ctx) => {
    const tree = treeOf(ctx, serverOf(req, ctx).id);
    const body = bodyObject(req);
    const filename = reqString(body, 'filename');
    const type = addonType(body.type ?? 'plugin');
    if (filename.includes('/') || !/\.(jar|zip)(\.disabled)?$/.test(filename)) throw fail.badRequest('Invalid filename or extension');
    const from = `${DIRS[type]}/${filename}`;
    if (!tree.get(from)) throw fail.notFound(`No addon ${filename}`);
    const enabled = filename.endsWith('.disabled');
    const to = enabled ? from.slice(0, -'.disabled'.length) : `${from}.disabled`;
    tree.move(from, to);
    return ok({ object: 'server_addon', type, filename: posix.basename(to), enabled, restart_required: true });
  },

  'GET /servers/{server_id}/software/versions': (req) => {
    const software = queryValue(req.query, 'software');
    const version = queryValue(req.query, 'version');
    if (software === undefined) {
      if (version !== undefined) throw fail.badRequest('version needs software');
      return ok(Object.entries(SOFTWARE).map(([key, versions]) => ({ object: 'software', software: key, versions: Object.keys(versions) })));
    }
    const versions = SOFTWARE[software];
    if (!versions) throw fail.badRequest('Invalid software');
    if (version === undefined) return ok(Object.keys(versions).map((v) => ({ object: 'software_version', software, version: v })));
    const builds = versions[version];
    if (!builds) throw fail.badRequest('Unknown version');
    return ok(builds.map((b) => ({ object: 'software_build', software, version, build: b })));
  },
};
