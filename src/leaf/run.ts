import type { Command } from 'commander';
import { type Leaf, needsServer } from '../operations/leaves.js';
import { envelopeData } from '../core/wire/envelope.js';
import { ApiError, Exit, GshError, InterruptedError, ownError } from '../core/errors.js';
import type { ShowOptions } from '../core/terminal/output.js';
import { stdinFor } from '../core/flags/fields.js';
import { type Plan, step } from '../core/plan.js';
import type { TargetRefs } from '../core/fleet/targets.js';
import { type Runtime, withRuntime } from '../core/run/runtime.js';
import type { Execution, Local, OperationPlan, Sink, Stage, StageContext } from './feature.js';
import { FEATURES } from './features/index.js';
import { secretFields } from './features/body.js';
import { serverArgument } from './features/servers.js';
import { planOperation, retarget } from './plan.js';
import { HIDDEN, hideSecrets } from '../core/secrets-shown.js';

// Runs one registry leaf: plan (plan.ts), then execute: the request and what each operation
// feature (features/) does around it, then the output. Every generated command goes through
// here, so the request logic exists once. What only a server's command needs (its reference,
// fleets, a 404 on a remembered id) is imported where it is used: a list of servers or
// applications loads none of it (issue 39).

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
  const local = cmd.opts();
  const args = cmd.processedArgs as string[];
  if (needsServer(leaf.op)) {
    const [{ singleRef, targetRefs }, { parallelOption }, { rolloutOf, runsAsFleet }] = await Promise.all([import('../core/fleet/targets.js'), import('../core/fleet/fleet.js'), import('../core/fleet/rollout.js')]);
    const refs = targetRefs(local.server as string[] | undefined, serverArgument(leaf.op, args), rt.env, local.allServers === true);
    parallelOption(local.parallel as string | undefined);
    // The rollout flags are checked whatever the number of servers, as --parallel is.
    const rollout = rolloutOf(local);
    if (singleRef(refs) === undefined || runsAsFleet(rollout)) {
      for (const f of FEATURES) f.fleet?.(leaf, local);
      return runOnFleet(rt, leaf, local, args, refs);
    }
  }
  const planned = await planOperation(rt, leaf, local, args);
  const serverId = planned.params.server_id as string;
  const stages = await stagesOf(rt, leaf, local, [{ id: serverId, label: serverId }], 1);
  return rt.submit(await staged(planned.plan, stages), async () => (await stoppedAlone(rt, await beforeStages(stages))) || afterStages(stages, serverId, () => execute(rt, planned, printer(rt))));
}

/** The stages features put around the whole run (--announce's countdown), in list order. */
async function stagesOf(rt: Runtime, leaf: Leaf, local: Local, targets: { id: string; label: string }[], parallel: number): Promise<Stage[]> {
  const planLeaf: StageContext['planLeaf'] = (other, flags, target) => planOperation(rt, other, flags, [], target);
  const stages: Stage[] = [];
  for (const f of FEATURES) {
    const s = await f.stage?.({ rt, leaf, local, targets, parallel, planLeaf });
    if (s) stages.push(s);
  }
  return stages;
}

async function staged(plan: Plan, stages: readonly Stage[]): Promise<Plan> {
  let out = plan;
  for (const s of stages) out = await s.plan(out);
  return out;
}

/** Undefined once every stage is over, or the exit code one ended the run with (an interruption). */
async function beforeStages(stages: readonly Stage[]): Promise<number | undefined> {
  for (const s of stages) {
    const code = await s.before();
    if (code !== undefined) return code;
  }
  return undefined;
}

/**
 * One server whose stage (the countdown) was interrupted: the error a single command prints (a
 * JSON object on stderr with --json), saying nothing was sent (issue 43 item 2).
 */
async function stoppedAlone(rt: Runtime, code: number | undefined): Promise<undefined> {
  if (code === undefined) return undefined;
  const { shellLine } = await import('../core/shell-words.js');
  const again = rt.argv.length ? `Run it again with:\n  ${shellLine(['gsh', ...rt.argv])}` : 'Run the same command again.';
  const err = new GshError(`${code === Exit.terminated ? 'terminated (SIGTERM)' : 'interrupted'} before the action: nothing but the announcements was sent`, code, again);
  err.outcome = 'not_applied';
  throw err;
}

