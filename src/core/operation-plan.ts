import type { Field, Operation } from '../operations/types.js';
import { fillTemplate, type Leaf, needsServer, pathParams } from '../operations/leaves.js';
import { CHECKS, pathIdProblem } from './checks.js';
import type { DownloadTarget } from './download.js';
import { UsageError } from './errors.js';
import { type JsonObject, parseFields, readInputBody, type StdinText, stdinFor } from './fields.js';
import { type ApiClient, type QueryValue, type RequestSpec, withIdempotencyKey } from './http.js';
import { type Plan, step, type Step } from './plan.js';
import type { Runtime } from './runtime.js';
import { MAX_PAGE } from './paging.js';
import { resolveRemembered } from './server-cache.js';
import { singleRef, targetRefs } from './targets.js';
import { convertField, flagName, optionKey, readSecretFlag } from './values.js';

// Planning a registry leaf: flags, arguments and stdin become the one request it sends and the
// steps after it. Every check happens here; the only request planning may send is the lookup
// that turns a server name into an id.

type Local = Record<string, unknown>;

export interface OperationPlan {
  plan: Plan;
  leaf: Leaf;
  client: ApiClient;
  spec: RequestSpec;
  params: Record<string, string>;
  paging: { limit?: number; offset?: number; all: boolean };
  follow: boolean;
  /** Asked on a terminal before sending (the contract's destructive operations). */
  confirm?: string;
  /** --if-absent: the listing that must not already hold `value` at `field`. */
  ifAbsent?: { lookup: RequestSpec; field: string; value: unknown };
  /** --to on an answer that is a signed URL: where its bytes go. */
  download?: DownloadTarget;
  /** The server reference as typed, when its id came from the cache (a 404 looks it up again). */
  remembered?: string;
  /** The reference matched no name and is tried as an id: remember it once the service answers. */
  confirmId?: () => void;
}

/** Declared query/body fields from the parsed flags, converted and checked. */
function declaredValues(fields: readonly Field[] | undefined, local: Local, stdin: StdinText, skip?: string, inBody = false): JsonObject {
  const out: JsonObject = {};
  for (const f of fields ?? []) {
    if (f.name === skip) continue;
    const raw = local[optionKey(f)];
    const value = f.secret ? readSecretFlag(f, raw, stdin) : convertField(f, raw, stdin, inBody);
    if (value !== undefined) out[f.name] = value;
    else if (f.required) throw new UsageError(`--${flagName(f)} is required`);
  }
  return out;
}

function wholeNumber(raw: unknown, flag: string, min: number): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!/^\d+$/.test(String(raw).trim()) || !Number.isInteger(n) || n < min) {
    throw new UsageError(`${flag} takes a whole number of at least ${min} (got "${String(raw)}")`);
  }
  return n;
}

