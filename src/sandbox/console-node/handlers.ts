import { ApiFailure, fail, ok } from '../envelope.js';
import type { HandlerMap } from '../handlers/types.js';
import { bodyObject, serverOf } from '../handlers/util.js';
import { holds } from '../permissions.js';
import { nodeFor } from './registry.js';
import { OWNER_PERMISSIONS } from './tokens.js';

// REST side of the console (02-endpoints-part-a.md "Console"). `console/status` and
// `console/queue-status` are served with the server model in handlers/servers.ts.

export const handlers: HandlerMap = {
  'POST /servers/{server_id}/console/token': (req, ctx) => {
    const s = serverOf(req, ctx);
    if (s.stored) throw new ApiFailure(409, 'server_storage_mode', 'The server is in storage mode; start it first');
    // The token carries only what the caller holds: a subuser's socket needs control.command for
    // commands and control.start/stop/restart for `set state`, like the REST operations.
    const permissions = OWNER_PERMISSIONS.filter((p) => holds(ctx, req.principal, s.id, p));
    return ok({ object: 'console_session', ...nodeFor(ctx).issue(s.id, permissions) }, 201);
  },

  // The contract does not name the body field; the registry (and so the CLI) sends `command`.
  'POST /servers/{server_id}/commands': (req, ctx) => {
    const s = serverOf(req, ctx);
    const command = bodyObject(req).command;
    if (typeof command !== 'string' || command.trim() === '' || /[\r\n]/.test(command)) {
      throw fail.badRequest('command must be one single-line command (no batches)');
    }
    if (s.state !== 'running') throw fail.conflict(`The server is ${s.state}; commands need it running`);
    nodeFor(ctx).game(s.id)?.command(command);
    return ok({ object: 'console_command', server_id: s.id, command }, 202);
  },

  'GET /servers/{server_id}/console/storage': (req, ctx) => {
    const s = serverOf(req, ctx);
    return ok({ object: 'console_storage', storage_mode: s.stored, node: s.node });
  },

  // Free-plan servers that run have an inactivity-shutdown timer; nothing else has one.
  'GET /servers/{server_id}/console/timer': (req, ctx) => {
    const s = serverOf(req, ctx);
    if (s.plan !== 'free' || s.state !== 'running') return ok({ object: 'shutdown_timer', active: false });
    return ok({ object: 'shutdown_timer', active: true, kind: 'inactivity', remaining_seconds: 900 });
  },

  'POST /servers/{server_id}/console/eula': (req, ctx) => {
    const s = serverOf(req, ctx);
    nodeFor(ctx).game(s.id)?.node('EULA accepted: eula=true written to eula.txt');
    return ok({ object: 'console_eula', accepted: true });
  },
};
