import { findApplication } from './demo-data.js';

// Strict mode (`gsh sandbox start --strict`, `startSandbox({ strict: true })`): the sandbox keeps
// what the contract shows and fills its gaps differently from the default mode, so a client that
// reads a field the contract does not show finds it absent or shaped otherwise (issue: correct
// against any server that keeps the contract). Applied to every successful JSON answer of the API
// when it is sent; the stored state (admin API, idempotency records) stays the default shape.
//
// - `server` objects (02-endpoints-part-a.md "Servers": "stable server metadata", no field list):
//   `application` and `plan` are objects instead of strings, `node` is absent.
// - Records of the families whose field lists are not shown (01-general-contract.md "Resource
//   table": backups, schedules, firewall rules, allocations, ports, domains, proxies, databases,
//   tickets, billing documents): the identifier is `id` (no `uuid`), and they carry no status,
//   state, progress or completion fields. Job objects (`object` ending in `_job`, whose fields are
//   shown) and signed-URL answers keep theirs.
// - `lifecycle_status` on the server status (values not shown): other words.
// - The server status's usage ("CPU, memory, disk, network and uptime usage", names not shown;
//   also nested in GET /servers?include=status): under `resources`, named otherwise. The console
//   socket's `stats` event, whose keys the contract names, keeps them.
// - A file pull's status (fields not shown): its downloads without progress.
// - The startup read's environment variables (02-endpoints-part-a.md "Startup": "environment
//   variables", fields not shown): each keyed `env_variable` (as the write's path names it) with
//   its value as `server_value`.

const UNSHOWN_FAMILY = /^\/servers\/\{server_id\}\/(backups|schedules|firewall|allocations|ports|domains|proxies|databases|network\/allocations)(\/|$)|^\/(account\/)?(tickets|billing|invoices)(\/|$)/;
const PROGRESS_FIELDS = ['status', 'state', 'progress', 'completed_at', 'is_successful', 'message'];

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The answer a strict sandbox sends instead of `body` for a request that matched `template`. */
export function strictBody(template: string, body: unknown): unknown {
  if (!isObj(body) || !('data' in body)) return body;
  return { ...body, data: strictData(template, body.data) };
}

function strictData(template: string, data: unknown): unknown {
  if (template === '/servers/{server_id}/startup' && isObj(data) && Array.isArray(data.variables)) {
    return { ...data, variables: data.variables.map((v) => (isObj(v) ? { ...omit(v, ['key', 'value']), env_variable: v.key, server_value: v.value } : v)) };
  }
  if (template === '/servers/{server_id}/files/pull/status' && isObj(data) && Array.isArray(data.downloads)) {
    return { ...data, downloads: data.downloads.map((d) => (isObj(d) ? omit(d, ['progress']) : d)) };
  }
  if (Array.isArray(data)) return data.map((item) => strictRecord(template, item));
  return strictRecord(template, data);
}

function strictRecord(template: string, item: unknown): unknown {
  if (!isObj(item)) return item;
  if (item.object === 'server') return strictServer(item);
  if (item.object === 'server_status') return strictStatus(item);
  const kind = typeof item.object === 'string' ? item.object : '';
  if (UNSHOWN_FAMILY.test(template) && !kind.endsWith('_job') && !/\/download$/.test(template)) {
    const out = omit(item, ['uuid', ...PROGRESS_FIELDS]);
    if (item.uuid !== undefined) out.id = item.uuid;
    return out;
  }
  return item;
}

const USAGE = ['cpu_absolute', 'memory_bytes', 'memory_limit_bytes', 'disk_bytes', 'network', 'uptime'];

function strictStatus(st: Obj): Obj {
  const out = omit(st, USAGE);
  if (typeof st.lifecycle_status === 'string') out.lifecycle_status = `${st.lifecycle_status.toUpperCase()}_IN_PROGRESS`;
  const net = isObj(st.network) ? st.network : {};
  const resources: Obj = {
    cpu: { percent: st.cpu_absolute },
    memory: { used: st.memory_bytes, limit: st.memory_limit_bytes },
    disk: { used: st.disk_bytes },
    network: { inbound: net.rx_bytes, outbound: net.tx_bytes },
    uptime_ms: typeof st.uptime === 'number' ? st.uptime * 1000 : undefined,
  };
  if (USAGE.some((k) => st[k] !== undefined)) out.resources = JSON.parse(JSON.stringify(resources));
  return out;
}

function strictServer(s: Obj): Obj {
  const app = typeof s.application === 'string' ? findApplication(s.application) : undefined;
  const out = omit(s, ['node']);
  if (isObj(s.status)) out.status = strictStatus(s.status);
  if (typeof s.application === 'string') {
    out.application = app ? { object: 'application', id: app.id, slug: app.slug, name: app.name } : { slug: s.application };
  }
  if (typeof s.plan === 'string') out.plan = { name: s.plan, free: s.plan === 'free' };
  return out;
}

function omit(o: Obj, keys: readonly string[]): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(o)) if (!keys.includes(k)) out[k] = v;
  return out;
}
