import type { Command } from 'commander';
import { type Leaf, needsServer } from '../operations/leaves.js';
import type { Operation } from '../operations/types.js';
import { confirmDestructive } from './confirm.js';
import { envelopeData } from './envelope.js';
import { GshError, ownError, UsageError } from './errors.js';
import type { ApiClient, ApiResponse, RequestSpec } from './http.js';
import { type OperationPlan, planOperation, serverArgument } from './operation-plan.js';
import { fleetOptions, runFleet } from './fleet.js';
import { stdinFor } from './fields.js';
import { step } from './plan.js';
import { resolveTargets, singleRef, targetRefs, type TargetRefs } from './targets.js';
import type { ShowOptions } from './output.js';
import { fetchAll, fetchPage } from './paging.js';
import { type Runtime, withRuntime } from './runtime.js';
import { followOrInterrupt, followWork, waitCommand, type Work, workOf } from './follow.js';
import { targetReplayCommand } from './report.js';

// Runs one registry leaf: plan (operation-plan.ts), then execute: the request, paging, --wait
// and output. Every generated command goes through here, so the request logic exists once.

export async function runOperation(leaf: Leaf, cmd: Command): Promise<void> {
  await withRuntime(cmd, (rt) => notSentOnPlanFailure(leaf, () => operation(leaf, cmd, rt)));
}

/** Planning sends only the reads that resolve servers: a change that fails there was not sent. */
async function notSentOnPlanFailure<T>(leaf: Leaf, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (caught) {
    const err = ownError(caught);
    if (err instanceof GshError && err.outcome === undefined && leaf.op.method !== 'GET') err.outcome = 'not_applied';
    throw err;
  }
}

async function operation(leaf: Leaf, cmd: Command, rt: Runtime): Promise<number | void> {
  {
    const local = cmd.opts();
    const args = cmd.processedArgs as string[];
    if (needsServer(leaf.op)) {
      const refs = targetRefs(local.server as string[] | undefined, serverArgument(leaf.op, args), rt.env, local.allServers === true);
      if (singleRef(refs) === undefined) {
        if (local.to !== undefined && leaf.op.signedUrl) throw new UsageError('--to downloads from one server', 'Give one -s, or run the command once per server.');
        return runOnFleet(rt, leaf, local, args, refs);
      }
    }
    const planned = await planOperation(rt, leaf, local, args);
    return rt.submit(planned.plan, () => execute(rt, planned, printer(rt)));
  }
}

/** Where one run's result goes: printed, or kept as a fleet target's result. */
interface Sink {
  show(data: unknown, opts?: ShowOptions): Promise<void>;
  /** A document or text body, as it came. */
  document(body: unknown, contentType: string | undefined): void;
  /** Pages as they arrive (jsonl, -q), where the output allows it. */
  streamItems?(items: unknown[], opts: ShowOptions): void;
  /** Notes about this run (hints, replays); a fleet keeps them out of its table. */
  note(message: string): void;
}

function printer(rt: Runtime): Sink {
  return {
    show: (data, opts) => rt.out.show(data, opts),
    document: (body, contentType) => printDocument(rt, body, contentType),
    ...(rt.out.streams ? { streamItems: (items: unknown[], opts: ShowOptions) => void rt.out.streamItems(items, opts) } : {}),
    note: (message) => rt.note(message),
  };
}

/**
 * One plan per target (DESIGN.md "Many servers at once"): the targets resolve with one listing,
 * every target's plan is checked before anything is sent, a destructive command lists them and
 * asks once, and each runs as it would alone, its result kept for the fleet's table.
 */
async function runOnFleet(rt: Runtime, leaf: Leaf, local: Record<string, unknown>, args: string[], refs: TargetRefs): Promise<number> {
  const opts = {
    ...fleetOptions(local as { parallel?: string; failFast?: boolean }, rt.globals.idempotencyKey),
    mutates: leaf.op.method !== 'GET',
    replay: (id: string, key: string) => targetReplayCommand(rt.argv, id, key, serverArgument(leaf.op, args)),
  };
  const stdin = await stdinFor([...Object.values(local), ...refs.refs], () => rt.ctx.stdin);
  const client = await rt.client();
  const targets = await resolveTargets(client, refs, stdin);
  const plans = new Map<string, OperationPlan>();
  for (const t of targets) plans.set(t.id, await planOperation(rt, leaf, local, args, { id: t.id, stdin: stdin.clone() }));
  const first = plans.get(targets[0]?.id ?? '');
  if (targets.length === 1 && first) return (await rt.submit(first.plan, () => execute(rt, first, printer(rt)))) ?? 0;
  const named = targets.map((t) => (t.name ? `${t.name} (${t.id})` : t.id));
  const plan = {
    requests: [...plans.values()].flatMap((p) => p.plan.requests),
    then: [step('fleet', `run on ${targets.length} servers, ${opts.parallel} at a time${opts.failFast ? ', starting none after a failure' : ''}: ${named.join(', ')}`), ...(first?.plan.then ?? [])],
  };
  return (await rt.submit(plan, async () => {
    if (first?.confirm) await confirmDestructive(rt, `Run "gsh ${leaf.words.join(' ')}" on ${targets.length} servers: ${named.join(', ')}`);
    rt.singleTarget = false;
    return runFleet(rt, targets, opts, async (t) => {
      let result: unknown;
      const keep: Sink = {
        show: async (data) => void (result = data),
        document: (body) => void (result = Buffer.isBuffer(body) ? body.toString('utf8') : body),
        note: () => {},
      };
      await execute(rt, { ...(plans.get(t.id) as OperationPlan), confirm: undefined }, keep);
      return result;
    });
  })) ?? 0;
}

