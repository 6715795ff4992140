// `gsh config diff` and `gsh config apply` (README "Configuration as code"): the files say which
// servers they manage (one listing of the servers), each server's declared kinds are read (only
// those), compared (compare.ts), and apply makes exactly the writes diff shows, each with its
// Idempotency-Key and outcome (core/outcome.ts). Apply's writes run through the fleet runner
// (core/fleet/fleet.ts), one target per managed server, servers --parallel at once on the
// client's one rate-limit budget (core/wire/http.ts), so every rollout flag (waves, the failure
// budget, shards, journals; README "Rollouts") holds for it as for `power restart`.

import { ApiError, Exit, GshError, InterruptedError, ownError, UsageError } from '../core/errors.js';
import { type ErrorObject, errorObject } from '../core/terminal/report.js';
import { visible } from '../core/terminal/terminal-text.js';
import { type FleetOptions, parallelOption, rolloutSelection, runFleet } from '../core/fleet/fleet.js';
import { fleetSteps, type Rollout, type RolloutFlags, rolloutOf, runsAsFleet } from '../core/fleet/rollout.js';
import { restCommand } from '../core/terminal/report.js';
import { type ApiClient, withIdempotencyKey } from '../core/wire/http.js';
import { OutcomeTracker, trackOutcomes } from '../core/outcome.js';
import { fetchAll } from '../core/wire/paging.js';
import type { Runtime } from '../core/run/runtime.js';
import type { ServerItem } from '../core/fleet/server-ref.js';
import { inLine } from '../core/terminal/terminal-text.js';
import { asText, type Change, compare, type Comparison, storedValues } from './compare.js';
import { clampMemory, rememberClamps } from './clamps.js';
import { choiceList } from '../core/flags/choices.js';
import { refMatcher, targetRefs } from '../core/fleet/targets.js';
import { type Declaration, declarationFor, declaredKinds, type DeclFile, expandPaths, loadFile, loadLibraries, matches, picomatchSync, secretVariablesOf, sharedName } from './files.js';
import { ENV_REF, opSpec, type Reason } from './kind.js';
import { KIND_NAMES, KINDS, kindNamed, PRUNABLE_NAMES } from './kinds/index.js';
import { readCost, readLive, readSpecs } from './live.js';
import { PLAN_FORMAT, type PlannedServer, plannedChange, readPlan, resolveSecrets, type SavedPlan, stalePlanError, staleness, writePlan } from './saved-plan.js';
import { type Step, step } from '../core/plan.js';
import { lintReport } from './lint.js';
import { refuseCredentialSecrets } from './secret-variables.js';

const LIST_SERVERS = 'GET /servers';

export interface Server {
  id: string;
  name?: string;
  /** The account's one target (Kind.account): no server, so results name it by `account: true`. */
  account?: true;
}

export interface Managed extends Server {
  file: string;
  decl: Declaration;
  kinds: string[];
}

export interface SelectOptions {
  paths: string[];
  /** diff --out PLAN: the saved plan's file. */
  out?: string;
  /** --prune KINDS (apply; diff --out records it in the plan). */
  prune?: string;
  server?: string | string[];
  only?: string;
  parallel?: string;
}

/** Files read and linted; any error in them stops the command before a request (exit 2). */
export async function loadDeclarations(rt: Runtime, paths: string[]): Promise<DeclFile[]> {
  await loadLibraries();
  const files = expandPaths(paths).map(loadFile);
  const bad = files.filter((f) => f.problems.some((p) => p.severity === 'error'));
  if (bad.length) {
    rt.io.stderr.write(await lintReport(files, 'stylish', rt.io.colorErr));
    throw new UsageError(`${bad.length === 1 ? bad[0]!.path : `${bad.length} files`} ${bad.length === 1 ? 'has' : 'have'} problems; nothing was sent`, 'gsh config lint FILE shows them again.');
  }
  return files;
}

/** -s: the servers to keep of those the files manage, in gsh's one selection grammar (core/fleet/targets.ts). */
export function narrow(sel: string | string[] | undefined): ((s: Server) => boolean) | undefined {
  if (sel === undefined || !sel.length) return undefined;
  const { refs } = targetRefs(sel, undefined, {});
  if (refs.includes('-')) throw new UsageError('-s - (servers on standard input) is not taken by gsh config', 'Name the servers with -s, or narrow the files.');
  const tests = refs.map((ref) => refMatcher(ref, picomatchSync()));
  return (s) => tests.some((t) => t(s));
}

/** --only: the kinds to compare or apply. */
export const onlyKinds = (value: string | undefined): string[] | undefined => choiceList(value, '--only', KIND_NAMES, 'kinds');

/** Every server of the account, by id and name: the one listing a run reads (export names its files from it too). */
export async function listServers(client: ApiClient): Promise<Server[]> {
  const { items } = await fetchAll(client, opSpec(LIST_SERVERS, {}));
  return (items as ServerItem[]).filter((s) => s.id !== undefined).map((s) => ({ id: String(s.id), ...(typeof s.name === 'string' ? { name: s.name } : {}) }));
}

/**
 * The servers the files manage (one listing), narrowed by -s. A server two files manage is a
 * usage error; a one-server file whose server does not exist is listed as missing (exit 11).
 */
