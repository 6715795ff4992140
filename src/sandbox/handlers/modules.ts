import type { SandboxContext } from '../context.js';
import { isoSeconds } from '../clock.js';
import { fail, ok } from '../envelope.js';
import { pageOf, parsePaging } from '../paging.js';
import { queryValue } from '../request.js';
import type { FileTree } from '../node/file-tree.js';
import { serverSlot } from '../node/slots.js';
import { treeOf } from '../node/server-files.js';
import { optString, stringList } from './fields.js';
import type { HandlerMap, HandlerRequest } from './types.js';
import { bodyObject, serverOf } from './util.js';

// 03-endpoints-part-b.md "Modules (runtime dependencies)". Dependencies come from the manifests in
// the server root (package.json, requirements.txt); install, update and delete are background
// tasks (job objects, `job_id` = task id) that edit the manifest when they complete; a task can be
// cancelled while queued or running (it then ends `failed` with message Cancelled). Parameters of
// the unnamed operations are ours: `name` (or `names`) in bodies, `query` / `name` for search and
// versions.

const MANIFESTS: Readonly<Record<string, string>> = {
  'package.json': 'npm', 'requirements.txt': 'pip', 'Cargo.toml': 'cargo', 'composer.json': 'composer', 'go.mod': 'go',
};
const REGISTRY: Readonly<Record<string, readonly string[]>> = {
  express: ['4.18.2', '4.19.2', '5.0.1'], 'left-pad': ['1.2.0', '1.3.0'], lodash: ['4.17.20', '4.17.21'],
  ws: ['8.17.1', '8.18.0'], requests: ['2.31.0', '2.32.3'], flask: ['3.0.2', '3.0.3'],
};

interface Task {
  object: 'module_task'; job_id: string; id: string; action: string; names: string[];
  state: 'queued' | 'running' | 'completed' | 'failed'; progress: number; message: string; created_at: string; logs: string[];
}

const tasksOf = (ctx: SandboxContext, id: string) => serverSlot(ctx, id, 'module-tasks', () => [] as Task[]);

function deps(tree: FileTree): Array<{ name: string; declared: string; ecosystem: string }> {
  const pkg = tree.get('/package.json');
  if (pkg?.type === 'file') {
    try {
      const parsed = JSON.parse(pkg.data.toString('utf8')) as { dependencies?: Record<string, string> };
      return Object.entries(parsed.dependencies ?? {}).map(([name, declared]) => ({ name, declared, ecosystem: 'npm' }));
    } catch {
      return [];
    }
  }
  const req = tree.get('/requirements.txt');
  if (req?.type === 'file') {
    return req.data.toString('utf8').split('\n').filter((l) => l.trim() && !l.startsWith('#'))
      .map((l) => { const [name, declared] = l.split('=='); return { name: name!.trim(), declared: declared?.trim() ?? '*', ecosystem: 'pip' }; });
  }
  return [];
}

/** Applies a finished task to package.json (the npm manifest; pip manifests are left as they are). */
function apply(tree: FileTree, action: string, names: string[]): void {
  const pkg = tree.get('/package.json');
  if (pkg?.type !== 'file') return;
  const parsed = JSON.parse(pkg.data.toString('utf8')) as { dependencies?: Record<string, string> };
  const d = (parsed.dependencies ??= {});
  for (const n of names) {
    if (action === 'delete') delete d[n];
    else d[n] = `^${REGISTRY[n]?.at(-1) ?? '1.0.0'}`;
  }
  tree.write('/package.json', `${JSON.stringify(parsed, null, 2)}\n`);
}

