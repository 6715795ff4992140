import { defineFamily } from './types.js';

// Document 2, "Console". The live socket itself is document 1's "Console socket".
export default defineFamily({
  name: 'console',
  summary: 'Console commands, EULA, queue, status and socket sessions',
  operations: [
    {
      method: 'POST', path: '/servers/{server_id}/commands', command: 'console send',
      summary: 'Send one single-line console command (no batches)',
      example: 'gsh console send -s lobby "say hello"',
      scope: 'servers:command', permission: 'control.console',
      // The field name is not shown in the contract; we send `command`.
      body: [{ name: 'command', type: 'string', required: true, check: 'single-line',
        description: 'One single-line command' }],
    },
    {
      method: 'POST', path: '/servers/{server_id}/console/eula', command: 'console eula',
      summary: "Write EULA acceptance into the server's EULA file",
      example: 'gsh console eula -s lobby',
      scope: 'servers:console', permission: 'file.update',
    },
    {
      method: 'GET', path: '/servers/{server_id}/console/queue-status', command: 'console queue',
      summary: 'Position in the node startup queue; queued: false when not queued',
      example: 'gsh console queue -s lobby',
      scope: 'servers:read', permission: 'control.console',
    },
    {
      method: 'GET', path: '/servers/{server_id}/console/status', command: 'console status',
      summary: 'Live state and, if the node is reachable, CPU, memory, disk, network, uptime',
      example: 'gsh console status -s lobby --json',
      scope: 'servers:read', permission: 'control.console',
    },
    {
      method: 'GET', path: '/servers/{server_id}/console/storage', command: 'console storage',
      summary: 'Whether the node is storage-only with limited function',
      example: 'gsh console storage -s lobby',
      scope: 'servers:read', permission: 'control.console',
    },
    {
      method: 'GET', path: '/servers/{server_id}/console/timer', command: 'console timer',
      summary: 'Shutdown timer: free-plan expiry first, then inactivity shutdown',
      example: 'gsh console timer -s lobby',
      scope: 'servers:read',
    },
    {
      method: 'POST', path: '/servers/{server_id}/console/token', command: 'console token',
      summary: 'Issue a console socket session: socket URL, token (about 10 minutes), permissions',
      example: 'gsh console token -s lobby --json',
      scope: 'servers:console', permission: 'control.console',
    },
  ],
});