export async function managedServers(client: ApiClient, files: DeclFile[], o: SelectOptions): Promise<{ managed: Managed[]; missing: Array<{ ref: string; file: string }> }> {
  const only = onlyKinds(o.only);
  const keep = narrow(o.server);
  const serverFiles = files.filter((f) => !f.account);
  const servers = serverFiles.length ? await listServers(client) : [];
  const managed = new Map<string, Managed>();
  const missing: Array<{ ref: string; file: string }> = [];
  for (const file of serverFiles) {
    const found = servers.filter((s) => matches(file, s));
    const shared = sharedName(file, found);
    if (shared) throw new UsageError(shared, 'A name two servers have picks neither: nothing was sent to either.');
    if (!file.fleet && !found.length) {
      // A pinned id the listing does not show is still read by id (the list may show another form).
      if (file.id !== undefined) found.push({ id: file.id, ...(file.server !== undefined ? { name: file.server } : {}) });
      else missing.push({ ref: file.server ?? '?', file: file.path });
    }
    for (const s of found) {
      if (keep && !keep(s)) continue;
      const other = managed.get(s.id);
      if (other) throw new UsageError(`${s.name ?? s.id} is managed by both ${other.file} and ${file.path}`, 'A server is declared in one file only: remove it from one of them (or narrow a glob).');
      const decl = declarationFor(file, s);
      managed.set(s.id, { ...s, file: file.path, decl, kinds: declaredKinds(decl, only) });
    }
  }
  const list = [...managed.values()];
  if (keep && !list.length && !missing.length) throw new UsageError('-s matches none of the servers the files manage');
  const account = accountTarget(files, only, keep !== undefined);
  return { managed: account ? [...list, account] : list, missing: keep ? missing.filter((m) => keep({ id: m.ref, name: m.ref })) : missing };
}

/**
 * The account's kinds (Kind.account, declared in a file of their own) as one target, after the
 * servers: read and written once a run. -s narrows servers, so with -s they run only when --only
 * names them.
 */
function accountTarget(files: DeclFile[], only: string[] | undefined, narrowed: boolean): Managed | undefined {
  const declaring = files.filter((f) => f.account);
  if (declaring.length > 1) throw new UsageError(`the account is declared in both ${declaring[0]!.path} and ${declaring[1]!.path}`, 'Keep what the account declares in one file.');
  const file = declaring[0];
  if (!file || (narrowed && !only)) return undefined;
  const decl = declarationFor(file, { id: '' });
  const kinds = declaredKinds(decl, only);
  return kinds.length ? { id: '', account: true, file: file.path, decl, kinds } : undefined;
}

/** How results name a target: a server by id and name, the account by `account: true`. */
const idsOf = (s: Server) => (s.account ? { server_id: null, server_name: null, account: true as const } : { server_id: s.id, server_name: s.name ?? null });
/** A result's target in a message or a table cell. */
const shownAs = (r: { account?: true; server_name: string | null; server_id: string | null }) => (r.account ? 'account' : (r.server_name ?? r.server_id ?? '?'));

/** `N requests, about T at the key's limit`, printed first when a run will take more than a minute. */
export function estimate(rt: Runtime, client: ApiClient, requests: number, what: string, already = false): boolean {
  const limit = client.rateLimitState?.limit;
  if (!limit || requests <= limit || already) return false;
  const minutes = requests / limit;
  rt.note(`${what}: about ${requests} requests, about ${minutes < 2 ? `${Math.ceil(minutes * 60)} s` : `${Math.ceil(minutes)} min`} at this key's limit of ${limit} a minute.`);
  return true;
}

/** The reads of the managed servers' declared kinds. */
export function readsOf(managed: readonly Managed[]): number {
  return managed.reduce((n, m) => n + readCost(m.kinds, m.decl), 0);
}

/** Runs `fn` over `items`, `parallel` at once, results in input order. */
export async function pool<T, R>(items: readonly T[], parallel: number, fn: (item: T) => Promise<R>, stop: () => boolean = () => false): Promise<Array<R | undefined>> {
  const out: Array<R | undefined> = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length && !stop()) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, items.length) }, worker));
  return out;
}

export interface Compared {
  server: Managed;
  comparison?: Comparison;
  error?: GshError | Error;
  /** Not read: Ctrl-C / SIGTERM came first (the interrupt, when it stopped this server's read). */
  interrupted?: InterruptedError | true;
}

/**
 * Reads every managed server's declared kinds and compares; a server that cannot be read is kept
 * with its error, and once `stop()` says so (an interrupt) the servers not read are kept as such.
 */
export async function compareAll(rt: Runtime, client: ApiClient, managed: Managed[], parallel: number, opts: { prune: readonly string[]; replace: readonly string[]; secrets: boolean }, stop: () => boolean = () => false): Promise<Compared[]> {
  estimate(rt, client, 1 + readsOf(managed), 'This run reads');
  const results = await pool(managed, parallel, async (server): Promise<Compared> => {
    try {
      const live = await readLive(client, server.id, server.kinds, server.decl);
      return { server, comparison: compare(server.decl, live, { serverId: server.id, kinds: server.kinds, prune: opts.prune, replace: opts.replace, env: rt.env, secrets: opts.secrets }) };
    } catch (caught) {
      const err = ownError(caught);
      if (err instanceof InterruptedError) return { server, interrupted: err };
      return { server, error: err as Error };
    }
  }, stop);
  return managed.map((server, i) => results[i] ?? { server, interrupted: true });
}

/**
 * A comparison that found the files cannot say what they mean (exit 6: two live init templates
 * answer to one declared name) ends the run, before any write: no other target's result makes it
 * right, as a name two servers share stops one (files.ts sharedName).
 */
