import type { Field, Operation } from '../../operations/types.js';
import type { SandboxContext } from '../context.js';
import { fail, ok, type FieldError, type HandlerResult } from '../envelope.js';
import { pageOf, parsePage, parsePaging } from '../paging.js';
import { queryValue } from '../request.js';
import { splitPath } from '../router.js';
import type { HandlerRequest } from './types.js';
import { bodyObject } from './util.js';

// Generic in-memory behaviour for every registry operation without a specific handler yet.
// Structure is read from the registry's templates:
// - a template is a collection when some template extends it by one parameter segment
//   (`/servers/{server_id}/hooks` ← `/servers/{server_id}/hooks/{hook_id}`) or its GET is paged;
// - otherwise a template ending in a parameter is an item, anything else a singleton/action.
// GET collection → stored items (paged when the registry says so); POST collection → 201 with the
// stored object; POST action → 200 echoing the body, or 202 with a job when the registry says
// `wait`; GET/PUT/PATCH/DELETE item or singleton → read/replace/merge/remove. Items of a
// collection that has a POST must exist (404), so are their ancestors; collections that cannot be
// created into (players, scheduled backups) synthesize items instead.
// Specific handlers (handlers/<family>.ts) always win over this.

const isParam = (seg: string) => /^[{<][^}>]+[}>]$/.test(seg);
const paramOf = (seg: string) => seg.slice(1, -1);

function singular(word: string): string {
  if (/(ss|us|is)$/.test(word)) return word;
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (/(ches|shes|xes|sses)$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('s')) return word.slice(0, -1);
  return word;
}

/** `object` kind from a template: `/servers/{id}/allocations` → `server_allocation`. */
export function kindOf(template: string): string {
  const literals = splitPath(template).filter((s) => !isParam(s));
  const last = literals[literals.length - 1];
  if (!last) return 'resource';
  let kind = singular(last);
  const first = literals[0];
  if (first === 'servers' && literals.length > 1) kind = `server_${kind}`;
  else if (first && literals.length > 1 && first !== 'account' && first !== 'me') kind = `${singular(first)}_${kind}`;
  return kind.replace(/[^a-zA-Z0-9]+/g, '_').toLowerCase();
}

class Structure {
  constructor(private readonly ctx: SandboxContext) {}

  /** Parameter name of the item template under `template`, if any. */
  itemParam(template: string): string | undefined {
    for (const t of this.ctx.router.templates) {
      if (!t.startsWith(`${template}/`)) continue;
      const rest = t.slice(template.length + 1);
      if (!rest.includes('/') && isParam(rest)) return paramOf(rest);
    }
    return undefined;
  }

  isCollection(template: string): boolean {
    if (this.itemParam(template) !== undefined) return true;
    const paging = this.ctx.router.get('GET', template)?.op?.paging;
    return paging === 'offset' || paging === 'page';
  }

  creatable(template: string): boolean {
    return this.isCollection(template) && this.ctx.router.get('POST', template) !== undefined;
  }
}

function parentOf(p: string): string {
  return p.slice(0, p.lastIndexOf('/'));
}

function lastSeg(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}

function checkFieldType(f: Field, v: unknown): string | undefined {
  switch (f.type) {
    case 'string': return typeof v === 'string' ? undefined : 'must be a string';
    case 'integer': return Number.isInteger(v) ? undefined : 'must be an integer';
    case 'number': return typeof v === 'number' && Number.isFinite(v) ? undefined : 'must be a number';
    case 'boolean': return typeof v === 'boolean' ? undefined : 'must be a boolean';
    case 'string[]': return Array.isArray(v) && v.every((x) => typeof x === 'string') ? undefined : 'must be an array of strings';
    default: return undefined;
  }
}

/** Registry-declared body fields: required (not for PATCH), JSON type, closed choices → 422. */
function validateBody(op: Operation | undefined, method: string, body: Record<string, unknown>): void {
  const errors: FieldError[] = [];
  for (const f of op?.body ?? []) {
    const v = body[f.name];
    if (v === undefined || v === null) {
      if (f.required && method !== 'PATCH') errors.push({ field: f.name, message: `${f.name} is required` });
      continue;
    }
    const typeError = checkFieldType(f, v);
    if (typeError) errors.push({ field: f.name, message: `${f.name} ${typeError}` });
    else if (f.choices && !f.open && !f.choices.includes(String(v))) {
      errors.push({ field: f.name, message: `${f.name} must be one of ${f.choices.join(', ')}` });
    }
  }
  if (errors.length) throw fail.validation(errors);
}

