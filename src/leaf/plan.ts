import { fillTemplate, type Leaf } from '../operations/leaves.js';
import type { Operation } from '../operations/types.js';
import { UsageError } from '../core/errors.js';
import { type StdinText, stdinFor } from '../core/flags/fields.js';
import { type RequestSpec, withIdempotencyKey } from '../core/wire/http.js';
import type { Runtime } from '../core/run/runtime.js';
import type { Draft, Local, OperationPlan } from './feature.js';
import { FEATURES } from './features/index.js';

// Planning a registry leaf: flags, arguments and stdin become the one request it sends and the
// steps after it, each operation feature (features/) adding its part. Every check happens here;
// the only request planning may send is the lookup that turns a server name into an id.

export function fillPath(op: Operation, values: Record<string, string>): string {
  return fillTemplate(op.path, (name) => {
    const v = values[name];
    if (v === undefined) throw new UsageError(`missing ${name}`);
    return v;
  });
}

/**
 * Plans one run of a leaf. `target` is a server already resolved (a fleet plans once per
 * target, from the stdin it read once); without it the one server the command names is
 * resolved here.
 */
export async function planOperation(rt: Runtime, leaf: Leaf, local: Local, args: readonly string[], target?: { id: string; stdin: StdinText }): Promise<OperationPlan> {
  const { op } = leaf;
  const stdin = target?.stdin ?? (await stdinFor(Object.values(local), () => rt.ctx.stdin));
  const d: Draft = {
    rt, leaf, local, args, stdin, ...(target ? { target: { id: target.id } } : {}),
    query: {}, params: {}, follow: false, before: [], after: [], then: [], state: {},
  };
  for (const f of FEATURES) await f.values?.(d);
  for (const f of FEATURES) await f.targets?.(d);

  // Everything typed is checked; from here on only the server-name lookup may be sent.
  const client = await rt.client({ anonymous: op.auth === 'none' });
  let remembered: string | undefined;
  let confirmId: (() => void) | undefined;
  if (d.serverRef !== undefined && target) d.params.server_id = target.id;
  else if (d.serverRef !== undefined) {
    // A reference no name matches is checked as an id before anything is sent, unless the
    // command's own request is that check (`servers get`); a dry run checks it to say what it is.
    const ownRequestChecks = !rt.dryRun && op.method === 'GET' && op.path === '/servers/{server_id}';
    const { resolveRemembered } = await import('../core/fleet/server-cache.js');
    const resolved = await resolveRemembered(rt, client, d.serverRef, { ownRequestChecks });
    d.params.server_id = resolved.id;
    if (resolved.remembered) remembered = d.serverRef;
    confirmId = resolved.confirm;
  }
  let spec: RequestSpec = {
    method: op.method,
    path: fillPath(op, d.params),
    query: d.query,
    body: d.body,
    auth: op.auth !== 'none',
    idempotencyKey: rt.globals.idempotencyKey,
  };
  for (const f of FEATURES) if (f.spec) spec = f.spec(d, spec);
  spec = await withIdempotencyKey(spec);
  for (const f of FEATURES) await f.request?.(d);
  let planned: OperationPlan = {
    leaf, local, client, spec, params: d.params, follow: d.follow, state: d.state,
    plan: { requests: [...d.before, spec, ...d.after], then: d.then },
    ...(d.confirm ? { confirm: d.confirm } : {}),
    ...(remembered !== undefined ? { remembered } : {}), ...(confirmId ? { confirmId, unchecked: d.serverRef as string } : {}),
  };
  for (const f of FEATURES) if (f.refine) planned = await f.refine(planned, rt);
  return planned;
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
  const { remembered: _done, confirmId: _tried, unchecked: _ref, ...plan } = p;
  return { ...plan, params, spec };
}