function refuseConflicts(compared: readonly Compared[]): void {
  const c = compared.find((x) => x.error instanceof GshError && !(x.error instanceof ApiError) && x.error.exitCode === Exit.conflict);
  if (c) throw c.error;
}

/** Ctrl-C / SIGTERM for a whole run: the first one is kept, and every request under way is cancelled. */
function watchInterrupts(rt: Runtime): { stopped: () => 'SIGINT' | 'SIGTERM' | undefined; stop: (signal: 'SIGINT' | 'SIGTERM') => void; dispose: () => void } {
  let stopped: 'SIGINT' | 'SIGTERM' | undefined;
  const handlers = (['SIGINT', 'SIGTERM'] as const).map((signal) => {
    const on = () => {
      stopped ??= signal;
      rt.cancelAll(signal);
    };
    rt.ctx.signals.on(signal, on);
    return [signal, on] as const;
  });
  return {
    stopped: () => stopped,
    stop: (signal) => void (stopped ??= signal),
    dispose: () => {
      for (const [signal, on] of handlers) rt.ctx.signals.off(signal, on);
    },
  };
}

const label = (s: Server) => (s.account ? 'account' : s.name ?? s.id);

/** A problem of gsh's own in the shared error object (core/terminal/report.ts). */
function problem(message: string, code: string, exit: number): ErrorObject {
  const err = new GshError(message, exit);
  err.code = code;
  return errorObject(err);
}

const noSuchServer = (m: { ref: string; file: string }) => problem(`no server is named ${m.ref} (${m.file})`, 'no_such_server', Exit.someFailed);
const why = (err: unknown) => (err instanceof ApiError ? `${err.message} (HTTP ${err.status}${err.code ? ` ${err.code}` : ''})` : (err as Error).message);

// ---------------------------------------------------------------------------------------------
// diff

export async function runDiff(rt: Runtime, o: SelectOptions): Promise<number> {
  const files = await loadDeclarations(rt, o.paths);
  const parallel = parallelOption(o.parallel);
  onlyKinds(o.only);
  narrow(o.server);
  const prune = choiceList(o.prune, '--prune', PRUNABLE_NAMES, 'kinds') ?? [];
  if (o.prune !== undefined && o.out === undefined) throw new UsageError('--prune on diff is recorded in a saved plan: give --out PLAN too', 'gsh config diff PATHS --prune KINDS --out PLAN, then gsh config apply --plan PLAN.');
  const client = await rt.client();
  const { managed, missing } = await managedServers(client, files, o);
  // --dry-run: the reads it would make (the listing that found the servers was sent).
  if (rt.dryRun) return (await rt.submit({ requests: managed.flatMap((m) => readSpecs(m.id, m.kinds, m.decl)), then: o.out ? [step('local', `write the plan ${o.out}`)] : [] }, async () => {})) ?? Exit.ok;
  const compared = await compareAll(rt, client, managed, parallel, { prune, replace: [], secrets: false });
  const cut = compared.find((c) => c.interrupted instanceof InterruptedError)?.interrupted;
  if (cut instanceof InterruptedError) throw cut;
  refuseConflicts(compared);
  const memory = clampMemory(rt);
  for (const c of compared) {
    for (const ch of c.comparison?.changes ?? []) {
      for (const f of ch.fields) {
        if (!memory.find(c.server.id, f.path, asText(f.declared), asText(f.live))) continue;
        f.clamped = true;
        rt.note(`${label(c.server)}: ${f.path} is clamped: the service stored ${asText(f.live)} when ${asText(f.declared)} was sent, so another apply cannot change it. ${clampNextStep(f.path, asText(f.live))}`);
      }
    }
  }
  const report = compared.map((c) => ({
    ...idsOf(c.server),
    file: c.server.file,
    in_sync: c.comparison ? c.comparison.changes.length === 0 : null,
    ...(c.comparison ? { changes: c.comparison.changes.map(changeView), not_compared: c.comparison.notCompared } : {}),
    ...(c.error ? { error: errorObject(c.error) } : {}),
  }));
  const missed = missing.map((m) => ({ server_id: null, server_name: m.ref, file: m.file, in_sync: null, error: noSuchServer(m) }));
  const all = [...report, ...missed];
  if (rt.format === 'table') await rt.out.show(diffRows(all), { columns: ['server', 'change', 'path', 'live', 'declared'] });
  else if (rt.format === 'markdown') rt.io.stdout.write((await import('./markdown.js')).diffMarkdown(all, rt.io.stdoutTTY ? visible : (x) => x));
  else await rt.out.show(all);
  const failed = all.filter((r) => r.error !== undefined);
  const drifted = report.filter((r) => r.in_sync === false);
  for (const f of failed) rt.warn(`${shownAs(f)}: could not be read, so not compared: ${f.error!.message}`);
  const servers = managed.filter((m) => !m.account).length;
  const targets = [...(servers || servers === managed.length ? [`${servers} server${servers === 1 ? '' : 's'}`] : []), ...(servers < managed.length ? ['the account'] : [])].join(' and ');
  rt.note(`${targets} compared: ${drifted.length} differ${failed.length ? `, ${failed.length} could not be read` : ''}.`);
  if (o.out !== undefined) {
    // A plan is exact or not made: a server not read would be a write it cannot name.
    if (failed.length) rt.warn(`No plan written: ${failed.length} server${failed.length === 1 ? '' : 's'} could not be read.`);
    else savePlan(rt, client, o.out, compared, prune);
  }
  return failed.length ? Exit.someFailed : drifted.length ? Exit.drift : Exit.ok;
}

