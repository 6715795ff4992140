import type { Command } from 'commander';
import type { Leaf } from '../commands/registry-commands.js';
import { needsServer, pathParams } from '../commands/registry-commands.js';
import type { Field, Operation } from '../operations/types.js';
import { confirmDestructive } from './confirm.js';
import { Exit, GshError, UsageError } from './errors.js';
import { type JsonObject, parseFields, readInputBody, readStdinText } from './fields.js';
import type { ApiClient, QueryValue, RequestSpec } from './http.js';
import { fetchAll, fetchPage } from './paging.js';
import { type Runtime, withRuntime } from './runtime.js';
import { resolveServer, serverFlag } from './server-ref.js';
import { CHECKS } from './checks.js';
import { convertField, flagName, optionKey, readSecretFlag } from './values.js';
import { pollUntil, targetState, waitForJob, waitForServerState } from './wait.js';

// Runs one registry leaf: flags → request → output, with paging and --wait. Every generated
// command goes through here, so the request logic exists once.

type Local = Record<string, unknown>;

export async function runOperation(leaf: Leaf, cmd: Command): Promise<void> {
  await withRuntime(cmd, (rt) => execute(rt, leaf, cmd.opts<Local>(), cmd.processedArgs as string[]));
}

/** Declared query/body fields from the parsed flags, converted and checked. */
function declaredValues(fields: readonly Field[] | undefined, local: Local, skip?: string): JsonObject {
  const out: JsonObject = {};
  for (const f of fields ?? []) {
    if (f.name === skip) continue;
    const raw = local[optionKey(f)];
    const value = f.secret ? readSecretFlag(f, raw) : convertField(f, raw);
    if (value !== undefined) out[f.name] = value;
    else if (f.required) throw new UsageError(`--${flagName(f)} is required`);
  }
  return out;
}

function positiveInt(raw: unknown, flag: string, min: number): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`${flag} takes a whole number of at least ${min} (got "${String(raw)}")`);
  return n;
}

export function fillPath(op: Operation, values: Record<string, string>): string {
  return op.path.replace(/\{(\w+)\}|<(\w+)>/g, (_m, a?: string, b?: string) => {
    const name = (a ?? b) as string;
    const v = values[name];
    if (v === undefined) throw new UsageError(`missing ${name}`);
    return encodeURIComponent(v);
  });
}

async function execute(rt: Runtime, leaf: Leaf, local: Local, args: string[]): Promise<void> {
  const { op, verb } = leaf;
  // Check everything that can be checked before any request is sent.
  const query = declaredValues(op.query, local) as Record<string, QueryValue>;
  let body: JsonObject | undefined;
  if (op.method === 'POST' || op.method === 'PUT' || op.method === 'PATCH') {
    const base = local.input !== undefined ? readInputBody(String(local.input)) : {};
    if (base === null || typeof base !== 'object' || Array.isArray(base)) throw new UsageError('--input must hold a JSON object');
    body = { ...(base as JsonObject), ...declaredValues(op.body, local, op.verbs?.field) };
    let stdinUsed = local.input === '-';
    parseFields({
      raw: local.rawField as string[] | undefined,
      typed: local.field as string[] | undefined,
      readStdin: () => {
        if (stdinUsed) throw new UsageError('standard input can be read only once (by --input - or one @-)');
        stdinUsed = true;
        return readStdinText();
      },
    }, body);
    if (op.verbs && verb) body[op.verbs.field] = verb;
  }
  const limit = positiveInt(local.limit, '--limit', 1);
  const offset = positiveInt(local.offset, '--offset', 0);
  const page = positiveInt(local.page, '--page', 1);
  if (local.all && (limit !== undefined || offset !== undefined)) {
    throw new UsageError('--all fetches every page; leave out --limit and --offset');
  }
  if (page !== undefined) query.page = page;

  const params: Record<string, string> = {};
  const names = (op.params ?? []).map((p) => p.name);
  (op.params ?? []).forEach((p, i) => {
    const value = args[i] as string;
    const problem = p.check ? CHECKS[p.check](value) : undefined;
    if (problem) throw new UsageError(`<${p.name.replace(/_/g, '-')}> ${problem} (got "${value}")`);
    params[p.name] = value;
  });
  const serverRef = needsServer(op) ? serverFlag(local.server as string | undefined, rt.env) : undefined;
  const missing = pathParams(op.path).filter((p) => p !== 'server_id' && !names.includes(p));
  if (missing.length) throw new Error(`registry: ${op.path} does not declare ${missing.join(', ')}`);

  const client = await rt.client({ anonymous: op.auth === 'none' });
  if (serverRef !== undefined) params.server_id = await resolveServer(client, serverRef);
  const destructiveFields = (op.body ?? []).filter((f) => f.destructive && body?.[f.name] === true);
  if (op.destructive || destructiveFields.length) {
    const target = serverRef !== undefined ? ` on server ${serverRef}` : args.length ? ` ${args.join(' ')}` : '';
    const extra = destructiveFields.length ? ` with ${destructiveFields.map((f) => `--${flagName(f)}`).join(' ')}` : '';
    await confirmDestructive(rt, `Run "gsh ${leaf.words.join(' ')}"${extra}${target}`);
  }

  const spec: RequestSpec = {
    method: op.method,
    path: fillPath(op, params),
    query,
    ...(op.form && body ? { form: formValues(body) } : { body }),
    auth: op.auth !== 'none',
    idempotencyKey: rt.globals.idempotencyKey,
    ...(op.raw ? { headers: { accept: '*/*' } } : {}),
  };

  if (op.paging === 'offset') return list(rt, client, spec, { limit, offset, all: local.all === true }, op);

  const res = await client.request<{ data?: unknown }>(spec);
  if (op.raw || typeof res.body !== 'object' || res.body === null) {
    const text = res.status >= 300 && res.status < 400 && res.headers.location ? res.headers.location : res.body;
    if (text !== undefined) rt.io.stdout.write(`${String(text).replace(/\n?$/, '\n')}`);
    return;
  }
  const data = 'data' in res.body ? res.body.data : res.body;
  if (res.replayed) rt.note('note: the service replayed an earlier response for this Idempotency-Key');

  if (op.wait && local.wait) {
    await follow(rt, client, op, verb, params, data);
    return;
  }
  await rt.out.show(data, { columns: Array.isArray(data) ? op.columns : undefined });
  if (op.wait && res.status === 202 && rt.io.stderrTTY) rt.note('Add --wait to follow it to the end.');
}

