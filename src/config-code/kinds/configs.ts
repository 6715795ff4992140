import { adoptScalar, asText, checkPathKeys, dataOf, isObj, type Kind, opSpec, type Scalar, scalarDiffs } from '../kind.js';

// Application config files by type (02-endpoints-part-a.md "Properties": configs): values as
// flattened dot-notation keys; one PUT per file, a merge that keeps what is not sent. A declared
// type is read directly; export lists the types that exist first.

const LIST = 'GET /servers/{server_id}/properties/configs';
const READ = 'GET /servers/{server_id}/properties/configs/{config_type}';
const WRITE = 'PUT /servers/{server_id}/properties/configs/{config_type}';
const scalar = (description: string) => ({ type: 'scalar', of: ['string', 'integer', 'number', 'boolean'], description }) as const;
type Files = Record<string, Record<string, Scalar>>;

export const configs: Kind<Files, Map<string, Record<string, unknown>>> = {
  name: 'configs',
  summary: 'application config files',
  compared: 'config file keys as text',
  written: 'one PUT per config file',
  prunable: false,
  list: false,
  schema: {
    type: 'map',
    description: 'Application config files by type (bukkit, spigot, …): dot-notation keys, merged',
    values: { type: 'map', values: scalar('A value, compared as text'), description: 'Dot-notation key to value' },
  },
  reads: [READ, LIST],
  writes: [WRITE],
  writeOnly: [],
  normalise: (value) => (isObj(value) ? (value as Files) : {}),
  readSpecs: (serverId, declared) => (declared === undefined ? [opSpec(LIST, { server_id: serverId })] : Object.keys(declared).map((type) => opSpec(READ, { server_id: serverId, config_type: type }))),
  async read(client, serverId, declared) {
    let types = declared === undefined ? undefined : Object.keys(declared);
    if (types === undefined) {
      const d = await dataOf(client, opSpec(LIST, { server_id: serverId }));
      types = (Array.isArray(d) ? d : []).filter(isObj).map((c) => c.type).filter((t): t is string => typeof t === 'string');
    }
    const live = new Map<string, Record<string, unknown>>();
    for (const type of types) {
      const d = await dataOf(client, opSpec(READ, { server_id: serverId, config_type: type }));
      live.set(type, isObj(d) && isObj(d.values) ? d.values : {});
    }
    return live;
  },
  compare(declared, live, ctx) {
    const changes = [];
    for (const [type, values] of Object.entries(declared)) {
      const have = new Map(Object.entries(live.get(type) ?? {}).map(([k, v]) => [k, asText(v)]));
      const fields = scalarDiffs(`configs.${type}`, values, have, ctx.skip);
      if (!fields.length) continue;
      const body = Object.fromEntries(fields.map((x) => [x.path.slice(`configs.${type}.`.length), x.declared]));
      changes.push({ kind: 'configs', action: 'update' as const, item: `configs.${type}`, fields, spec: opSpec(WRITE, { server_id: ctx.serverId, config_type: type }, body) });
    }
    return { changes, notCompared: [] };
  },
  check: (value, at) => checkPathKeys(value, at, ['configs'], 'a config type'),
  adopt(field, raw) {
    // A type's keys hold dots themselves (settings.allow-end): the type is the one the file declares.
    const files = isObj(raw) ? (raw as Files) : {};
    const type = Object.keys(files).find((t) => field.path.startsWith(`configs.${t}.`) && files[t]?.[field.path.slice(`configs.${t}.`.length)] !== undefined);
    return type === undefined ? { refused: `${field.path} is not a key the file declares` } : adoptScalar(field, `configs.${type}`, [type, field.path.slice(`configs.${type}.`.length)]);
  },
  export: (live) => (live.size ? Object.fromEntries([...live].map(([type, values]) => [type, Object.fromEntries(Object.entries(values).filter(([, v]) => ['string', 'number', 'boolean'].includes(typeof v)))])) : undefined),
};
