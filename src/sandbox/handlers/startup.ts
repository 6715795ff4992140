import type { SandboxContext } from '../context.js';
import { ApiFailure, fail, ok } from '../envelope.js';
import { serverSlot } from '../node/slots.js';
import type { ServerRecord } from '../state.js';
import { optString } from './fields.js';
import type { HandlerMap } from './types.js';
import { bodyObject, serverOf } from './util.js';

// 02-endpoints-part-a.md "Startup". The command template and variable value field names are not
// shown; the registry's examples send `startup` and `value`. "premium" is the paid plan here.

export interface Startup {
  startup: string;
  image: string;
  images: string[];
  egg_id: number;
  default_startup: string;
  variables: Array<{ key: string; name: string; value: string; editable: boolean }>;
}

const DEFAULT_STARTUP = 'java -Xms128M -Xmx{{SERVER_MEMORY}}M -jar {{SERVER_JARFILE}}';

export function startupOf(ctx: SandboxContext, s: ServerRecord): Startup {
  return serverSlot(ctx, s.id, 'startup', () => ({
    startup: DEFAULT_STARTUP,
    image: 'ghcr.io/sandbox/java:21',
    images: ['ghcr.io/sandbox/java:17', 'ghcr.io/sandbox/java:21'],
    egg_id: 1,
    default_startup: DEFAULT_STARTUP,
    variables: [
      { key: 'SERVER_JARFILE', name: 'Server jar file', value: 'server.jar', editable: true },
      { key: 'MINECRAFT_VERSION', name: 'Minecraft version', value: 'latest', editable: true },
    ],
  }));
}

const view = (st: Startup) => ({ object: 'server_startup', ...st, images: [...st.images], variables: st.variables.map((v) => ({ object: 'server_startup_variable', ...v })) });

export const handlers: HandlerMap = {
  'GET /servers/{server_id}/startup': (req, ctx) => ok(view(startupOf(ctx, serverOf(req, ctx)))),

  'PATCH /servers/{server_id}/startup': (req, ctx) => {
    const s = serverOf(req, ctx);
    if (s.plan !== 'paid') throw new ApiFailure(403, 'forbidden', 'Changing the startup command needs a premium plan');
    const body = bodyObject(req);
    const command = optString(body, 'startup') ?? optString(body, 'command');
    if (!command?.trim() || /[\r\n]/.test(command)) throw fail.badRequest('startup must be a single-line command');
    const st = startupOf(ctx, s);
    st.startup = command;
    return ok(view(st));
  },

  'PATCH /servers/{server_id}/startup/variables/{env_variable}': (req, ctx) => {
    const st = startupOf(ctx, serverOf(req, ctx));
    const v = st.variables.find((x) => x.key === req.params.env_variable);
    if (!v) throw fail.notFound('The variable does not belong to this egg');
    const value = bodyObject(req).value;
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') throw fail.badRequest('value is required');
    v.value = String(value);
    return ok({ object: 'server_startup_variable', ...v });
  },
};
