import { adoptScalar, asText, type Change, dataOf, type FieldDiff, isObj, type Kind, opSpec } from '../kind.js';

// Server settings (02-endpoints-part-a.md "Settings"): the read returns display name,
// description, startup-detection message and stop command; those four are declarable (the others
// are written but never read back, so they could never be shown in sync). One PATCH of the fields
// that differ; its answer is the updated settings, so a value stored otherwise is seen.

const READ = 'GET /servers/{server_id}/settings';
const WRITE = 'PATCH /servers/{server_id}/settings';
const FIELDS = ['name', 'description', 'done_message', 'stop_command'] as const;
type Settings = Partial<Record<(typeof FIELDS)[number], string>>;

const text = (description: string) => ({ type: 'string', description }) as const;

export const settings: Kind<Settings, Record<string, unknown>> = {
  name: 'settings',
  summary: 'settings (description, startup-detection message, stop command)',
  compared: 'settings as text',
  written: 'one PATCH for settings',
  prunable: false,
  list: false,
  schema: {
    type: 'object',
    description: 'Server settings the read returns (timezone, auto_stop and the like are written but never read back: not declarable)',
    properties: {
      name: text('Display name: declaring it renames the server, so it needs an `id:` pin'),
      description: text('Description'),
      done_message: text('Startup-detection message'),
      stop_command: text('Stop command'),
    },
  },
  reads: [READ],
  writes: [WRITE],
  writeOnly: [],
  normalise: (value) => (isObj(value) ? (value as Settings) : {}),
  readSpecs: (serverId) => [opSpec(READ, { server_id: serverId })],
  async read(client, serverId) {
    const d = await dataOf(client, opSpec(READ, { server_id: serverId }));
    return isObj(d) ? d : {};
  },
  compare(declared, live, ctx) {
    const fields: FieldDiff[] = [];
    for (const f of FIELDS) {
      const want = declared[f];
      if (want === undefined || ctx.skip(`settings.${f}`)) continue;
      const have = live[f];
      if (asText(have) !== want) fields.push({ path: `settings.${f}`, live: have ?? null, declared: want });
    }
    if (!fields.length) return { changes: [], notCompared: [] };
    const body = Object.fromEntries(fields.map((x) => [x.path.slice('settings.'.length), x.declared]));
    const change: Change = { kind: 'settings', action: 'update', item: 'settings', fields, spec: opSpec(WRITE, { server_id: ctx.serverId }, body) };
    return { changes: [change], notCompared: [] };
  },
  stored: (_change, answer) => (isObj(answer) ? new Map(Object.entries(answer).map(([k, v]) => [`settings.${k}`, asText(v)])) : undefined),
  serverName: (live) => (typeof live.name === 'string' ? live.name : undefined),
  adopt: (field) => adoptScalar(field, 'settings', [field.path.slice('settings.'.length)]),
  export(live) {
    // The name is the file's `server:`; declaring it would need an id pin.
    const s = Object.fromEntries(FIELDS.filter((f) => f !== 'name' && typeof live[f] === 'string').map((f) => [f, live[f]]));
    return Object.keys(s).length ? s : undefined;
  },
  check(value, at) {
    if (isObj(value) && value.name !== undefined && !at.pinned) {
      at.report('required', [...at.base, 'settings', 'name'], at.base.length
        ? '`settings.name` renames a server: only a one-server file pinned with `id:` may declare it'
        : '`settings.name` renames the server: pin the file to it with `id: SERVER_ID` (the name alone would no longer find it)');
    }
  },
};
