import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAllFamilies } from '../../src/operations/index.js';
import type { Field, Operation } from '../../src/operations/types.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { gshInProcess } from './helpers.js';

// The command walk (issue 3 item 7): every leaf of `gsh reference --json` that reaches an API
// operation, run against one sandbox, with arguments that name resources existing there. This
// module builds the plan: the sandbox fixtures, each leaf's argv and the request it must send.

export interface RefOption { flags: string; required: boolean; choices: string[] | null }
export interface RefEntry {
  command: string;
  operations: Array<{ method: string; path: string }>;
  arguments: Array<{ name: string; required: boolean }>;
  options: RefOption[];
}

export interface Step {
  command: string;
  argv: string[];
  method: string;
  /** Concrete path the request must reach. */
  path: string;
  /** Generated leaves: the exact body and the query the flags imply; hand-written: undefined. */
  body?: Record<string, unknown>;
  query?: Record<string, string>;
  /** No credential: attribute by arrival order instead of by key. */
  anonymous: boolean;
  /** Runs after the others (it removes what other steps use). */
  last: boolean;
  /** Streams until the user detaches (console attach): stopped after a few seconds. */
  streaming: boolean;
  /** Further operations the command declares ("METHOD template"), e.g. console send's token. */
  extra: string[];
}

export async function reference(env: Record<string, string | undefined>): Promise<RefEntry[]> {
  const r = await gshInProcess(['reference', '--json'], env);
  if (r.exitCode !== 0) throw new Error(`gsh reference --json: exit ${r.exitCode}: ${r.stderr}`);
  return JSON.parse(r.stdout) as RefEntry[];
}