async function execute(rt: Runtime, p: OperationPlan, out: Sink): Promise<void> {
  const { leaf: { op, verb }, client, spec, params } = p;
  if (p.confirm) await confirmDestructive(rt, p.confirm);
  if (op.paging === 'offset') return list(rt, client, spec, p.paging, op, out);
  if (p.ifAbsent) {
    const { findExisting } = await import('./if-absent.js');
    const existing = await findExisting(client, p.ifAbsent.lookup.path, p.ifAbsent.field, p.ifAbsent.value);
    if (existing) {
      out.note(`${p.ifAbsent.field} ${JSON.stringify(p.ifAbsent.value)} exists (${existing.id}); nothing created (--if-absent)`);
      await out.show(existing.item);
      return;
    }
  }

  const res = await client.request<unknown>(spec);
  if (op.raw) {
    const location = res.status >= 300 && res.status < 400 ? res.headers.location : undefined;
    out.document(location ?? res.body, res.headers['content-type']);
    return;
  }
  const data = envelopeData(res);
  if (res.replayed) out.note('note: the service replayed an earlier response for this Idempotency-Key');

  if (p.download) {
    const { announcedSize, download, signedUrlOf } = await import('./download.js');
    const got = await download(rt, client, signedUrlOf(data), p.download, { size: announcedSize(data), fallbackName: fallbackName(data, params) });
    if (got.path) out.note(`Saved ${got.bytes} bytes to ${got.path}`);
    return;
  }
  const work = workOf(op, verb, params, data);
  if (p.follow && work) {
    let final: unknown;
    try {
      final = await (rt.singleTarget ? followOrInterrupt(rt, client, work) : followWork(rt, client, work));
    } catch (err) {
      throw waitFailed(err, res, work);
    }
    if (final !== undefined) await out.show(final);
    return;
  }
  await out.show(data, shown(op, data));
  if (op.signedUrl && rt.io.stderrTTY) {
    const expires = (data as { expires_at?: unknown } | undefined)?.expires_at;
    out.note(`Download it: add --to FILE, --to DIR/ or --to - (stdout)${typeof expires === 'string' ? `; the URL expires at ${expires}` : ''}.`);
  }
  // Work under way: the command that follows it without sending the request again.
  if (work && res.status === 202) out.note(`Follow it: ${waitCommand(work)}`);
}

/**
 * A wait that failed (or was interrupted) after the service accepted the change: the change was
 * applied, so the error says so, names the step that failed and the `gsh wait` that resumes it,
 * instead of reading as a plain failure of the command.
 */
function waitFailed(caught: unknown, res: ApiResponse<unknown>, work: Work): unknown {
  const err = ownError(caught);
  if (!(err instanceof GshError) || res.idempotencyKey === undefined) return err;
  err.outcome = 'applied';
  err.idempotencyKey = res.idempotencyKey;
  err.step = 'wait';
  err.resume ??= waitCommand(work);
  return err;
}

/** The name a download gets in a --to directory when Content-Disposition gives none. */
function fallbackName(data: unknown, params: Record<string, string>): string {
  const d = (data ?? {}) as Record<string, unknown>;
  const named = [d.filename, d.name, d.path].find((v): v is string => typeof v === 'string' && v !== '');
  const last = named?.split('/').pop();
  if (last) return last;
  const ids = Object.entries(params).filter(([k]) => k !== 'server_id').map(([, v]) => v);
  return ids.length ? `${ids[ids.length - 1]}.download` : 'download';
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
  out: Sink,
): Promise<void> {
  const how = { columns: op.columns, idField: op.idField };
  if (opts.all) {
    const stream = out.streamItems;
    const { items } = await fetchAll(client, spec, { pageSize: opts.limit, onPage: stream ? (page) => stream(page, how) : undefined });
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

/** Default columns and identifier for a list answer; a single object shows all its fields. */
function shown(op: Operation, data: unknown): ShowOptions {
  return Array.isArray(data) ? { columns: op.columns, idField: op.idField } : { idField: op.idField };
}