function startTask(req: HandlerRequest, ctx: SandboxContext, action: string) {
  const s = serverOf(req, ctx);
  const tree = treeOf(ctx, s.id);
  const body = bodyObject(req);
  const names = stringList(body, 'names') ?? (optString(body, 'name') !== undefined ? [optString(body, 'name')!] : []);
  if (!names.length) throw fail.badRequest('Give the dependency name (name or names)');
  if (!Object.keys(MANIFESTS).some((m) => tree.get(`/${m}`))) throw fail.conflict('No supported manifest in the server root');
  if (action !== 'install') {
    const known = new Set(deps(tree).map((x) => x.name));
    const missing = names.filter((n) => !known.has(n));
    if (missing.length) throw fail.badRequest(`Not declared: ${missing.join(', ')}`);
  }
  const id = `task_${ctx.rng.hex(10)}`;
  const task: Task = { object: 'module_task', job_id: id, id, action, names, state: 'queued', progress: 0, message: 'Queued', created_at: isoSeconds(), logs: [`${action} ${names.join(' ')}`] };
  tasksOf(ctx, s.id).unshift(task);
  ctx.clock.after(800, () => {
    if (task.state !== 'queued') return;
    Object.assign(task, { state: 'running', progress: 50, message: 'Running' });
    task.logs.push('resolving versions');
  });
  ctx.clock.after(2000, () => {
    if (task.state !== 'running' || !ctx.state.servers.has(s.id)) return;
    apply(tree, action, names);
    Object.assign(task, { state: 'completed', progress: 100, message: 'Completed' });
    task.logs.push('done');
  });
  return ok(view(task), 202);
}

const view = ({ logs: _logs, ...t }: Task) => ({ ...t, names: [...t.names] });

function taskOf(req: HandlerRequest, ctx: SandboxContext): Task {
  const t = tasksOf(ctx, serverOf(req, ctx).id).find((x) => x.id === req.params.task_id);
  if (!t) throw fail.notFound('Task not found');
  return t;
}

export const handlers: HandlerMap = {
  'GET /servers/{server_id}/modules': (req, ctx) => {
    const list = deps(treeOf(ctx, serverOf(req, ctx).id)).map((d) => ({
      object: 'server_module', ...d, installed: d.declared.replace(/^[\^~]/, ''), latest: REGISTRY[d.name]?.at(-1) ?? d.declared.replace(/^[\^~]/, ''),
      vulnerabilities: { total: 0 },
    }));
    return { status: 200, body: pageOf(list, parsePaging(req.query)) };
  },

  'GET /servers/{server_id}/modules/capabilities': (req, ctx) => {
    const tree = treeOf(ctx, serverOf(req, ctx).id);
    const found = Object.entries(MANIFESTS).filter(([m]) => tree.get(`/${m}`)?.type === 'file');
    return ok({ object: 'module_capabilities', manifests: found.map(([file, ecosystem]) => ({ file, ecosystem })), listing: found.length > 0, mutations: found.length > 0 ? ['install', 'update', 'delete'] : [] });
  },

  'POST /servers/{server_id}/modules/install': (req, ctx) => startTask(req, ctx, 'install'),
  'POST /servers/{server_id}/modules/update': (req, ctx) => startTask(req, ctx, 'update'),
  'POST /servers/{server_id}/modules/delete': (req, ctx) => startTask(req, ctx, 'delete'),

  'GET /servers/{server_id}/modules/search': (req) => {
    const q = (queryValue(req.query, 'query') ?? queryValue(req.query, 'q') ?? '').toLowerCase();
    return ok(Object.entries(REGISTRY).filter(([n]) => n.includes(q)).map(([name, v]) => ({ object: 'module_package', name, latest: v.at(-1) })));
  },

  'GET /servers/{server_id}/modules/versions': (req) => {
    const name = queryValue(req.query, 'name') ?? queryValue(req.query, 'package');
    if (!name) throw fail.badRequest('Query parameter name is required');
    const versions = REGISTRY[name];
    if (!versions) throw fail.notFound('No such package');
    return ok(versions.map((version) => ({ object: 'module_version', name, version })));
  },

  'GET /servers/{server_id}/modules/tasks': (req, ctx) => ok(tasksOf(ctx, serverOf(req, ctx).id).map(view)),
  'GET /servers/{server_id}/modules/tasks/{task_id}': (req, ctx) => ok(view(taskOf(req, ctx))),

  'DELETE /servers/{server_id}/modules/tasks/{task_id}': (req, ctx) => {
    const t = taskOf(req, ctx);
    if (t.state === 'completed' || t.state === 'failed') throw fail.conflict(`The task already ended (${t.state})`);
    Object.assign(t, { state: 'failed', message: 'Cancelled' });
    t.logs.push('cancelled');
    return ok(view(t));
  },

  'GET /servers/{server_id}/modules/tasks/{task_id}/logs': (req, ctx) => {
    const t = taskOf(req, ctx);
    return ok({ object: 'module_task_logs', id: t.id, lines: [...t.logs] });
  },
};