/** Registry-declared query fields: integers and closed choices → 400. */
function validateQuery(op: Operation | undefined, req: HandlerRequest): void {
  for (const f of op?.query ?? []) {
    const v = queryValue(req.query, f.name);
    if (v === undefined) {
      if (f.required) throw fail.badRequest(`Query parameter ${f.name} is required`);
      continue;
    }
    if (f.type === 'integer' && !/^-?\d+$/.test(v)) throw fail.badRequest(`Query parameter ${f.name} must be an integer`);
    if (f.type === 'number' && !Number.isFinite(Number(v))) throw fail.badRequest(`Query parameter ${f.name} must be a number`);
    if (f.type === 'boolean' && v !== 'true' && v !== 'false') throw fail.badRequest(`Query parameter ${f.name} must be true or false`);
    if (f.choices && !f.open && f.type !== 'string[]' && !f.choices.includes(v)) {
      throw fail.badRequest(`Query parameter ${f.name} must be one of ${f.choices.join(', ')}`);
    }
  }
}

function newId(ctx: SandboxContext, param: string | undefined): string {
  return param && /uuid$/.test(param) ? ctx.rng.uuid() : ctx.rng.hex(12);
}

function startJob(req: HandlerRequest, ctx: SandboxContext, kind: string, body: Record<string, unknown>): HandlerResult {
  const wait = req.op!.wait!;
  if (wait.kind === 'server-status') {
    const s = ctx.state.servers.get(req.params.server_id ?? '');
    const label = /restore/.test(req.template) ? 'restoring' : /import/.test(req.template) ? 'importing' : 'processing';
    if (s) ctx.lifecycle.runLifecycle(s, label);
    return ok({ object: kind, ...(s ? { server_id: s.id, lifecycle_status: label } : {}) }, 202);
  }
  const serverId = req.params.server_id ?? '';
  if (wait.kind === 'pull') {
    // GET /servers/{id}/files/pull/status lists active downloads; this one leaves the list when done.
    const statusPath = `/servers/${serverId}/files/pull/status`;
    const status = ctx.state.jobs.get(statusPath) ?? { object: 'server_file_pull_status', downloads: [] };
    ctx.state.jobs.set(statusPath, status);
    const downloads = status.downloads as Array<Record<string, unknown>>;
    const download: Record<string, unknown> = { object: 'server_file_pull', id: ctx.rng.hex(12), url: body.url, progress: 0 };
    downloads.push(download);
    ctx.clock.after(1000, () => { download.progress = 0.5; });
    ctx.clock.after(2500, () => { downloads.splice(downloads.indexOf(download), 1); });
    return ok({ ...download }, 202);
  }
  if (wait.kind === 'transfer') {
    // GET /servers/{id}/settings/transfer/status: in_progress, then completed.
    const statusPath = `/servers/${serverId}/settings/transfer/status`;
    if (ctx.state.jobs.get(statusPath)?.state === 'in_progress') throw fail.conflict('A transfer is already in progress');
    const transfer: Record<string, unknown> = { object: 'server_transfer', state: 'in_progress', progress: 0, message: 'Transferring' };
    ctx.state.jobs.set(statusPath, transfer);
    ctx.clock.after(3000, () => Object.assign(transfer, { state: 'completed', progress: 100, message: 'Transfer completed' }));
    return ok({ ...transfer }, 202);
  }
  const jobId = `job_${ctx.rng.hex(12)}`;
  const job: Record<string, unknown> = {
    object: kind.endsWith('_job') ? kind : `${kind}_job`,
    job_id: jobId,
    state: 'queued',
    progress: 0,
    message: 'Queued',
  };
  const poll = wait.kind === 'init' ? '/servers/{server_id}/init' : wait.poll;
  const values: Record<string, string> = { ...req.params, job_id: jobId };
  const pollPath = poll.replace(/\{([^}]+)\}/g, (m: string, name: string) => values[name] ?? m);
  if (!pollPath.includes('{')) {
    ctx.state.jobs.set(pollPath, job);
    ctx.clock.after(1000, () => Object.assign(job, { state: 'running', progress: 50, message: 'Running' }));
    ctx.clock.after(2500, () => Object.assign(job, { state: 'completed', progress: 100, message: 'Completed' }));
  }
  return ok({ ...job }, 202);
}

