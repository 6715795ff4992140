import type { Command } from 'commander';
import type { Leaf } from '../operations/leaves.js';
import type { Operation } from '../operations/types.js';
import { confirmDestructive } from './confirm.js';
import { Exit, GshError, UsageError } from './errors.js';
import type { ApiClient, RequestSpec } from './http.js';
import { type OperationPlan, planOperation } from './operation-plan.js';
import type { ShowOptions } from './output.js';
import { fetchAll, fetchPage } from './paging.js';
import { type Runtime, withRuntime } from './runtime.js';
import { pollUntil, targetState, waitForJob, waitForServerState } from './wait.js';

// Runs one registry leaf: plan (operation-plan.ts), then execute: the request, paging, --wait
// and output. Every generated command goes through here, so the request logic exists once.

export async function runOperation(leaf: Leaf, cmd: Command): Promise<void> {
  await withRuntime(cmd, async (rt) => {
    const planned = await planOperation(rt, leaf, cmd.opts(), cmd.processedArgs as string[]);
    return rt.submit(planned.plan, () => execute(rt, planned));
  });
}

async function execute(rt: Runtime, p: OperationPlan): Promise<void> {
  const { leaf: { op, verb }, client, spec, params } = p;
  if (p.confirm) await confirmDestructive(rt, p.confirm);
  if (op.paging === 'offset') return list(rt, client, spec, p.paging, op);

  const res = await client.request<unknown>(spec);
  if (op.raw || typeof res.body !== 'object' || res.body === null || Buffer.isBuffer(res.body)) {
    const location = res.status >= 300 && res.status < 400 ? res.headers.location : undefined;
    printDocument(rt, location ?? res.body, res.headers['content-type']);
    return;
  }
  const data = 'data' in res.body ? (res.body as { data?: unknown }).data : res.body;
  if (res.replayed) rt.note('note: the service replayed an earlier response for this Idempotency-Key');

  if (p.follow) {
    await follow(rt, client, op, verb, params, data);
    return;
  }
  await rt.out.show(data, shown(op, data));
  if (op.wait && res.status === 202 && rt.io.stderrTTY) rt.note('Add --wait to follow it to the end.');
}

/**
 * Document and text endpoints (openapi, llms, exports) print their body as it is: the exact
 * bytes when piped, JSON indented on a terminal.
 */
function printDocument(rt: Runtime, body: unknown, contentType: string | undefined): void {
  if (body === undefined) return;
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  if (rt.io.stdoutTTY && /json/i.test(contentType ?? '')) {
    try {
      rt.io.stdout.write(`${JSON.stringify(JSON.parse(bytes.toString('utf8')), null, 2)}\n`);
      return;
    } catch {
      // Not JSON after all: shown as it came.
    }
  }
  rt.io.stdout.write(bytes);
  if (rt.io.stdoutTTY && bytes.length && bytes[bytes.length - 1] !== 0x0a) rt.io.stdout.write('\n');
}

async function list(
  rt: Runtime,
  client: ApiClient,
  spec: RequestSpec,
  opts: { limit?: number; offset?: number; all: boolean },
  op: Operation,
): Promise<void> {
  const how = { columns: op.columns, idField: op.idField };
  if (opts.all) {
    const streamed = rt.out.streams;
    const { items } = await fetchAll(client, spec, { onPage: streamed ? (page) => rt.out.streamItems(page, how) : undefined });
    if (!streamed) await rt.out.show(items, how);
    return;
  }
  const page = await fetchPage(client, spec, opts.limit, opts.offset);
  const p = page.pagination;
  if (opts.limit !== undefined && typeof p?.limit === 'number' && p.limit !== opts.limit) {
    rt.note(`note: the server applied limit=${p.limit} (asked for ${opts.limit})`);
  }
  await rt.out.show(page.items, how);
  // Always on stderr, whatever the format: a script reading one page must not take it for all.
  if (p?.has_more) {
    const next = (p.offset ?? 0) + page.items.length;
    rt.note(`showing ${page.items.length} of ${p.total ?? 'more'}; --all fetches every page (or --offset ${next} the next one)`);
  }
}

/** Default columns and identifier for a list answer; a single object shows all its fields. */
function shown(op: Operation, data: unknown): ShowOptions {
  return Array.isArray(data) ? { columns: op.columns, idField: op.idField } : { idField: op.idField };
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
