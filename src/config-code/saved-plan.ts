// Saved plans (README "Configuration as code"): `gsh config diff PATHS --out PLAN` writes the
// exact writes and the live values they were computed from, as terraform's `plan -out`;
// `gsh config apply --plan PLAN` re-reads what they depend on and makes exactly those writes, or
// refuses a stale plan (exit 6, code stale_plan) naming what changed. A plan can be a CI artefact:
// secrets stand in it only as the file's ${env:NAME} placeholders (hashicorp/terraform#34297),
// resolved from the environment when the plan is applied.

import { readFileSync } from 'node:fs';
import { createFile, replaceFile } from '../core/disk/disk.js';
import { Exit, GshError, UsageError } from '../core/errors.js';
import type { RequestSpec } from '../core/request-spec.js';
import type { Declaration } from './files.js';
import { asText, type Change, ENV_REF } from './kind.js';
import { kindNamed } from './kinds/index.js';

export const PLAN_FORMAT = 'gsh-config-plan';

export interface PlannedChange {
  kind: string;
  action: Change['action'];
  item: string;
  /** Each with the live value the write was computed from. */
  fields: Change['fields'];
  request: { method: string; path: string; body?: unknown };
  after?: number;
  held?: true;
  reason?: Change['reason'];
}

export interface PlannedServer {
  /** null for the account's target (`account: true`). */
  server_id: string | null;
  server_name: string | null;
  account?: true;
  file: string;
  kinds: string[];
  /** What the file declares for it (secrets as their placeholders): what apply re-compares against. */
  declaration: Declaration;
  changes: PlannedChange[];
}

export interface SavedPlan {
  format: typeof PLAN_FORMAT;
  version: 1;
  created_at: string;
  /** The service the plan was read from: applying it elsewhere is refused. */
  base_url: string;
  prune: string[];
  replace: string[];
  servers: PlannedServer[];
}

export function plannedChange(c: Change): PlannedChange {
  return {
    kind: c.kind, action: c.action, item: c.item, fields: c.fields,
    request: { method: c.spec.method, path: c.spec.path, ...(c.spec.body !== undefined ? { body: c.spec.body } : {}) },
    ...(c.after !== undefined ? { after: c.after } : {}),
    ...(c.held ? { held: true as const } : {}),
    ...(c.reason ? { reason: c.reason } : {}),
  };
}

/** A secret that is not a placeholder has no place in a plan (a guard: the comparison never resolves them for one). */
function assertNoSecret(plan: SavedPlan): void {
  for (const s of plan.servers) {
    for (const c of s.changes) {
      const body = c.request.body;
      const kind = kindNamed(c.kind);
      if (!kind || body === null || typeof body !== 'object') continue;
      for (const key of kind.writeOnly) {
        const v = (body as Record<string, unknown>)[key];
        if (v !== undefined && !(typeof v === 'string' && ENV_REF.test(v))) throw new Error(`config-code: a plan would hold ${c.item}.${key}`);
      }
    }
  }
}

/**
 * Writes the plan through the disk door: created, or replaced only when what stands there is a
 * plan too (a file of the user's that is not one is never overwritten).
 */
