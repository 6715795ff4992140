import type { Command } from 'commander';
import { type Leaf, needsServer } from '../operations/leaves.js';
import type { Operation } from '../operations/types.js';
import { confirmDestructive } from './confirm.js';
import { envelopeData } from './envelope.js';
import { ApiError, GshError, ownError, UsageError } from './errors.js';
import type { ApiClient, ApiResponse, RequestSpec } from './http.js';
import { type OperationPlan, planOperation, retarget, serverArgument } from './operation-plan.js';
import { lookUpAgain } from './server-cache.js';
import { fleetOptions, runFleet } from './fleet.js';
import { stdinFor } from './fields.js';
import { type Plan, step } from './plan.js';
import { resolveTargets, singleRef, targetRefs, type TargetRefs } from './targets.js';
import type { ShowOptions } from './output.js';
import { fetchAll, fetchPage } from './paging.js';
import { type Runtime, withRuntime } from './runtime.js';
import { followOrInterrupt, followWork, waitCommand, type Work, workOf } from './follow.js';
import { targetReplayCommand } from './report.js';
import { waitForServerState } from './wait.js';
import type { Announcement } from './announce.js';
import type { ReadySpec } from './ready.js';

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
    const planned = await withReady(rt, leaf, local, await planOperation(rt, leaf, local, args));
    const serverId = planned.params.server_id as string;
    const announce = await planAnnounce(rt, leaf, local, [{ id: serverId, label: serverId }], 1);
    return rt.submit(await announcedPlan(planned.plan, announce), async () => (await countdown(rt, announce)) || execute(rt, planned, printer(rt)));
  }
}

// --announce and --ready (issue 31) load their modules (and the console socket's) only when used.

/** An operation's plan with what --ready adds (core/ready.ts): the wait follows the console too. */
type Planned = OperationPlan & { ready?: ReadySpec };

async function withReady(rt: Runtime, leaf: Leaf, local: Record<string, unknown>, p: OperationPlan): Promise<Planned> {
  if (local.ready === undefined || !leaf.verb || !leaf.op.console?.ready?.includes(leaf.verb)) return p;
  const { planReady, readyPlan } = await import('./ready.js');
  const spec = planReady(local.ready, p.params.server_id as string);
  if (!spec) return p;
  const r = readyPlan(spec, rt);
  const wait = p.follow ? p.plan.then : [...p.plan.then, step('wait', `follow the server status until it ends, for at most ${rt.waitLimitMs / 1000} s (--timeout)`)];
  return { ...p, follow: true, ready: spec, plan: { requests: [...r.requests, ...p.plan.requests], then: [r.before, ...wait, ...r.then] } };
}

async function planAnnounce(rt: Runtime, leaf: Leaf, local: Record<string, unknown>, targets: { id: string; label: string }[], parallel: number): Promise<Announcement | undefined> {
  if (local.announce === undefined && local.countdown === undefined && local.announceCancel === undefined) return undefined;
  const { planAnnouncement } = await import('./announce.js');
  return planAnnouncement(rt, local, targets, parallel, leaf.verb ?? leaf.words.join(' '));
}

async function announcedPlan(plan: Plan, a: Announcement | undefined): Promise<Plan> {
  return a ? (await import('./announce.js')).withAnnouncement(plan, a) : plan;
}

/** The countdown before the request: undefined once it is over, or the exit code of an interruption. */
async function countdown(rt: Runtime, a: Announcement | undefined): Promise<number | undefined> {
  return a ? (await import('./announce.js')).runAnnouncement(rt, a) : undefined;
}

/** Where one run's result goes: printed, or kept as a fleet target's result. */
interface Sink {
  show(data: unknown, opts?: ShowOptions): Promise<void>;
  /** A document or text body, as it came. */
  document(body: unknown, contentType: string | undefined): void;
  /** Pages as they arrive (jsonl, -q), where the output allows it. */
  streamItems?(items: unknown[], opts: ShowOptions): void;
  /** --columns checked against a list's first page, before more pages are fetched. */
  checkColumns?(items: unknown[]): void;
  /** Notes about this run (hints, replays); a fleet keeps them out of its table. */
  note(message: string): void;
  /** The run's own request is answered; only following it (--wait) is left. */
  sent?(): void;
}

function printer(rt: Runtime): Sink {
  return {
    show: (data, opts) => rt.out.show(data, opts),
    document: (body, contentType) => printDocument(rt, body, contentType),
    ...(rt.out.streams ? { streamItems: (items: unknown[], opts: ShowOptions) => void rt.out.streamItems(items, opts) } : {}),
    checkColumns: (items) => rt.out.checkColumns(items),
    note: (message) => rt.note(message),
  };
}