function savePlan(rt: Runtime, client: ApiClient, path: string, compared: Compared[], prune: readonly string[]): void {
  const servers: PlannedServer[] = compared.filter((c) => c.comparison?.changes.length).map((c) => ({
    ...idsOf(c.server), file: c.server.file, kinds: c.server.kinds,
    declaration: c.server.decl, changes: c.comparison!.changes.map(plannedChange),
  }));
  const plan: SavedPlan = { format: PLAN_FORMAT, version: 1, created_at: new Date(rt.now()).toISOString(), base_url: client.baseUrl, prune: [...prune], replace: [], servers };
  writePlan(path, plan);
  const writes = servers.reduce((n, s) => n + s.changes.filter((c) => !c.held).length, 0);
  rt.note(`Plan written to ${path}: ${writes} write${writes === 1 ? '' : 's'} on ${servers.length} server${servers.length === 1 ? '' : 's'}. Apply exactly these with: gsh config apply --plan ${path}`);
}

function changeView(c: Change): Record<string, unknown> {
  return { kind: c.kind, action: c.action, item: c.item, fields: c.fields, ...(c.held ? { held: true } : {}), ...(c.reason ? { reason: c.reason } : {}) };
}

const cell = (v: unknown) => (v === null || v === undefined ? '-' : Array.isArray(v) ? v.join(',') : String(v));