async function api(sb: Sandbox, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(sb.baseUrl + path, {
    method,
    headers: { authorization: `Bearer ${sb.keys.all}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await res.json()) as { data?: unknown };
  if (res.status >= 300) throw new Error(`fixture ${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

/** Ids of resources the walk's arguments name, created through the API. */
export interface Fixtures {
  server: string;
  /** Server deleted by `servers delete` (kept apart so the rest still has one). */
  victim: string;
  values: Record<string, string>;
  /** job_id by the template that polls it. */
  jobs: Record<string, string>;
  moduleTask: string;
  dir: string;
}

export async function makeFixtures(sb: Sandbox, ops: Operation[], dir: string): Promise<Fixtures> {
  const servers = [...sb.state.servers.values()];
  const server = servers.find((s) => s.state === 'offline' && !s.stored && !s.startupQueue)!;
  const victim = servers.find((s) => s !== server && s.state !== 'running')!;
  const S = `/servers/${server.id}`;
  await api(sb, 'PUT', `${S}/files/content`, { path: '/package.json', content: '{"dependencies":{"express":"^4.19.2"}}' });
  const values: Record<string, string> = {
    hook_id: (await api(sb, 'POST', `${S}/hooks`, { url: 'https://example.com/hook' })).id,
    user_id: String((await api(sb, 'POST', `${S}/subusers`, { email: 'alex@example.com', permissions: ['file.read'] })).user_id),
    config_type: 'bukkit',
    env_variable: 'SERVER_JARFILE',
    game: 'minecraft',
    source: 'provider_a',
    project_id: 'P7dR8mSH',
  };
  values.template_id = (await api(sb, 'POST', '/init/templates', { name: 'walk-template', manifest: '#service-init\nversion: 1\n' })).id;
  const instance = (await api(sb, 'POST', `${S}/instances`, {})).id as string;
  values.instance_id = instance;
  values.source_instance_id = instance;
  values.pack_id = (await api(sb, 'POST', `${S}/addons/custom-packs/fork`, { source: 'provider_a', project_id: '1KVo5zza' })).id;
  values.uuid = (await api(sb, 'GET', `${S}/players`))[0].uuid;
  const jobs: Record<string, string> = {
    '/account/servers/create-jobs/{job_id}': (await api(sb, 'POST', '/servers', { name: 'walk-new' })).job_id,
    '/servers/{server_id}/instances/clone-jobs/{job_id}': (await api(sb, 'POST', `${S}/instances/${instance}/clone`, {})).job_id,
    '/servers/{server_id}/addons/modpack/jobs/{job_id}': (await api(sb, 'POST', `${S}/addons/modpack`, { project_id: 'abc' })).job_id,
  };
  const moduleTask = (await api(sb, 'POST', `${S}/modules/install`, { name: 'ws' })).id as string;
  // A backup takes a while (handlers/backups.ts); its download and restores want it finished.
  await api(sb, 'POST', `${S}/backups`, { backup_uuid: BACKUP_UUID });
  // Read from the sandbox's state: a strict sandbox's answer does not show when it has finished.
  while (!sb.state.generic.collections.get(`${S}/backups`)?.get(BACKUP_UUID)?.completed_at) await new Promise((r) => setTimeout(r, 20));

  // Generic collections: POST with the item parameter in the body makes an item with that id.
  const router = sb.extensions.router;
  const templates = new Set(ops.map((o) => o.path));
  const creatable = ops
    .filter((o) => o.method === 'POST' && router.get('POST', o.path)?.spec === undefined)
    .map((o) => ({ o, param: [...templates].filter((t) => t.startsWith(`${o.path}/`)).map((t) => t.slice(o.path.length)).find((rest) => /^\/\{[a-z_]+\}$/.test(rest))?.slice(2, -1) }))
    .filter((c): c is { o: Operation; param: string } => c.param !== undefined && c.param !== 'server_id')
    .sort((a, b) => a.o.path.split('/').length - b.o.path.split('/').length);
  const fx: Fixtures = { server: server.id, victim: victim.id, values, jobs, moduleTask, dir };
  for (const { o, param } of creatable) {
    await api(sb, 'POST', fill(o.path, fx, server.id), { [param]: placeholder(fx, o.path, param) });
  }
  return fx;
}

const BACKUP_UUID = '8c1e6f8a-1b2c-4d3e-9f00-0a1b2c3d4e5f';

function placeholder(fx: Fixtures, template: string, param: string): string {
  if (param === 'job_id') return fx.jobs[template] ?? 'job_x';
  if (param === 'task_id' && template.includes('/modules/')) return fx.moduleTask;
  if (param === 'backup_uuid') return BACKUP_UUID;
  return fx.values[param] ?? `w_${param}`;
}

export function fill(template: string, fx: Fixtures, serverId: string): string {
  return template.replace(/\{(\w+)\}|<(\w+)>/g, (_m, a?: string, b?: string) => {
    const name = (a ?? b)!;
    return encodeURIComponent(name === 'server_id' ? serverId : placeholder(fx, template, name));
  });
}

const STREAMING = new Set(['console attach']);

export const long = (flags: string) => /--([a-z0-9-]+)/.exec(flags.split(',').pop()!)![1]!;

/** A value for a required flag the registry does not constrain further. */
const FLAG_VALUES: Record<string, string> = {
  url: 'https://example.com/hook', path: '/server.properties', query: 'max', name: 'Notch', 'max-players': '50',
  world: 'world', id: 'P7dR8mSH', 'file-id': 'f1', email: 'alex@example.com', command: 'say hi',
};

export function flagValue(o: RefOption, fx: Fixtures): string {
  const name = long(o.flags);
  if (o.choices?.length) return o.choices[0]!;
  if (name.endsWith('-file')) {
    const file = join(fx.dir, `${name}.txt`);
    writeFileSync(file, 'walk-secret-value-0123456789\n');
    return file;
  }
  return FLAG_VALUES[name] ?? 'x1';
}

/** The JSON value the CLI sends for a flag's text (values.ts convertField, for the types used here). */
function jsonValue(f: Field, text: string): unknown {
  if (f.secret) return text.trim() === '' ? undefined : 'walk-secret-value-0123456789';
  if (f.type === 'integer' || f.type === 'number') return Number(text);
  if (f.type === 'string[]') return text.split(',');
  if (f.type === 'boolean') return true;
  return text;
}

export function planOf(ref: RefEntry[], ops: Operation[], fx: Fixtures): { steps: Step[]; skipped: string[] } {
  const byCommand = new Map(ops.map((o) => [o.command, o]));
  const steps: Step[] = [];
  const skipped: string[] = [];
  for (const e of ref) {
    const target = e.operations[0];
    if (!target) {
      skipped.push(e.command);
      continue;
    }
    const words = e.command.split(' ');
    const generated = byCommand.get(e.command) ?? byCommand.get(words.slice(0, -1).join(' '));
    // A required argument that is not a path parameter belongs to a hand-written command that
    // replaced the generated one (console send): its body is not the flags' to predict.
    const ownArguments = e.arguments.some((a) => a.required && !target.path.includes(`{${a.name.replace(/-/g, '_')}}`) && !target.path.includes(`<${a.name.replace(/-/g, '_')}>`));
    const op = !ownArguments && generated && generated.method === target.method && generated.path === target.path ? generated : undefined;
    const serverId = e.command === 'servers delete' ? fx.victim : fx.server;
    const argv = [...words];
    // config apply's PATHS are optional (none with --plan); the walk gives them, as diff's.
    for (const a of e.arguments.filter((x) => x.required || x.name === 'paths')) {
      const param = a.name.replace(/-/g, '_');
      if (target.path.includes(`{${param}}`) || target.path.includes(`<${param}>`)) argv.push(placeholder(fx, target.path, param));
      else if (a.name === 'file') {
        const file = join(fx.dir, 'upload.txt');
        writeFileSync(file, 'walk upload\n');
        argv.push(file);
      } else if (a.name === 'paths') {
        // gsh config diff|apply: a declaration whose glob takes every server (-s narrows it);
        // diff's is in sync (exit 0), apply's changes one setting (its PATCH is the step's target).
        const file = join(fx.dir, `declared-${words[1]}.yaml`);
        writeFileSync(file, `version: 1\nservers:\n  "*":\n    settings: ${words[1] === 'apply' ? '{description: walked}' : '{}'}\n`);
        argv.push(file);
      } else argv.push(FLAG_VALUES[a.name] ?? '/server.properties');
    }
    // gsh config export writes files: into the walk's own directory, replaced on each run.
    if (e.command === 'config export') argv.push('--dir', join(fx.dir, 'exported'), '--force');
    const query: Record<string, string> = {};
    const body: Record<string, unknown> = {};
    for (const o of e.options) {
      const name = long(o.flags);
      if (name === 'server') {
        argv.push('-s', serverId);
        continue;
      }
      if (!o.required) continue;
      const text = flagValue(o, fx);
      argv.push(`--${name}`, text);
      const field = [...(op?.query ?? []), ...(op?.body ?? [])].find((f) => (f.secret ? `${f.flag ?? f.name.replace(/_/g, '-')}-file` : f.flag ?? f.name.replace(/_/g, '-')) === name);
      if (field && op?.query?.includes(field)) query[field.name] = String(text);
      else if (field) body[field.name] = jsonValue(field, text);
    }
    if (op?.verbs) body[op.verbs.field] = words[words.length - 1];
    argv.push('--yes', '--json');
    const hasBody = op !== undefined && ['POST', 'PUT', 'PATCH'].includes(op.method);
    steps.push({
      command: e.command, argv, method: target.method, path: fill(target.path, fx, serverId),
      ...(op ? { query, ...(hasBody ? { body } : {}) } : {}),
      anonymous: op?.auth === 'none',
      last: target.method === 'DELETE' || op?.destructive === true || /\b(delete|empty|cancel|revoke)\b/.test(e.command),
      streaming: STREAMING.has(e.command),
      extra: e.operations.slice(1).map((o) => `${o.method} ${o.path}`),
    });
  }
  return { steps, skipped };
}

export async function registryOps(): Promise<Operation[]> {
  return (await loadAllFamilies()).flatMap((f) => f.operations);
}
