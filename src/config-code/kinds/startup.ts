import { Exit, GshError } from '../../core/errors.js';
import { adoptScalar, asText, dataOf, checkPathKeys, isObj, type Kind, opSpec, type Scalar, scalarDiffs } from '../kind.js';

// Startup variables (02-endpoints-part-a.md "Startup"): the read lists the egg's environment
// variables; one PATCH per variable, which must belong to the egg (a variable the egg does not
// have is an error for that server, before anything is sent to it).

const READ = 'GET /servers/{server_id}/startup';
const WRITE = 'PATCH /servers/{server_id}/startup/variables/{env_variable}';
const scalar = (description: string) => ({ type: 'scalar', of: ['string', 'integer', 'number', 'boolean'], description }) as const;

export const startup: Kind<{ variables?: Record<string, Scalar> }, Map<string, string>> = {
  name: 'startup',
  summary: 'startup variables',
  compared: 'startup variables as text',
  written: 'one PATCH per startup variable',
  prunable: false,
  list: false,
  schema: {
    type: 'object',
    description: 'Startup variables (each must belong to the egg; one write per variable)',
    properties: { variables: { type: 'map', values: scalar('A value, compared as text'), description: 'Variable key to value' } },
  },
  reads: [READ],
  writes: [WRITE],
  writeOnly: [],
  normalise: (value) => (isObj(value) ? (value as { variables?: Record<string, Scalar> }) : {}),
  readSpecs: (serverId) => [opSpec(READ, { server_id: serverId })],
  async read(client, serverId) {
    const d = await dataOf(client, opSpec(READ, { server_id: serverId }));
    const vars = isObj(d) && Array.isArray(d.variables) ? d.variables.filter(isObj) : [];
    // The variable's key field is not named by the contract ("environment variables"):
    // `key`, else `env_variable`, as the write's path parameter calls it.
    return new Map(vars.map((v) => [String(v.key ?? v.env_variable ?? ''), asText(v.value ?? v.server_value)] as [string, string]).filter(([k]) => k !== ''));
  },
  compare(declared, live, ctx) {
    const want = declared.variables;
    if (!want) return { changes: [], notCompared: [] };
    const foreign = Object.keys(want).filter((k) => !live.has(k));
    if (foreign.length) {
      throw new GshError(`startup variable${foreign.length > 1 ? 's' : ''} ${foreign.join(', ')} ${foreign.length > 1 ? 'do' : 'does'} not belong to the server's egg`, Exit.error, `Its variables: ${[...live.keys()].join(', ') || 'none'}.`);
    }
    const changes = scalarDiffs('startup.variables', want, live, ctx.skip).map((f) => ({
      kind: 'startup', action: 'update' as const, item: f.path, fields: [f],
      spec: opSpec(WRITE, { server_id: ctx.serverId, env_variable: f.path.slice('startup.variables.'.length) }, { value: f.declared }),
    }));
    return { changes, notCompared: [] };
  },
  check: (value, at) => checkPathKeys(isObj(value) ? value.variables : undefined, at, ['startup', 'variables'], 'a startup variable'),
  export: (live) => ({ variables: Object.fromEntries(live) }),
  adopt: (field) => adoptScalar(field, 'startup.variables', ['variables', field.path.slice('startup.variables.'.length)]),
};
