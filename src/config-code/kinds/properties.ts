import { adoptScalar, asText, dataOf, isObj, type Kind, opSpec, type Scalar, scalarDiffs } from '../kind.js';

// server.properties (02-endpoints-part-a.md "Properties"): every entry as `server_property`
// objects; the PUT is a merge of the keys sent (one write for every key that differs) and returns
// the updated properties, so a key the service clamps on a free plan is seen stored otherwise.
// Values are text: true equals "true", 60 equals "60".

const READ = 'GET /servers/{server_id}/properties';
const WRITE = 'PUT /servers/{server_id}/properties';
const scalar = (description: string) => ({ type: 'scalar', of: ['string', 'integer', 'number', 'boolean'], description }) as const;

export const properties: Kind<Record<string, Scalar>, Map<string, string>> = {
  name: 'properties',
  summary: 'server.properties',
  compared: 'server.properties keys as text (true equals "true", 60 equals "60")',
  written: 'one PUT for server.properties (a merge)',
  prunable: false,
  list: false,
  schema: { type: 'map', values: scalar('A value; compared as text (true equals "true", 60 equals "60")'), description: 'server.properties keys (merged: keys not declared are left alone)' },
  reads: [READ],
  writes: [WRITE],
  writeOnly: [],
  normalise: (value) => (isObj(value) ? (value as Record<string, Scalar>) : {}),
  readSpecs: (serverId) => [opSpec(READ, { server_id: serverId })],
  async read(client, serverId) {
    const d = await dataOf(client, opSpec(READ, { server_id: serverId }));
    return new Map((Array.isArray(d) ? d : []).filter(isObj).filter((p) => typeof p.key === 'string').map((p) => [p.key as string, asText(p.value)]));
  },
  compare(declared, live, ctx) {
    const fields = scalarDiffs('properties', declared, live, ctx.skip);
    if (!fields.length) return { changes: [], notCompared: [] };
    const body = Object.fromEntries(fields.map((x) => [x.path.slice('properties.'.length), x.declared]));
    return { changes: [{ kind: 'properties', action: 'update', item: 'properties', fields, spec: opSpec(WRITE, { server_id: ctx.serverId }, body) }], notCompared: [] };
  },
  stored: (_change, answer) => (Array.isArray(answer) ? new Map(answer.filter(isObj).filter((p) => typeof p.key === 'string').map((p) => [`properties.${p.key as string}`, asText(p.value)])) : undefined),
  export: (live) => Object.fromEntries(live),
  adopt: (field) => adoptScalar(field, 'properties', [field.path.slice('properties.'.length)]),
};
