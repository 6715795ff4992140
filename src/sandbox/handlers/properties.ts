import { isMap, isScalar, isSeq, parseDocument, type Document } from 'yaml';
import type { SandboxContext } from '../context.js';
import { ApiFailure, fail, ok } from '../envelope.js';
import type { FileTree } from '../node/file-tree.js';
import { treeOf } from '../node/server-files.js';
import type { HandlerMap, HandlerRequest } from './types.js';
import { bodyObject, serverOf } from './util.js';

// 02-endpoints-part-a.md "Properties", on the server's files: `server.properties` is merged line
// by line (only sent keys change; comments, blank lines and order are kept; new keys are
// appended) and YAML configs through the yaml Document API (comments kept). Free-plan servers
// get resource-related keys clamped.

const PROPERTIES = '/server.properties';

/** The fixed allowlist of config types and their files. */
export const CONFIGS: Readonly<Record<string, string>> = {
  'server.properties': PROPERTIES,
  bukkit: '/bukkit.yml',
  spigot: '/spigot.yml',
  paper: '/config/paper-global.yml',
};

/** Resource-related keys and their free-plan ceilings (the values are ours). */
export const FREE_PLAN_CAPS: Readonly<Record<string, number>> = { 'max-players': 20, 'view-distance': 10, 'simulation-distance': 10 };

const LINE = /^\s*([^#!=:\s][^=:]*?)\s*[=:]\s?(.*)$/;

export function parseProperties(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = LINE.exec(line);
    if (m) out.set(m[1]!, m[2]!.replace(/\r$/, ''));
  }
  return out;
}

export function mergeProperties(text: string, changes: Map<string, string>): string {
  const pending = new Map(changes);
  const lines = text.replace(/\n$/, '').split('\n').map((line) => {
    const m = LINE.exec(line);
    if (!m || !pending.has(m[1]!)) return line;
    const value = pending.get(m[1]!)!;
    pending.delete(m[1]!);
    return `${m[1]}=${value}`;
  });
  for (const [k, v] of pending) lines.push(`${k}=${v}`);
  return `${lines.join('\n')}\n`;
}

/** 02-endpoints-part-a.md "Properties": every operation answers 502 when the node fails. */
function nodeOf(req: HandlerRequest, ctx: SandboxContext): FileTree {
  const s = serverOf(req, ctx);
  if (s.nodeUnreachable) throw new ApiFailure(502, 'upstream_error', 'The server\'s node did not answer');
  return treeOf(ctx, s.id);
}

function propertiesFile(tree: FileTree): string {
  const e = tree.get(PROPERTIES);
  if (!e || e.type !== 'file') throw fail.notFound('server.properties does not exist on this server');
  return e.data.toString('utf8');
}

const propertyList = (text: string) =>
  [...parseProperties(text)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, value]) => ({ object: 'server_property', key, value }));

function scalarText(v: unknown, key: string): string {
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw fail.badRequest(`${key} must be a string, number or boolean`);
}

function flatten(node: unknown, prefix: string, out: Record<string, unknown>): void {
  if (isMap(node)) {
    for (const pair of node.items) flatten(pair.value, prefix ? `${prefix}.${String(isScalar(pair.key) ? pair.key.value : pair.key)}` : String(isScalar(pair.key) ? pair.key.value : pair.key), out);
  } else if (isSeq(node)) out[prefix] = node.toJSON();
  else out[prefix] = isScalar(node) ? node.value : null;
}

function configOf(req: HandlerRequest, ctx: SandboxContext): { type: string; path: string; tree: FileTree } {
  const type = req.params.config_type ?? '';
  const path = CONFIGS[type];
  if (!path) throw fail.notFound(`Unknown config type ${type}; one of ${Object.keys(CONFIGS).join(', ')}`);
  return { type, path, tree: nodeOf(req, ctx) };
}

function yamlDoc(tree: FileTree, path: string): Document {
  const e = tree.get(path);
  if (!e || e.type !== 'file') throw fail.notFound(`${path} does not exist on this server`);
  const doc = parseDocument(e.data.toString('utf8'));
  if (doc.errors.length) throw fail.badRequest(`${path} is not valid YAML`);
  return doc;
}

export const handlers: HandlerMap = {
  'GET /servers/{server_id}/properties': (req, ctx) => ok(propertyList(propertiesFile(nodeOf(req, ctx)))),

  'PUT /servers/{server_id}/properties': (req, ctx) => {
    const s = serverOf(req, ctx);
    const body = bodyObject(req);
    if (!Object.keys(body).length) throw fail.badRequest('Send at least one key');
    const changes = new Map<string, string>();
    for (const [k, v] of Object.entries(body)) {
      if (!/^[A-Za-z0-9._-]+$/.test(k)) throw fail.badRequest(`Invalid property key ${k}`);
      let value = scalarText(v, k);
      const cap = FREE_PLAN_CAPS[k];
      if (s.plan === 'free' && cap !== undefined && Number(value) > cap) value = String(cap);
      changes.set(k, value);
    }
    const tree = nodeOf(req, ctx);
    const text = mergeProperties(propertiesFile(tree), changes);
    tree.write(PROPERTIES, text);
    return ok(propertyList(text));
  },

  'GET /servers/{server_id}/properties/configs': (req, ctx) => {
    const tree = nodeOf(req, ctx);
    return ok(Object.entries(CONFIGS)
      .filter(([type, path]) => type !== 'server.properties' && tree.get(path)?.type === 'file')
      .map(([type, path]) => ({ object: 'server_config', type, path })));
  },

  'GET /servers/{server_id}/properties/configs/{config_type}': (req, ctx) => {
    const { type, path, tree } = configOf(req, ctx);
    if (type === 'server.properties') {
      const raw = propertiesFile(tree);
      return ok({ object: 'server_config', type, path, values: Object.fromEntries(parseProperties(raw)), raw });
    }
    const doc = yamlDoc(tree, path);
    const values: Record<string, unknown> = {};
    flatten(doc.contents, '', values);
    return ok({ object: 'server_config', type, path, values, raw: tree.get(path)!.data.toString('utf8') });
  },

  'PUT /servers/{server_id}/properties/configs/{config_type}': (req, ctx) => {
    const { type, path, tree } = configOf(req, ctx);
    if (type === 'server.properties') throw fail.badRequest('Use PUT /servers/{server_id}/properties for server.properties');
    const body = bodyObject(req);
    const entries = Object.entries(body);
    if (!entries.length || entries.some(([, v]) => v === undefined || v === null || v === '')) throw fail.badRequest('Send non-empty values');
    const doc = yamlDoc(tree, path);
    for (const [k, v] of entries) doc.setIn(k.split('.'), v);
    const raw = doc.toString();
    tree.write(path, raw);
    const values: Record<string, unknown> = {};
    flatten(parseDocument(raw).contents, '', values);
    return ok({ object: 'server_config', type, path, values, raw });
  },
};