/**
 * One plan per target (ARCHITECTURE.md "Many servers at once"): the targets resolve with one
 * listing, every target's plan is checked before anything is sent, a destructive command lists them
 * and asks once, and each runs as it would alone, its result kept for the fleet's table.
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
  const plans = new Map<string, Planned>();
  for (const t of targets) plans.set(t.id, await withReady(rt, leaf, local, await planOperation(rt, leaf, local, args, { id: t.id, stdin: stdin.clone() })));
  const announce = await planAnnounce(rt, leaf, local, targets.map((t) => ({ id: t.id, label: t.name ? `${t.name} (${t.id})` : t.id })), opts.parallel);
  const first = plans.get(targets[0]?.id ?? '');
  if (targets.length === 1 && first) return (await rt.submit(await announcedPlan(first.plan, announce), async () => (await countdown(rt, announce)) || execute(rt, first, printer(rt)))) ?? 0;
  const named = targets.map((t) => (t.name ? `${t.name} (${t.id})` : t.id));
  const plan = await announcedPlan({
    requests: [...plans.values()].flatMap((p) => p.plan.requests),
    then: [step('fleet', `run on ${targets.length} servers, ${opts.parallel} at a time${opts.failFast ? ', starting none after a failure' : ''}: ${named.join(', ')}`), ...(first?.plan.then ?? [])],
  }, announce);
  return (await rt.submit(plan, async () => {
    if (first?.confirm) await confirmDestructive(rt, `Run "gsh ${leaf.words.join(' ')}" on ${targets.length} servers: ${named.join(', ')}`);
    const stopped = await countdown(rt, announce);
    if (stopped) return stopped;
    rt.singleTarget = false;
    // With --wait, a server whose request is sent waits in the shared poller without holding a
    // --parallel slot; the poller keeps the budget the requests still to send need.
    let sent = 0;
    const { sharedPoller, stopPolling } = await import('./status-poller.js');
    sharedPoller(rt, client).actionsLeft = () => targets.length - sent;
    try {
      return await runFleet(rt, targets, opts, async (t, release) => {
        let result: unknown;
        let counted = false;
        // Answered, or ended before its request was answered: no longer an action to send.
        const done = () => void (counted || ((counted = true), sent++));
        const keep: Sink = {
          show: async (data) => void (result = data),
          document: (body) => void (result = Buffer.isBuffer(body) ? body.toString('utf8') : body),
          note: () => {},
          sent: () => {
            done();
            release();
          },
        };
        try {
          await execute(rt, { ...(plans.get(t.id) as Planned), confirm: undefined }, keep);
        } finally {
          done();
        }
        return result;
      });
    } finally {
      stopPolling(client);
    }
  })) ?? 0;
}

/**
 * Sends the plan's own request with `send`. When the server's id came from the cache and the
 * service answers 404, the reference is looked up again once and, if it now names another id,
 * the request goes to that one (nothing was applied to an id the service does not know).
 */
async function sendFor<T>(rt: Runtime, p: OperationPlan, send: (p: OperationPlan) => Promise<T>): Promise<{ sent: T; p: OperationPlan }> {
  try {
    const sent = await send(p);
    p.confirmId?.();
    return { sent, p };
  } catch (err) {
    // Any answer but 404 on a server path says the server exists (02-endpoints-part-a.md, rule 2).
    if (err instanceof ApiError && err.status !== 404) p.confirmId?.();
    const again = p.remembered !== undefined && err instanceof ApiError && err.status === 404
      ? await lookUpAgain(rt, p.client, p.remembered, p.params.server_id as string) : undefined;
    if (again === undefined) throw err;
    const retargeted = await retarget(rt, p, again);
    return { sent: await send(retargeted), p: retargeted };
  }
}

async function execute(rt: Runtime, p: Planned, out: Sink): Promise<void> {
  const { leaf: { op, verb }, client } = p;
  if (p.confirm) await confirmDestructive(rt, p.confirm);
  if (op.paging === 'offset') return void (await sendFor(rt, p, (q) => list(rt, client, q.spec, q.paging, op, out)));
  if (p.ifAbsent) {
    const { findExisting } = await import('./if-absent.js');
    const existing = await findExisting(client, p.ifAbsent.lookup.path, p.ifAbsent.field, p.ifAbsent.value);
    if (existing) {
      out.note(`${p.ifAbsent.field} ${JSON.stringify(p.ifAbsent.value)} exists (${existing.id}); nothing created (--if-absent)`);
      await out.show(existing.item);
      return;
    }
  }

  // --ready: the console is open before the request, so no line of the new boot is missed.
  const watch = p.ready ? await (await import('./ready.js')).watchReady(rt, client, p.params.server_id as string, p.params.server_id as string, p.ready, { replay: false }) : undefined;
  watch?.arm();
  let sent;
  try {
    sent = await sendFor(rt, p, (q) => client.request<unknown>(q.spec));
  } catch (err) {
    watch?.close();
    throw err;
  }
  const { sent: res, p: { params } } = sent;
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
    out.sent?.();
    let final: unknown;
    try {
      // With --ready the status is polled by the watch, which stops the polls when it ends early.
      if (watch && work.kind === 'server-state') {
        try {
          if (work.note && rt.singleTarget) out.note(work.note);
          const r = await watch.until((sleep) => waitForServerState(rt, client, work.serverId, work.state, { ...(work.mustLeave ? { mustLeave: work.mustLeave } : {}), sleep }));
          final = r.final;
          out.note(`ready: ${r.line}`);
        } finally {
          watch.close();
        }
      } else {
        watch?.close();
        final = await (rt.singleTarget ? followOrInterrupt(rt, client, work) : followWork(rt, client, work));
      }
    } catch (err) {
      throw waitFailed(err, res, work);
    }
    if (final !== undefined) await out.show(final);
    return;
  }
  watch?.close();
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
    let first = true;
    const onPage = (page: unknown[]) => {
      if (first) out.checkColumns?.(page);
      first = false;
      stream?.(page, how);
    };
    const { items } = await fetchAll(client, spec, { pageSize: opts.limit, onPage });
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