export function fillPath(op: Operation, values: Record<string, string>): string {
  return fillTemplate(op.path, (name) => {
    const v = values[name];
    if (v === undefined) throw new UsageError(`missing ${name}`);
    return v;
  });
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

function planBody(op: Operation, verb: string | undefined, local: Local, stdin: StdinText): JsonObject | undefined {
  if (!BODY_METHODS.has(op.method)) return undefined;
  const base = local.input !== undefined ? readInputBody(String(local.input), stdin) : {};
  if (base === null || typeof base !== 'object' || Array.isArray(base)) throw new UsageError('--input must hold a JSON object');
  const body = { ...(base as JsonObject), ...declaredValues(op.body, local, stdin, op.verbs?.field, true) };
  parseFields({ raw: local.rawField as string[] | undefined, typed: local.field as string[] | undefined, readStdin: () => stdin.take() }, body);
  if (op.verbs && verb) body[op.verbs.field] = verb;
  return body;
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

function pathValues(op: Operation, args: readonly string[]): Record<string, string> {
  const params: Record<string, string> = {};
  (op.params ?? []).forEach((p, i) => {
    const value = args[i] as string;
    const problem = value === undefined ? undefined : pathIdProblem(value, p.check === 'absolute-path') ?? (p.check ? CHECKS[p.check](value) : undefined);
    if (problem) throw new UsageError(`<${p.name.replace(/_/g, '-')}> ${problem} (got "${value}")`);
    params[p.name] = value;
  });
  const names = (op.params ?? []).map((p) => p.name);
  const missing = pathParams(op.path).filter((p) => p !== 'server_id' && !names.includes(p));
  if (missing.length) throw new Error(`registry: ${op.path} does not declare ${missing.join(', ')}`);
  return params;
}

/** What follows the request, in words a reviewer of a dry run can check. */
function followingSteps(rt: Runtime, p: Omit<OperationPlan, 'plan'>): Step[] {
  const steps: Step[] = [];
  if (p.confirm) steps.push(step('confirm', rt.globals.yes ? `${p.confirm}: confirmed by --yes` : `ask "${p.confirm}? [y/N]" on the terminal (--yes confirms)`));
  if (p.paging.all) steps.push(step('page', 'fetch every further page (4 at a time, in order)'));
  const wait = p.leaf.op.wait;
  if (p.follow && wait) {
    const what = wait.kind === 'job' ? `the job (${wait.poll})` : wait.kind === 'backup' ? `the backup (${wait.poll}) until its answer says it finished (a status, or completed_at)` : wait.kind === 'server-status' ? 'the server status' : wait.kind === 'init' ? 'the provisioning job' : `the ${wait.kind}`;
    steps.push(step('wait', `follow ${what} until it ends, for at most ${rt.waitLimitMs / 1000} s (--timeout)`));
  }
  return steps;
}

/**
 * Plans one run of a leaf. `target` is a server already resolved (a fleet plans once per
 * target, from the stdin it read once); without it the one server the command names is
 * resolved here.
 */
export async function planOperation(rt: Runtime, leaf: Leaf, local: Local, args: string[], target?: { id: string; stdin: StdinText }): Promise<OperationPlan> {
  const { op, verb } = leaf;
  const stdin = target?.stdin ?? (await stdinFor(Object.values(local), () => rt.ctx.stdin));
  const query = declaredValues(op.query, local, stdin) as Record<string, QueryValue>;
  const body = planBody(op, verb, local, stdin);
  const limit = wholeNumber(local.limit, '--limit', 1);
  const offset = wholeNumber(local.offset, '--offset', 0);
  const page = wholeNumber(local.page, '--page', 1);
  if (local.all && offset !== undefined) throw new UsageError('--all fetches every page from the first; leave out --offset');
  if (page !== undefined) query.page = page;
  // Loaded only by the operations that answer with a signed URL.
  const dl = op.signedUrl ? await import('./download.js') : undefined;
  const download = dl?.planTarget(local.to as string | undefined, local.clobber === true);
  await lintManifests(rt, op, local, body);
  const params = pathValues(op, args);
  const serverRef = needsServer(op) ? (target?.id ?? singleServer(op, local, args, rt.env)) : undefined;

  const destructiveFields = (op.body ?? []).filter((f) => f.destructive && body?.[f.name] === true);
  let confirm: string | undefined;
  if (op.destructive || destructiveFields.length) {
    const where = serverRef !== undefined ? ` on server ${serverRef}` : args.length ? ` ${args.join(' ')}` : '';
    const extra = destructiveFields.length ? ` with ${destructiveFields.map((f) => `--${flagName(f)}`).join(' ')}` : '';
    confirm = `Run "gsh ${leaf.words.join(' ')}"${extra}${where}`;
    if (!rt.globals.yes && !rt.interactive && !rt.dryRun) {
      throw new UsageError(`${confirm}: refusing without --yes when not interactive`, 'Re-run with --yes to confirm.');
    }
  }

  // Everything typed is checked; from here on only the server-name lookup may be sent.
  const client = await rt.client({ anonymous: op.auth === 'none' });
  let remembered: string | undefined;
  let confirmId: (() => void) | undefined;
  if (serverRef !== undefined && target) params.server_id = target.id;
  else if (serverRef !== undefined) {
    const resolved = await resolveRemembered(rt, client, serverRef);
    params.server_id = resolved.id;
    if (resolved.remembered) remembered = serverRef;
    confirmId = resolved.confirm;
  }
  const spec = await withIdempotencyKey({
    method: op.method,
    path: fillPath(op, params),
    query,
    ...(op.form && body ? { form: formValues(body) } : { body }),
    auth: op.auth !== 'none',
    idempotencyKey: rt.globals.idempotencyKey,
    ...(op.raw ? { headers: { accept: '*/*' }, binary: true } : {}),
  });
  const paging = { ...(limit === undefined ? {} : { limit }), ...(offset === undefined ? {} : { offset }), all: local.all === true };
  const ifAbsent = local.ifAbsent === true ? absentCheck(op, params, body) : undefined;
  const planned = {
    leaf, client, spec: pagedSpec(op, spec, paging), params, paging, follow: local.wait === true && op.wait !== undefined,
    ...(confirm ? { confirm } : {}), ...(ifAbsent ? { ifAbsent } : {}), ...(download ? { download } : {}),
    ...(remembered !== undefined ? { remembered } : {}), ...(confirmId ? { confirmId } : {}),
  };
  const lookup = ifAbsent ? [ifAbsent.lookup] : [];
  const first = ifAbsent ? [step('local', `send the next request only if no item of ${ifAbsent.lookup.path} has ${ifAbsent.field} ${JSON.stringify(ifAbsent.value)}`)] : [];
  // The signed URL is known only from the answer: the plan names its GET with a placeholder.
  const fetch = dl && download ? [dl.fetchSpec(dl.SIGNED_URL)] : [];
  const transfer = dl && download ? [step('transfer', dl.describeTarget(download, String(local.to)))] : [];
  return { ...planned, plan: { requests: [...lookup, planned.spec, ...fetch], then: [...first, ...followingSteps(rt, planned), ...transfer] } };
}

/**
 * Manifests in the body are linted at the caps they will be held to before anything is sent: the
 * tier the body names (a server's plan), or free, the stricter, when it names none.
 */
async function lintManifests(rt: Runtime, op: Operation, local: Local, body: JsonObject | undefined): Promise<void> {
  if (local.lint === false || !body) return;
  for (const f of (op.body ?? []).filter((x) => x.manifest && typeof body[x.name] === 'string')) {
    // An overlay alone is not a manifest (it may leave out `version`): the service checks it merged.
    if (f.manifest!.overlayWith !== undefined && body[f.manifest!.overlayWith] !== undefined) continue;
    const named = body[f.manifest!.tierFrom];
    const tier = named === 'paid' ? 'paid' : 'free';
    const file = String(local[optionKey(f)]);
    if (named === undefined) rt.note(`linting ${file} at the free caps: no ${f.manifest!.tierFrom} given (free is the stricter; -f ${f.manifest!.tierFrom}=paid for a paid server)`);
    const { lintBeforeSending } = await import('./manifest-lint.js');
    await lintBeforeSending(rt, file, Buffer.from(body[f.name] as string), tier, named === undefined ? 'used when no plan is given' : `of the ${tier} plan it creates`);
  }
}

/** --if-absent: the listing to look in, and the value that must not be there yet. */
function absentCheck(op: Operation, params: Record<string, string>, body: JsonObject | undefined): OperationPlan['ifAbsent'] {
  if (!op.ifAbsent) return undefined;
  const { list, field } = op.ifAbsent;
  const value = body?.[field];
  if (value === undefined || value === null || value === '') {
    throw new UsageError(`--if-absent looks for an existing one by ${field}; give it (-f ${field}=… or its flag)`);
  }
  return { lookup: { method: 'GET', path: fillTemplate(list, (name) => params[name] ?? '') }, field, value };
}

/**
 * The same plan on another server id (a remembered id the service answered 404 for, looked up
 * again): its path filled anew, and a fresh Idempotency-Key unless the user gave one, since the
 * key of the first request belongs to that request.
 */
export async function retarget(rt: Runtime, p: OperationPlan, serverId: string): Promise<OperationPlan> {
  const params = { ...p.params, server_id: serverId };
  const { idempotencyKey: _first, ...rest } = p.spec;
  const spec = await withIdempotencyKey({ ...rest, path: fillPath(p.leaf.op, params), idempotencyKey: rt.globals.idempotencyKey });
  const { remembered: _done, confirmId: _tried, ...plan } = p;
  return { ...plan, params, spec };
}

/** The server argument of commands whose object is the server (`gsh servers get lobby`). */
export function serverArgument(op: Operation, args: readonly string[]): string | undefined {
  return op.serverArgument ? args[(op.params ?? []).length] : undefined;
}

/** The one server reference of a single-server run (several go through the fleet runner). */
function singleServer(op: Operation, local: Local, args: readonly string[], env: NodeJS.ProcessEnv): string {
  const ref = singleRef(targetRefs(local.server as string[] | undefined, serverArgument(op, args), env));
  if (ref === undefined) throw new Error('several servers reached the single-server plan');
  return ref;
}

/** The first page's request carries the limit and offset it will be sent with. */
function pagedSpec(op: Operation, spec: RequestSpec, paging: OperationPlan['paging']): RequestSpec {
  if (op.paging !== 'offset') return spec;
  // With --all, --limit is the page size (the service clamps it to 100 and echoes what it used).
  const limit = paging.all ? (paging.limit ?? MAX_PAGE) : paging.limit;
  const offset = paging.all ? 0 : paging.offset;
  return { ...spec, query: { ...spec.query, ...(limit === undefined ? {} : { limit }), ...(offset === undefined ? {} : { offset }) } };
}