export function genericHandler(req: HandlerRequest, ctx: SandboxContext): HandlerResult {
  const st = new Structure(ctx);
  const store = ctx.state.generic;
  const { method, template, path, op } = req;
  validateQuery(op, req);

  // Ancestors that are items of creatable collections must exist ("404 server or hook").
  const tSegs = splitPath(template);
  const pSegs = splitPath(path);
  for (let i = 1; i < tSegs.length - 1; i++) {
    if (!isParam(tSegs[i]!) || paramOf(tSegs[i]!) === 'server_id') continue;
    const collT = `/${tSegs.slice(0, i).join('/')}`;
    if (!st.creatable(collT)) continue;
    const collP = `/${pSegs.slice(0, i).join('/')}`;
    if (!store.collections.get(collP)?.has(pSegs[i]!)) throw fail.notFound(`${kindOf(collT)} not found`);
  }

  const job = ctx.state.jobs.get(path);
  if (method === 'GET' && job) return ok({ ...job });

  const lastT = tSegs[tSegs.length - 1] ?? '';
  const isItem = isParam(lastT) && !st.isCollection(template);
  const parentT = parentOf(template);
  const parentP = parentOf(path);
  const kind = isItem ? kindOf(parentT) : kindOf(template);

  let body: Record<string, unknown> = {};
  if (method !== 'GET') {
    body = req.bodyKind === 'raw'
      ? { content_type: String(req.headers['content-type'] ?? ''), size: req.rawBody.length }
      : bodyObject(req);
    validateBody(op, method, body);
    if (op?.wait) return startJob(req, ctx, kind, body);
  }
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

  if (method === 'GET') {
    if (st.isCollection(template)) {
      const items = [...(store.collections.get(path)?.values() ?? [])];
      if (op?.paging === 'page') {
        parsePage(req.query);
        return ok(items);
      }
      if (op?.paging === 'offset') return { status: 200, body: pageOf(items, parsePaging(req.query)) };
      return ok(items);
    }
    if (isItem) {
      const item = store.collections.get(parentP)?.get(lastSeg(path));
      if (item) return ok(item);
      if (st.creatable(parentT)) throw fail.notFound(`${kind} not found`);
      return ok({ object: kind, id: lastSeg(path) });
    }
    return ok(store.singletons.get(path) ?? { object: kind });
  }

  if (method === 'POST') {
    if (st.isCollection(template)) {
      const param = st.itemParam(template);
      const given = param ? body[param] : undefined;
      const id = typeof given === 'string' || typeof given === 'number' ? String(given) : newId(ctx, param);
      const item = { ...body, object: kind, id, created_at: now };
      store.collection(path).set(id, item);
      return ok(item, 201);
    }
    return ok({ ...body, object: kind });
  }

  if (method === 'PUT' || method === 'PATCH') {
    if (isItem) {
      const coll = store.collection(parentP);
      const existing = coll.get(lastSeg(path));
      if (!existing && st.creatable(parentT)) throw fail.notFound(`${kind} not found`);
      const item: Record<string, unknown> = { ...(method === 'PATCH' ? existing : {}), ...body, object: kind, id: lastSeg(path), updated_at: now };
      if (existing?.created_at) item.created_at = existing.created_at;
      coll.set(lastSeg(path), item);
      return ok(item);
    }
    const existing = store.singletons.get(path);
    const value = { ...(method === 'PATCH' ? existing : {}), ...body, object: kind, updated_at: now };
    store.singletons.set(path, value);
    return ok(value);
  }

  // DELETE
  if (isItem) {
    const coll = store.collections.get(parentP);
    const existing = coll?.get(lastSeg(path));
    if (!existing && st.creatable(parentT)) throw fail.notFound(`${kind} not found`);
    coll?.delete(lastSeg(path));
    store.removeUnder(path);
    return ok({ object: kind, id: lastSeg(path), deleted: true });
  }
  store.singletons.delete(path);
  return ok({ object: kind, deleted: true });
}