function diffRows(all: Array<{ server_name: string | null; server_id: string | null; account?: true; error?: ErrorObject; in_sync: boolean | null; changes?: Array<Record<string, unknown>>; not_compared?: string[] }>): Array<Record<string, string>> {
  const rows: Array<Record<string, string>> = [];
  for (const r of all) {
    const server = shownAs(r);
    if (r.error !== undefined) {
      rows.push({ server, change: 'not read', path: '-', live: '-', declared: r.error.message });
      continue;
    }
    if (r.in_sync) rows.push({ server, change: 'in sync', path: '-', live: '-', declared: '-' });
    for (const c of r.changes ?? []) {
      const action = c.held ? `${String(c.action)} (held)` : String(c.action);
      for (const f of c.fields as Array<{ path: string; live: unknown; declared: unknown; clamped?: true }>) rows.push({ server, change: f.clamped ? `${action} (clamped)` : action, path: f.path, live: cell(f.live), declared: cell(f.declared) });
    }
    for (const p of r.not_compared ?? []) rows.push({ server, change: 'not compared', path: p, live: '(write-only)', declared: '(masked)' });
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// apply

export interface ApplyOptions extends SelectOptions, RolloutFlags {
  maxDeletes?: string;
  /** --plan PLAN: exactly a saved plan's writes. */
  plan?: string;
  replace?: string[];
}

type Status = 'applied' | 'clamped' | 'failed' | 'skipped' | 'unknown' | 'not_started' | 'in_sync';

interface ChangeResult {
  server_id: string | null;
  server_name: string | null;
  account?: true;
  kind: string | null;
  action: Change['action'] | null;
  item: string | null;
  status: Status;
  idempotency_key: string | null;
  /** clamped: what the service stored instead of what was sent, by path. */
  stored?: Record<string, string>;
  /** The shared error object (core/terminal/report.ts), as a fleet entry's. */
  error?: ErrorObject;
}

/** The fleet apply's servers run in: one target per server, each finished by running apply there again. */
function applyFleet(rt: Runtime, parallel: number, rollout: Rollout): FleetOptions {
  return { parallel, rollout, mutates: true, runsAgain: true, rest: (ids) => restCommand(rt.argv, ids) };
}

/** What every apply checks before its first request. */
function applyChecks(rt: Runtime, o: ApplyOptions): { parallel: number; maxDeletes: number; fleet: FleetOptions } {
  const parallel = parallelOption(o.parallel);
  const rollout = rolloutOf(o);
  const maxDeletes = o.maxDeletes === undefined ? 5 : Number(o.maxDeletes);
  if (!/^\d+$/.test(o.maxDeletes ?? '5')) throw new UsageError(`--max-deletes takes a whole number (got "${o.maxDeletes}")`);
  if (rt.globals.idempotencyKey !== undefined) throw new UsageError('--idempotency-key names one request; apply sends one per change', 'Leave it out: each change gets its own key, named in the output.');
  // The question is asked after the reads; whether it can be asked is known now (a usage error
  // never follows a request).
  if (!rt.dryRun && !rt.globals.yes && !rt.interactive) throw new UsageError('config apply changes servers: refusing without --yes when not interactive; nothing was sent', 'Re-run with --yes to confirm, or with --dry-run to see the writes first.');
  return { parallel, maxDeletes, fleet: applyFleet(rt, parallel, rollout) };
}

export async function runApply(rt: Runtime, o: ApplyOptions): Promise<number> {
  if (o.plan !== undefined) return runApplyPlan(rt, o, o.plan);
  const files = await loadDeclarations(rt, o.paths);
  onlyKinds(o.only);
  narrow(o.server);
  const prune = choiceList(o.prune, '--prune', PRUNABLE_NAMES, 'kinds') ?? [];
  const { parallel, maxDeletes, fleet } = applyChecks(rt, o);
  refuseCredentialSecrets(files.flatMap(secretVariablesOf), rt.env);
  const client = await rt.client();
  const select = await rolloutSelection(rt, fleet);
  const { managed: all, missing } = await managedServers(client, files, o);
  for (const url of o.replace ?? []) {
    if (!all.some((m) => KINDS.some((k) => m.decl.sections[k.name] !== undefined && k.replaceable?.(m.decl.sections[k.name]).includes(url)))) {
      throw new UsageError(`--replace ${url}: no file declares that item for the servers this run manages`, 'Give the identity (a webhook\'s URL) exactly as the file writes it.');
    }
  }
  // The shard's servers, less those a resumed journal shows done: only they are read.
  const managed = withAccount(all, select, fleet);
  const interrupts = watchInterrupts(rt);
  try {
    const compared = await compareAll(rt, client, managed, parallel, { prune, replace: o.replace ?? [], secrets: true }, () => interrupts.stopped() !== undefined);
    const results: ChangeResult[] = [];
    for (const m of missing) results.push({ server_id: null, server_name: m.ref, kind: null, action: null, item: null, status: 'failed', idempotency_key: null, error: noSuchServer(m) });
    for (const c of compared.filter((x) => x.error)) {
      results.push({ ...idsOf(c.server), kind: null, action: null, item: null, status: 'failed', idempotency_key: null, error: { ...errorObject(c.error), message: `nothing changed: ${why(c.error)}` } });
    }
    const cut = compared.find((c) => c.interrupted);
    if (cut) {
      if (cut.interrupted instanceof InterruptedError) interrupts.stop(cut.interrupted.signal);
      return await interruptedWhileReading(rt, compared, results, interrupts.stopped() ?? 'SIGINT');
    }
    refuseConflicts(compared);
    for (const r of results) rt.warn(`${shownAs(r)}: ${r.error?.message}`);
    const work = compared.filter((c) => c.comparison).map((c) => ({ server: c.server, changes: c.comparison!.changes.filter((ch) => !ch.held) }));
    for (const c of compared) for (const ch of c.comparison?.changes ?? []) if (ch.held && ch.reason) rt.note(`${inLine(label(c.server))}: ${inLine(ch.item)} ${reasonText(ch.reason)}`);
    const unread = new Map(compared.filter((c) => c.error).map((c) => [c.server.id, c.error as Error]));
    return await applyWork(rt, client, managed, work, results, { maxDeletes, interrupts, fleet, unread, listed: files.some((f) => !f.account) });
  } finally {
    interrupts.dispose();
  }
}

/**
 * apply --plan: the plan's servers read again (what its writes were computed from), compared
 * against the declarations it holds with secrets as placeholders, and the result held to the plan
 * write for write; any difference refuses it before a write (exit 6, stale_plan).
 */
async function runApplyPlan(rt: Runtime, o: ApplyOptions, path: string): Promise<number> {
  if (o.paths.length) throw new UsageError('--plan applies the writes the plan holds: give no PATHS', `gsh config apply --plan ${path}`);
  for (const [flag, v] of [['--only', o.only], ['--prune', o.prune], ['--replace', o.replace?.length ? o.replace : undefined]] as const) {
    if (v !== undefined) throw new UsageError(`${flag} does not combine with --plan: the plan fixed what is written`, 'Make another plan with gsh config diff … --out PLAN.');
  }
  const keep = narrow(o.server);
  const plan = readPlan(path);
  const { parallel, maxDeletes, fleet } = applyChecks(rt, o);
  refuseCredentialSecrets(plannedSecrets(plan).map((name) => ({ path, name })), rt.env);
  const missingSecrets = plannedSecrets(plan).filter((name) => !rt.env[name]);
  if (missingSecrets.length) throw new UsageError(`the plan's writes send ${missingSecrets.map((n) => `\${env:${n}}`).join(', ')}, which ${missingSecrets.length === 1 ? 'is' : 'are'} not set; nothing was sent`, 'Set it in the environment (a secret never sits in a plan), then apply the plan again.');
  const client = await rt.client();
  if (client.baseUrl !== plan.base_url) throw new UsageError(`the plan ${path} was made against ${plan.base_url}, not ${client.baseUrl}; nothing was sent`, 'Apply it with the same service (GSH_BASE_URL or the profile it was made with).');
  // -s narrows the plan to some of its servers (the fleet's rest line names them so), then the
  // shard and a resumed journal: each server's writes are still exactly the plan's.
  const select = await rolloutSelection(rt, fleet);
  const planned = plan.servers.filter((s) => !keep || (!s.account && keep({ id: s.server_id ?? '', ...(s.server_name !== null ? { name: s.server_name } : {}) })));
  if (keep && !planned.length) throw new UsageError(`-s matches none of the servers the plan ${path} writes`);
  const managed = withAccount(planned.map((s) => ({ id: s.server_id ?? '', ...(s.account ? { account: true as const } : {}), ...(s.server_name !== null ? { name: s.server_name } : {}), file: s.file, decl: s.declaration, kinds: s.kinds })), select, fleet);
  const changesOf = new Map(planned.map((s) => [s.server_id ?? '', s.changes]));
  const interrupts = watchInterrupts(rt);
  try {
    const compared = await compareAll(rt, client, managed, parallel, { prune: plan.prune, replace: plan.replace, secrets: false }, () => interrupts.stopped() !== undefined);
    const cut = compared.find((c) => c.interrupted);
    if (cut) {
      if (cut.interrupted instanceof InterruptedError) interrupts.stop(cut.interrupted.signal);
      return await interruptedWhileReading(rt, compared, [], interrupts.stopped() ?? 'SIGINT');
    }
    const unread = compared.filter((c) => c.error);
    if (unread.length) throw new GshError(`the plan cannot be checked: ${unread.map((c) => `${label(c.server)} (${why(c.error)})`).join('; ')}; nothing was written`, Exit.someFailed, `Apply the plan again once ${unread.length === 1 ? 'that server answers' : 'they answer'}.`);
    const stale = compared.flatMap((c) => staleness(label(c.server), changesOf.get(c.server.id)!, c.comparison!.changes));
    if (stale.length) throw stalePlanError(path, stale);
    const work = compared.map((c) => ({ server: c.server, changes: c.comparison!.changes.filter((ch) => !ch.held).map((ch) => resolveSecrets(ch, rt.env)) }));
    return await applyWork(rt, client, managed, work, [], { maxDeletes, interrupts, fleet, listed: false });
  } finally {
    interrupts.dispose();
  }
}

/** The ${env:NAME} names a plan's writes send. */
function plannedSecrets(plan: SavedPlan): string[] {
  const names = new Set<string>();
  for (const s of plan.servers) {
    for (const c of s.changes) {
      if (c.held || c.request.body === null || typeof c.request.body !== 'object') continue;
      for (const key of kindNamed(c.kind)?.writeOnly ?? []) {
        const v = (c.request.body as Record<string, unknown>)[key];
        const name = typeof v === 'string' ? ENV_REF.exec(v)?.[1] : undefined;
        if (name !== undefined) names.add(name);
      }
    }
  }
  return [...names];
}

/**
 * The servers the rollout selects (the shard, less what a resumed journal shows done), and the
 * account's target, which is not a server: it is written before the servers, by the first shard
 * alone (N runners writing one template each would create it N times); a rerun reads it again,
 * so a resumed run writes only what is left of it.
 */
function withAccount(all: Managed[], select: (targets: Managed[]) => Managed[], fleet: FleetOptions): Managed[] {
  const account = all.find((m) => m.account);
  const shard = fleet.rollout?.shard;
  return [...select(all.filter((m) => !m.account)), ...(account && (!shard || shard.k === 1) ? [account] : [])];
}

/** One server's part of an apply: the writes its comparison found (none when it is as declared). */
interface ServerWork {
  server: Managed;
  changes: Change[];
}

interface WorkOptions {
  maxDeletes: number;
  interrupts: ReturnType<typeof watchInterrupts>;
  fleet: FleetOptions;
  /** Servers that could not be read, with why: each is a target that fails (its row is in `results`). */
  unread?: ReadonlyMap<string, Error>;
  /** Whether the server listing was read (a server file was given; a plan names its servers). */
  listed: boolean;
}

/** The writes of one run, whatever planned them: the delete limit, keys, the dry run or the question, then each server's writes as a fleet target. */
async function applyWork(rt: Runtime, client: ApiClient, managed: Managed[], work: ServerWork[], results: ChangeResult[], o: WorkOptions): Promise<number> {
  const { maxDeletes, interrupts, fleet } = o;
  const deletes = work.reduce((n, w) => n + w.changes.filter((c) => c.spec.method === 'DELETE').length, 0);
  if (deletes > maxDeletes) {
    throw new GshError(`this run would delete ${deletes} items, more than --max-deletes ${maxDeletes}; nothing was changed`, Exit.error, `Check the plan with gsh config diff, then raise --max-deletes if that is what you mean.`);
  }
  const writes = work.flatMap((w) => w.changes);
  // Keys fixed now: the dry run shows them, and an interrupt names them.
  for (const ch of writes) ch.spec = await withIdempotencyKey(ch.spec);
  const servers = managed.filter((m) => !m.account);
  const reads = (o.listed ? 1 : 0) + readsOf(managed);
  // The fleet's lines (waves, the failure budget, the share) when several servers or a rollout flag make it one.
  const steps = servers.length > 1 || runsAsFleet(fleet.rollout) ? fleetSteps(servers, fleet.parallel, fleet.rollout) : [];
  if (rt.dryRun) return await dryRun(rt, work, writes, { count: reads, listed: o.listed }, results.length, steps);
  if (writes.length) {
    const { confirmDestructive } = await import('../core/run/confirm.js');
    const targets = work.filter((w) => w.changes.length);
    const count = targets.filter((w) => !w.server.account).length;
    const to = [...(count ? [`${count} server(s)`] : []), ...(count < targets.length ? ['the account'] : [])].join(' and ');
    await confirmDestructive(rt, `apply ${writes.length} change${writes.length === 1 ? '' : 's'} to ${to}${deletes ? `, ${deletes} of them deletes` : ''}`);
    estimate(rt, client, reads + writes.length, `This run reads and writes (${writes.length} writes)`, reads > (client.rateLimitState?.limit ?? Infinity));
  }
  const perServer = new Map<string, ChangeResult[]>();
  // What the service stored instead of what was sent (clamps.ts), and what it stored as sent.
  const clamps: Clamps = { seen: [], written: [] };
  const byId = new Map(work.map((w) => [w.server.id, w]));
  // A row per change, as a run on one server prints: those a server not started would have made, not_started.
  const rows = () => [...results, ...work.flatMap((w) => perServer.get(w.server.id) ?? w.changes.map((ch): ChangeResult => ({ ...idsOf(w.server), kind: ch.kind, action: ch.action, item: ch.item, status: 'not_started', idempotency_key: null })))];
  let fleetExit: number = Exit.ok;
  const accountWork = work.find((w) => w.server.account);
  await rt.submit({ requests: writes.map((c) => c.spec), then: [] }, async () => {
    if (accountWork) {
      const done: ChangeResult[] = [];
      perServer.set(accountWork.server.id, done);
      await applyServer(rt, client, accountWork, done, interrupts, clamps);
    }
    // Stopped during the account's writes, or no server to run on: the rows are shown here, every server's not_started.
    if (interrupts.stopped() || !servers.length) return void (await show(rt, rows()));
    fleetExit = await runFleet(rt, servers, { ...fleet, show: () => show(rt, rows()) }, async (target) => {
      const failed = o.unread?.get(target.id);
      if (failed) throw failed;
      const w = byId.get(target.id) as ServerWork;
      const done: ChangeResult[] = [];
      perServer.set(target.id, done);
      await applyServer(rt, client, w, done, interrupts, clamps);
      return serverOutcome(done, interrupts.stopped());
    });
  });
  rememberClamps(rt, clamps.seen, clamps.written);
  const all = rows();
  const applied = all.filter((r) => r.status === 'applied').length;
  const stopped = interrupts.stopped() ?? (fleetExit === Exit.interrupted ? 'SIGINT' : fleetExit === Exit.terminated ? 'SIGTERM' : undefined);
  if (stopped) {
    const unknown = all.filter((r) => r.status === 'unknown');
    rt.note(`${stopped === 'SIGINT' ? 'Interrupted' : 'Terminated'}: ${applied} change${applied === 1 ? '' : 's'} applied${unknown.length ? `, ${unknown.length} may have been (${unknown.map((u) => `${shownAs(u)} ${u.item} key ${u.idempotency_key}`).join('; ')})` : ''}. Run the same gsh config apply again: it reads again and makes only what is left.`);
    return stopped === 'SIGINT' ? Exit.interrupted : Exit.terminated;
  }
  if (!writes.length) {
    rt.note(`Nothing to apply: ${work.length} server${work.length === 1 ? ' is' : 's are'} as declared${work.length ? ` (${work.map((w) => named(w.server)).join(', ')})` : ''}${results.length ? `; ${results.length} could not be compared` : ''}.`);
    return results.length ? Exit.someFailed : Exit.ok;
  }
  const bad = all.filter((r) => r.status !== 'applied');
  const clamped = all.filter((r) => r.status === 'clamped').length;
  rt.note(`${applied} change${applied === 1 ? '' : 's'} applied${clamped ? `, ${clamped} clamped (stored otherwise than declared)` : ''}${bad.length - clamped ? `, ${bad.length - clamped} not (failed, skipped or unknown)` : ''}. No restart was made: a running server reads some values only when it starts.`);
  return bad.length ? Exit.someFailed : Exit.ok;
}

type Clamps = { seen: Parameters<typeof rememberClamps>[1]; written: Parameters<typeof rememberClamps>[2] };

/**
 * A server's fleet result from its changes: a success when every one was applied; otherwise a
 * failure (the failure budget counts it; an interrupt's when the signal stopped it) whose outcome
 * says whether any change acted. Each change's own key is in the rows, not here.
 */
function serverOutcome(done: readonly ChangeResult[], stopped: 'SIGINT' | 'SIGTERM' | undefined): { summary: string } {
  const bad = done.filter((r) => r.status !== 'applied');
  const summary = `${done.length - bad.length} of ${done.length} change${done.length === 1 ? '' : 's'} applied`;
  if (!bad.length) return { summary };
  const err = stopped ? new InterruptedError(stopped) : new GshError(`${summary}; not: ${bad.map((r) => `${r.item} (${r.status})`).join(', ')}`, Exit.someFailed);
  err.outcome = done.some((r) => r.status === 'unknown') ? 'unknown' : done.some((r) => r.status === 'applied' || r.status === 'clamped') ? 'applied' : 'not_applied';
  throw err;
}

/** A reason in words (it explains; the decision is the change's `held`). */
export function reasonText(r: Reason): string {
  switch (r.code) {
    case 'prune_not_requested': return `kept: apply deletes it only with ${r.flag}`;
    case 'replace_requested': return 'deleted and created again, as --replace asks';
  }
}

/** `lobby (3f2a9c1e)`: a server by name beside its id. */
const named = (s: Server) => (s.account ? 'the account' : s.name ? `${s.name} (${s.id})` : s.id);

/**
 * --dry-run: the writes it would send, each server named beside its id, and what was sent to
 * find them (the listing and the reads); exit 14 while changes are pending, as diff.
 */
async function dryRun(rt: Runtime, work: ServerWork[], writes: Change[], { count: reads, listed }: { count: number; listed: boolean }, unread: number, fleet: Step[]): Promise<number> {
  for (const w of work.filter((x) => !x.server.account)) rt.references.push({ ref: w.server.name ?? w.server.id, is: w.server.name ? 'name' : 'id', servers: [{ id: w.server.id, ...(w.server.name ? { name: w.server.name } : {}) }] });
  const count = work.filter((w) => !w.server.account).length;
  const servers = count === 1 ? '1 server' : `${count} servers`;
  const read = [...(count ? [`${listed ? 'the server listing and ' : ''}the declared kinds of ${servers}`] : []), ...(count < work.length ? ['the account\'s declared kinds'] : [])].join('; ');
  const sent = { requests: reads, description: `the ${reads === 1 ? 'read that found' : `${reads} reads that found`} the changes (${read})` };
  if (!writes.length) rt.note(`Nothing to apply: ${work.length} server${work.length === 1 ? ' is' : 's are'} as declared${work.length ? ` (${work.map((w) => named(w.server)).join(', ')})` : ''}.`);
  await rt.submit({ requests: writes.map((c) => c.spec), then: fleet, sent }, async () => {});
  return unread ? Exit.someFailed : writes.length ? Exit.drift : Exit.ok;
}

/** Ctrl-C / SIGTERM while reading: nothing was written; every target is listed (-o json too), with what it was waiting for. */
async function interruptedWhileReading(rt: Runtime, compared: Compared[], results: ChangeResult[], signal: 'SIGINT' | 'SIGTERM'): Promise<number> {
  for (const c of compared) {
    const base = { ...idsOf(c.server), idempotency_key: null };
    if (c.interrupted) results.push({ ...base, kind: null, action: null, item: null, status: 'not_started', error: problem('not read: interrupted first', 'not_read', signal === 'SIGINT' ? Exit.interrupted : Exit.terminated) });
    else if (c.comparison && !c.comparison.changes.length) results.push({ ...base, kind: null, action: null, item: null, status: 'in_sync' });
    else for (const ch of (c.comparison?.changes ?? []).filter((x) => !x.held)) results.push({ ...base, kind: ch.kind, action: ch.action, item: ch.item, status: 'not_started' });
  }
  await show(rt, results);
  const read = compared.filter((c) => !c.interrupted).length;
  rt.note(`${signal === 'SIGINT' ? 'Interrupted' : 'Terminated'} while reading: ${read} of ${compared.length} servers read, nothing written. Run the same gsh config apply again.`);
  return signal === 'SIGINT' ? Exit.interrupted : Exit.terminated;
}

/** One server's writes, in order, each with its key and outcome, into `done`; a failed write skips what depends on it. */
async function applyServer(rt: Runtime, client: ApiClient, { server, changes }: ServerWork, done: ChangeResult[], interrupts: ReturnType<typeof watchInterrupts>, clamps: Clamps): Promise<void> {
  const created = new Map<number, string>();
  for (const [i, ch] of changes.entries()) {
    const base = { ...idsOf(server), kind: ch.kind, action: ch.action, item: ch.item, idempotency_key: ch.spec.idempotencyKey ?? null };
    if (interrupts.stopped()) {
      done.push({ ...base, status: 'not_started', idempotency_key: null });
      continue;
    }
    const dep = ch.after === undefined ? undefined : done[ch.after];
    if (dep && dep.status !== 'applied') {
      done.push({ ...base, status: 'skipped', idempotency_key: null, error: problem(`skipped: it needs ${dep.action} ${dep.item}, which was not applied`, 'dependency_not_applied', Exit.someFailed) });
      continue;
    }
    const spec = ch.pathFromCreated && ch.after !== undefined ? { ...ch.spec, path: ch.pathFromCreated(created.get(ch.after) ?? '') } : ch.spec;
    const tracker = new OutcomeTracker();
    try {
      const res = await trackOutcomes(tracker, () => client.request<{ data?: Record<string, unknown> }>(spec));
      const data = res.body?.data;
      if (ch.action === 'create' && data && typeof data === 'object' && data.id !== undefined) created.set(i, String(data.id));
      const stored = storedValues(ch, data);
      const clamped = stored ? ch.fields.filter((f) => stored.has(f.path) && stored.get(f.path) !== asText(f.declared)) : [];
      for (const f of ch.fields) {
        if (clamped.includes(f)) clamps.seen.push({ serverId: server.id, path: f.path, sent: asText(f.declared), stored: stored!.get(f.path)! });
        else clamps.written.push({ serverId: server.id, path: f.path });
      }
      if (clamped.length) {
        done.push({ ...base, status: 'clamped', stored: Object.fromEntries(clamped.map((f) => [f.path, stored!.get(f.path)!])) });
        for (const f of clamped) rt.warn(`${label(server)}: ${f.path} was sent as ${asText(f.declared)} and stored as ${stored!.get(f.path)} (clamped: the service keeps it within this server's plan). ${clampNextStep(f.path, stored!.get(f.path)!)}`);
      } else done.push({ ...base, status: 'applied' });
    } catch (caught) {
      const err = ownError(caught);
      const outcome = (err instanceof GshError ? err.outcome : undefined) ?? tracker.last?.outcome ?? 'not_applied';
      if (err instanceof InterruptedError) {
        interrupts.stop(err.signal);
        done.push({ ...base, status: outcome === 'applied' ? 'applied' : outcome === 'unknown' ? 'unknown' : 'not_started', ...(outcome === 'not_applied' ? { idempotency_key: null } : {}) });
        continue;
      }
      done.push({ ...base, status: outcome === 'applied' ? 'applied' : outcome === 'unknown' ? 'unknown' : 'failed', error: { ...errorObject(err), message: why(err), outcome, idempotency_key: outcome === 'not_applied' ? null : (ch.spec.idempotencyKey ?? null) } });
    }
  }
}

/** What to do about a clamp: the file, not another apply, has to change. */
export function clampNextStep(path: string, stored: string): string {
  return `Declare ${stored} (gsh config adopt takes it into the file), add ignore: [${path}], or move the server to a plan that allows more.`;
}

async function show(rt: Runtime, results: ChangeResult[]): Promise<void> {
  // A table shows the error's message; data formats the whole object.
  const rows = rt.format === 'table' ? results.map((r) => ({ ...r, error: r.error?.message })) : results;
  await rt.out.show(rows, { columns: ['status', 'server_name', 'kind', 'action', 'item', 'idempotency_key', 'error'] });
}
