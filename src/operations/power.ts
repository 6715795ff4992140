import { defineFamily } from './types.js';

// Document 2, "Power". The body field's name is not shown in the contract; we send `signal`.
export default defineFamily({
  name: 'power',
  summary: 'Start, stop, restart or kill a server',
  operations: [
    {
      method: 'POST', path: '/servers/{server_id}/power', command: 'power',
      serverArgument: true,
      verbs: { field: 'signal', values: ['start', 'stop', 'restart', 'kill'] },
      summary: 'Send a power signal; 202 with power_state applied, queued or transferring',
      example: 'gsh power restart -s lobby --wait',
      scope: 'servers:power',
      // "matching the signal"; kill names no permission of its own: it stops, so control.stop
      // (as the console socket's `set state` does).
      permission: {
        byValue: { field: 'signal', values: { start: ['control.start'], stop: ['control.stop'], restart: ['control.restart'], kill: ['control.stop'] } },
      },
      wait: { kind: 'server-status' },
      console: { ready: ['start', 'restart'], announce: ['stop', 'restart', 'kill'] },
    },
  ],
});
