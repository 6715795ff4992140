import { fail, ok } from '../envelope.js';
import type { PowerSignal } from '../state.js';
import type { HandlerMap } from './types.js';
import { bodyObject, serverOf } from './util.js';

// 02-endpoints-part-a.md "Power". The contract does not name the body field; the registry (and
// so the CLI) sends `signal`. The state machine is in lifecycle.ts.

const SIGNALS: readonly PowerSignal[] = ['start', 'stop', 'restart', 'kill'];

export const handlers: HandlerMap = {
  'POST /servers/{server_id}/power': (req, ctx) => {
    const s = serverOf(req, ctx);
    const signal = bodyObject(req).signal;
    if (typeof signal !== 'string' || !SIGNALS.includes(signal as PowerSignal)) {
      throw fail.badRequest(`signal must be one of ${SIGNALS.join(', ')}`);
    }
    const powerState = ctx.lifecycle.power(s, signal as PowerSignal);
    return ok({ object: 'power_action', server_id: s.id, signal, power_state: powerState }, 202);
  },
};