export function writePlan(path: string, plan: SavedPlan): void {
  assertNoSecret(plan);
  const text = `${JSON.stringify(plan, null, 2)}\n`;
  let existing: string | undefined;
  try {
    existing = readFileSync(path, 'utf8');
  } catch {
    existing = undefined;
  }
  try {
    if (existing === undefined) createFile(path, text, { mode: 0o600 });
    else if (isPlanText(existing)) replaceFile(path, text, { mode: 0o600 });
    else throw new UsageError(`${path} exists and is not a gsh config plan; not replacing it`, 'Give --out a new file name (or the name of an earlier plan).');
  } catch (err) {
    if (err instanceof GshError) throw err;
    throw new GshError(`cannot write ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

function isPlanText(text: string): boolean {
  try {
    return (JSON.parse(text) as { format?: unknown }).format === PLAN_FORMAT;
  } catch {
    return false;
  }
}

export function readPlan(path: string): SavedPlan {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
  let plan: SavedPlan;
  try {
    plan = JSON.parse(text) as SavedPlan;
  } catch {
    throw new UsageError(`${path} is not a gsh config plan (not JSON)`, 'Make one with gsh config diff PATHS --out PLAN.');
  }
  if (plan?.format !== PLAN_FORMAT || plan.version !== 1 || !Array.isArray(plan.servers)) throw new UsageError(`${path} is not a gsh config plan of this version`, 'Make one with gsh config diff PATHS --out PLAN.');
  for (const s of plan.servers) {
    if ((typeof s?.server_id !== 'string' && !(s?.account === true && s.server_id === null)) || !Array.isArray(s.kinds) || !Array.isArray(s.changes) || !s.declaration || typeof s.declaration.sections !== 'object') throw new UsageError(`${path}: a server entry is damaged`);
    for (const k of s.kinds) if (!kindNamed(k)) throw new UsageError(`${path}: unknown kind "${k}"`);
  }
  return plan;
}

/**
 * What differs between the planned writes of one server and the ones computed now from a fresh
 * read (both with secrets as placeholders): one line per difference, empty when the plan holds.
 */
export function staleness(label: string, planned: readonly PlannedChange[], now: readonly Change[]): string[] {
  const out: string[] = [];
  const key = (c: { item: string; action: string; request?: { method: string }; spec?: RequestSpec }) => `${c.item} ${c.action} ${c.request?.method ?? c.spec?.method}`;
  const current = new Map(now.map((c) => [key(c), c]));
  const wanted = new Set(planned.map((p) => key(p)));
  for (const p of planned) {
    const c = current.get(key(p));
    if (!c) {
      const was = p.fields.map((f) => `${f.path} was ${show(f.live)}`).join(', ');
      out.push(`${label}: ${p.action} ${p.item} is no longer what the files need (${was} when planned)`);
      continue;
    }
    const live = new Map(c.fields.map((f) => [f.path, f.live]));
    for (const f of p.fields) {
      if (!live.has(f.path)) out.push(`${label}: ${f.path} was ${show(f.live)} when planned; it now needs no write`);
      else if (asText(live.get(f.path)) !== asText(f.live)) out.push(`${label}: ${f.path} was ${show(f.live)} when planned, is ${show(live.get(f.path))} now`);
    }
    if (c.spec.path !== p.request.path) out.push(`${label}: ${p.item} is at ${c.spec.path} now, not ${p.request.path}`);
    else if (JSON.stringify(c.spec.body ?? null) !== JSON.stringify(p.request.body ?? null) && !out.length) out.push(`${label}: ${p.item}'s write is not the planned one any more`);
    if (!!c.held !== !!p.held) out.push(`${label}: ${p.item} is ${c.held ? 'held' : 'made'} now, not as planned`);
  }
  for (const c of now) if (!wanted.has(key(c))) out.push(`${label}: ${c.action} ${c.item} is needed now and is not in the plan (${c.fields.map((f) => `${f.path} is ${show(f.live)}`).join(', ')})`);
  return out;
}

const show = (v: unknown) => (v === null || v === undefined ? 'absent' : JSON.stringify(v));

/** Refused: nothing was written. */
export function stalePlanError(path: string, lines: readonly string[]): GshError {
  const err = new GshError(`the plan ${path} is stale: ${lines.length === 1 ? lines[0] : `${lines.length} things changed since it was made:\n  ${lines.join('\n  ')}`}; nothing was written`, Exit.conflict, 'Make a new plan: gsh config diff PATHS --out PLAN, check it, then apply that one.');
  err.code = 'stale_plan';
  return err;
}

/** Resolves the write-only placeholders of a change's body from the environment (apply --plan). */
export function resolveSecrets(c: Change, env: NodeJS.ProcessEnv): Change {
  const kind = kindNamed(c.kind);
  const body = c.spec.body;
  if (!kind?.writeOnly.length || body === null || typeof body !== 'object') return c;
  const resolved: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const key of kind.writeOnly) {
    const v = resolved[key];
    const name = typeof v === 'string' ? ENV_REF.exec(v)?.[1] : undefined;
    if (name === undefined) continue;
    const value = env[name];
    if (value === undefined || value === '') throw new GshError(`${c.item}.${key} is \${env:${name}}, which is not set; nothing was written`, Exit.usage, `Set ${name} in the environment (the secret never sits in the plan or the file), then apply the plan again.`);
    resolved[key] = value;
  }
  return { ...c, spec: { ...c.spec, body: resolved } };
}
