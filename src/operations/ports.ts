import { defineFamily } from './types.js';

const portId = [{ name: 'port_id', description: 'Port id from ports list' }];

// Document 3, "Operation families that are only named": no scope, permission, parameter or
// body is shown, so none is declared (send fields with -f).
export default defineFamily({
  name: 'ports',
  summary: 'Ports of a server',
  operations: [
    {
      method: 'GET', path: '/servers/{server_id}/ports', command: 'ports list',
      columns: ['id', 'created_at'],
      summary: "The server's ports",
      example: 'gsh ports list -s lobby',
    },
    {
      method: 'POST', path: '/servers/{server_id}/ports', command: 'ports create',
      summary: 'Add a port',
      example: 'gsh ports create -s lobby',
    },
    {
      method: 'PATCH', path: '/servers/{server_id}/ports/{port_id}', command: 'ports update',
      summary: 'Update a port',
      example: 'gsh ports update -s lobby port_123 -f notes="voice chat"',
      params: portId,
    },
    {
      method: 'DELETE', path: '/servers/{server_id}/ports/{port_id}', command: 'ports delete',
      summary: 'Remove a port',
      example: 'gsh ports delete -s lobby port_123 --yes',
      params: portId, destructive: true,
    },
    {
      method: 'PUT', path: '/servers/{server_id}/ports/{port_id}/primary', command: 'ports primary',
      summary: 'Make a port the primary one',
      example: 'gsh ports primary -s lobby port_123',
      params: portId,
    },
  ],
});
