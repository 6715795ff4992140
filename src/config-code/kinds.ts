import { similar } from '../common/suggest.js';
import { UsageError } from '../core/errors.js';
import { pathIdProblem } from '../core/flags/checks.js';
import type { RequestSpec } from '../core/request-spec.js';

// What configuration as code can declare (README "Configuration as code"), and the registry
// operations it reads and writes them with: each is `METHOD /path` exactly as in the registry
// (src/operations/), one entry per operation, and every request goes through ApiClient.request.
// commands/config.ts declares the same list as its `operations`, which a test holds to the registry.

export const KINDS = ['settings', 'properties', 'startup', 'configs', 'hooks', 'subusers'] as const;
export type Kind = (typeof KINDS)[number];

/** Kinds made of items with an identity, whose live extras `apply --prune` may delete. */
export const PRUNABLE = ['hooks', 'subusers'] as const;
export type PrunableKind = (typeof PRUNABLE)[number];

/** The settings fields the read returns (02 "Settings": display name, description, startup-detection message, stop command). */
export const SETTINGS_FIELDS = ['name', 'description', 'done_message', 'stop_command'] as const;

export const OPS = {
  listServers: 'GET /servers',
  readSettings: 'GET /servers/{server_id}/settings',
  writeSettings: 'PATCH /servers/{server_id}/settings',
  readProperties: 'GET /servers/{server_id}/properties',
  writeProperties: 'PUT /servers/{server_id}/properties',
  readStartup: 'GET /servers/{server_id}/startup',
  writeVariable: 'PATCH /servers/{server_id}/startup/variables/{env_variable}',
  listConfigs: 'GET /servers/{server_id}/properties/configs',
  readConfig: 'GET /servers/{server_id}/properties/configs/{config_type}',
  writeConfig: 'PUT /servers/{server_id}/properties/configs/{config_type}',
  listHooks: 'GET /servers/{server_id}/hooks',
  createHook: 'POST /servers/{server_id}/hooks',
  updateHook: 'PATCH /servers/{server_id}/hooks/{hook_id}',
  deleteHook: 'DELETE /servers/{server_id}/hooks/{hook_id}',
  listSubusers: 'GET /servers/{server_id}/subusers',
  createSubuser: 'POST /servers/{server_id}/subusers',
  updateSubuser: 'PUT /servers/{server_id}/subusers/{user_id}',
  deleteSubuser: 'DELETE /servers/{server_id}/subusers/{user_id}',
} as const;
export type Op = keyof typeof OPS;

/** The request of one registry operation, its path parameters filled in (encoded). */
export function opSpec(op: Op, params: Record<string, string | number>, body?: unknown): RequestSpec {
  const [method, template] = OPS[op].split(' ') as [RequestSpec['method'], string];
  const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = params[name];
    if (v === undefined) throw new Error(`config-code: ${OPS[op]} needs ${name}`);
    // A declared key becomes this path step (configs: {"..": …} would name the parent path).
    const problem = typeof v === 'string' ? pathIdProblem(v) : undefined;
    if (problem) throw new UsageError(`${name} ${problem} (got "${v}")`);
    return encodeURIComponent(String(v));
  });
  return { method, path, ...(body === undefined ? {} : { body }) };
}

/** `--only` / `--prune`: a comma list of kinds, checked. */
export function kindList(value: string | undefined, flag: string, allowed: readonly string[] = KINDS): Kind[] | undefined {
  if (value === undefined) return undefined;
  const list = value.split(',').map((v) => v.trim()).filter(Boolean);
  const bad = list.filter((k) => !allowed.includes(k));
  if (!list.length) throw new UsageError(`${flag} needs one or more of ${allowed.join(', ')}`);
  for (const k of bad) throw new UsageError(`${flag}: unknown kind "${k}"${didYouMeanText(k, allowed)}`, `Kinds: ${allowed.join(', ')}.`);
  return list as Kind[];
}

/** `; did you mean "x"?` or nothing. */
export function didYouMeanText(word: string, candidates: readonly string[]): string {
  const [best] = similar(word, candidates);
  return best === undefined ? '' : `; did you mean "${best}"?`;
}