/** The stages' own exit code, or an interruption's (a request of the checks cut by Ctrl-C). */
async function interruptCode(fn: () => Promise<number | undefined>): Promise<number | undefined> {
  try {
    return await fn();
  } catch (caught) {
    const err = ownError(caught);
    if (err instanceof InterruptedError) return err.exitCode;
    throw err;
  }
}

/** Runs one target once the stages are over; a failure is told to each stage before it goes on up. */
async function afterStages<T>(stages: readonly Stage[], targetId: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    for (const s of stages) await s.failed?.(targetId, ownError(err));
    throw err;
  }
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
async function runOnFleet(rt: Runtime, leaf: Leaf, local: Local, args: string[], refs: TargetRefs): Promise<number> {
  const [{ EntryFields, fleetOptions, listNotStarted, resolveFleet, runFleet }, { resolveTargets, singleRef }, { restCommand, targetReplayCommand }, { fleetSteps, runsAsFleet }] = await Promise.all([
    import('../core/fleet/fleet.js'), import('../core/fleet/targets.js'), import('../core/terminal/report.js'), import('../core/fleet/rollout.js'),
  ]);
  const opts = {
    // One plain server run as a fleet of one (--journal) sends one request: its key may be given (a replay).
    ...fleetOptions(local, singleRef(refs) === undefined ? rt.globals.idempotencyKey : undefined),
    mutates: leaf.op.method !== 'GET',
    replay: (id: string, key: string) => targetReplayCommand(rt.argv, id, key, serverArgument(leaf.op, args)),
    rest: (ids: readonly string[]) => restCommand(rt.argv, ids, serverArgument(leaf.op, args)),
  };
  const stdin = await stdinFor([...Object.values(local), ...refs.refs], () => rt.ctx.stdin);
  const client = await rt.client();
  const plans = new Map<string, OperationPlan>();
  const targets = await resolveFleet(rt, refs.refs, opts, () => resolveTargets(client, refs, stdin, rt.references), async (resolved) => {
    for (const t of resolved) plans.set(t.id, await planOperation(rt, leaf, local, args, { id: t.id, stdin: stdin.clone() }));
  });
  if (typeof targets === 'number') return targets;
  const stages = await stagesOf(rt, leaf, local, targets.map((t) => ({ id: t.id, label: t.name ? `${t.name} (${t.id})` : t.id })), opts.parallel);
  const first = plans.get(targets[0]?.id ?? '');
  if (targets.length === 1 && first && !runsAsFleet(opts.rollout)) return (await rt.submit(await staged(first.plan, stages), async () => (await stoppedAlone(rt, await beforeStages(stages))) || afterStages(stages, first.params.server_id as string, () => execute(rt, first, printer(rt))))) ?? 0;
  const named = targets.map((t) => (t.name ? `${t.name} (${t.id})` : t.id));
  const plan = await staged({
    requests: [...plans.values()].flatMap((p) => p.plan.requests),
    then: [...fleetSteps(targets, opts.parallel, opts.rollout), ...(first?.plan.then ?? [])],
  }, stages);
  return (await rt.submit(plan, async () => {
    // Ctrl-C at the question, in an announced action's checks or countdown: no server was
    // started, and each is listed so (issue 43 item 2), with the command that runs them all.
    const stopped = await interruptCode(async () => {
      if (first?.confirm) {
        const { confirmQuestion, destructiveAction } = await import('./confirm-question.js');
        const question = confirmQuestion(destructiveAction(leaf.op, leaf.words, args, first.spec.body, { servers: named }) as string);
        await (await import('../core/run/confirm.js')).confirmDestructive(rt, question);
      }
      return beforeStages(stages);
    });
    if (stopped) return listNotStarted(rt, targets, refs.refs, opts, stopped, 'before any server was started', stages.length ? 'no server was started (announcements aside, nothing was sent)' : 'nothing was sent');
    rt.singleTarget = false;
    // With --wait, a server whose request is sent waits in the shared poller without holding a
    // --parallel slot; the poller keeps the budget the requests still to send need.
    let sent = 0;
    const { sharedPoller, stopPolling } = await import('../core/fleet/status-poller.js');
    sharedPoller(rt, client).actionsLeft = () => targets.length - sent;
    try {
      return await runFleet(rt, targets, opts, async (t, release) => {
        let result: unknown;
        let ready: { line: string; seconds: number } | undefined;
        let counted = false;
        // Answered, or ended before its request was answered: no longer an action to send.
        const done = () => void (counted || ((counted = true), sent++));
        const keep: Sink = {
          // The fleet's table shows what is kept: its secrets hidden here, as a single run's show() would.
          show: async (data, opts) => void (result = rt.globals.showSecret ? data : hideSecrets(data, opts?.secrets)),
          document: (body) => void (result = Buffer.isBuffer(body) ? body.toString('utf8') : body),
          note: () => {},
          sent: (resume) => {
            done();
            release(resume);
          },
          ready: (r) => void (ready = r),
        };
        try {
          await afterStages(stages, t.id, () => execute(rt, { ...(plans.get(t.id) as OperationPlan), confirm: undefined }, keep));
        } finally {
          done();
        }
        return ready ? new EntryFields(result, { ready }) : result;
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
    // The request was the reference's check as an id: its 404 is a reference that names no server.
    if (p.unchecked !== undefined && err instanceof ApiError && err.status === 404) throw await (await import('../core/fleet/server-ref.js')).unknownServers(p.client, [p.unchecked], err);
    const again = p.remembered !== undefined && err instanceof ApiError && err.status === 404
      ? await (await import('../core/fleet/server-cache.js')).lookUpAgain(rt, p.client, p.remembered, p.params.server_id as string) : undefined;
    if (again === undefined) throw err;
    const retargeted = await retarget(rt, p, again);
    return { sent: await send(retargeted), p: retargeted };
  }
}

function hasValue(data: unknown, name: string): boolean {
  return data !== null && typeof data === 'object' && !Array.isArray(data) && typeof (data as Record<string, unknown>)[name] === 'string' && (data as Record<string, unknown>)[name] !== '';
}

/**
 * Executes one planned run: each feature's hooks around the request, in list order; what they
 * opened (--ready's console) is closed when the request fails and before the result is shown.
 */
async function execute(rt: Runtime, p: OperationPlan, out: Sink): Promise<void> {
  const x: Execution = {
    rt, p, out, cleanups: [],
    send: (how) => sendFor(rt, p, how),
    showOptions: (data) => ({ ...Object.assign({}, ...FEATURES.map((f) => f.show?.(p.leaf.op, data) ?? {})), secrets: secretFields(p.leaf.op, p.spec.body) }) as ShowOptions,
  };
  const cleanUp = () => {
    for (const c of x.cleanups.splice(0)) c();
  };
  try {
    for (const f of FEATURES) if (await f.beforeSend?.(x)) return;
    for (const f of FEATURES) if (await f.send?.(x)) return;
    const sent = await sendFor(rt, p, (q) => q.client.request<unknown>(q.spec));
    // Later hooks see the plan the request went with (another id after a 404 on a remembered one).
    x.p = sent.p;
    const res = sent.sent;
    for (const f of FEATURES) if (f.document?.(x, res)) return;
    const data = envelopeData(res);
    if (res.replayed) out.note('note: the service replayed an earlier response for this Idempotency-Key');
    for (const f of FEATURES) if (await f.afterAnswer?.(x, res, data)) return;
    cleanUp();
    await out.show(data, x.showOptions(data));
    const generated = rt.globals.showSecret ? [] : [...secretFields(p.leaf.op, p.spec.body)].filter(([name, shown]) => shown === HIDDEN && hasValue(data, name)).map(([name]) => name);
    if (generated.length) out.note(`The service generated the ${generated.map((g) => `"${g}"`).join(', ')} of this answer, which it returns only now; it is shown as ${HIDDEN}. Run with --show-secret to print it, or give your own (--${generated.map((g) => `${g}-file`).join(', --')}).`);
    for (const f of FEATURES) await f.afterShow?.(x, res, data);
  } finally {
    cleanUp();
  }
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
  // The service's bytes: on a terminal its escape sequences show as text, colours too.
  rt.io.serviceStdout.write(bytes);
  if (rt.io.stdoutTTY && bytes.length && bytes[bytes.length - 1] !== 0x0a) rt.io.stdout.write('\n');
}