/** Form-encoded bodies (the OAuth endpoints) carry flat string values. */
function formValues(body: JsonObject): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) {
    if (v !== null && typeof v === 'object') throw new UsageError(`field ${k}: a form body takes plain values`);
    if (v !== null) out[k] = String(v);
  }
  return out;
}

async function list(
  rt: Runtime,
  client: ApiClient,
  spec: RequestSpec,
  opts: { limit?: number; offset?: number; all: boolean },
  op: Operation,
): Promise<void> {
  if (opts.all) {
    const streamed = rt.format === 'jsonl';
    const { items } = await fetchAll(client, spec, { onPage: streamed ? (page) => rt.out.streamItems(page) : undefined });
    if (!streamed) await rt.out.show(items, { columns: op.columns });
    return;
  }
  const page = await fetchPage(client, spec, opts.limit, opts.offset);
  const p = page.pagination;
  if (opts.limit !== undefined && typeof p?.limit === 'number' && p.limit !== opts.limit) {
    rt.note(`note: the server applied limit=${p.limit} (asked for ${opts.limit})`);
  }
  await rt.out.show(page.items, { columns: op.columns });
  if (p?.has_more && rt.io.stderrTTY && rt.format === 'table') {
    rt.note(`Showing ${page.items.length} of ${p.total ?? 'more'}; use --all for every page, or --offset ${(p.offset ?? 0) + page.items.length}.`);
  }
}

async function follow(
  rt: Runtime,
  client: ApiClient,
  op: Operation,
  verb: string | undefined,
  params: Record<string, string>,
  data: unknown,
): Promise<void> {
  const wait = op.wait;
  if (!wait) return;
  const fromBody = (data && typeof data === 'object' ? data : {}) as Record<string, unknown>;
  switch (wait.kind) {
    case 'job': {
      const values: Record<string, string> = { ...params };
      for (const [k, v] of Object.entries(fromBody)) if (typeof v === 'string' || typeof v === 'number') values[k] ??= String(v);
      values.job_id ??= String(fromBody.id ?? '');
      const path = wait.poll.replace(/\{(\w+)\}/g, (_m, name: string) => {
        const v = values[name];
        if (!v) throw new UsageError(`cannot follow: the response has no ${name}`);
        return encodeURIComponent(v);
      });
      await rt.out.show(await waitForJob(rt, client, path, `${op.command} job`));
      return;
    }
    case 'server-status': {
      const serverId = params.server_id as string;
      const powerState = fromBody.power_state;
      if (powerState === 'queued') rt.note('Queued in the node startup queue; waiting for it to start.');
      if (powerState === 'transferring') rt.note('The server is moving back to a runtime node first; waiting.');
      const status = verb
        ? await waitForServerState(rt, client, serverId, targetState(verb), verb === 'restart' ? { mustLeave: 'running' } : {})
        : await waitForServerState(rt, client, serverId, 'settled');
      await rt.out.show(status);
      return;
    }
    case 'pull': {
      const started = fromBody.id ?? fromBody.download_id ?? fromBody.uuid;
      const statusPath = `/servers/${encodeURIComponent(params.server_id as string)}/files/pull/status`;
      await pollUntil(
        rt,
        'download',
        async () => (await client.request<{ data?: unknown }>({ method: 'GET', path: statusPath })).body?.data,
        (active) => !activeDownloads(active).some((d) => started === undefined || Object.values(d).includes(started as never)),
        (active) => `${activeDownloads(active).length} active`,
      );
      rt.note('Download finished.');
      return;
    }
    case 'transfer': {
      const statusPath = `/servers/${encodeURIComponent(params.server_id as string)}/settings/transfer/status`;
      const final = await pollUntil(
        rt,
        'transfer',
        async () => ((await client.request<{ data?: Record<string, unknown> }>({ method: 'GET', path: statusPath })).body?.data ?? {}),
        (t) => transferState(t) !== 'in_progress',
        (t) => transferState(t) ?? 'unknown',
      );
      if (transferState(final) === 'failed') throw new GshError(`transfer failed${final.message ? `: ${String(final.message)}` : ''}`, Exit.error);
      await rt.out.show(final);
      return;
    }
    case 'init': {
      await rt.out.show(await waitForJob(rt, client, `/servers/${encodeURIComponent(params.server_id as string)}/init`, 'provisioning'));
      return;
    }
  }
}

function activeDownloads(data: unknown): Record<string, unknown>[] {
  const list = Array.isArray(data) ? data : data && typeof data === 'object' && Array.isArray((data as { downloads?: unknown }).downloads) ? (data as { downloads: unknown[] }).downloads : [];
  return list.filter((d): d is Record<string, unknown> => d !== null && typeof d === 'object');
}

function transferState(t: Record<string, unknown>): string | undefined {
  const v = t.state ?? t.status;
  return typeof v === 'string' ? v : undefined;
}
