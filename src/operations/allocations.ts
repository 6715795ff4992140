import { defineFamily } from './types.js';

const allocationId = [{ name: 'allocation_id', description: 'Allocation id from allocations list' }];

// Document 3, "Operation families that are only named": no scope, permission, parameter or
// body is shown, so none is declared (send fields with -f).
export default defineFamily({
  name: 'allocations',
  summary: 'Network allocations (IP and port) of a server',
  operations: [
    {
      method: 'GET', path: '/servers/{server_id}/allocations', command: 'allocations list',
      columns: ['id', 'created_at'],
      summary: "The server's allocations",
      example: 'gsh allocations list -s lobby',
    },
    {
      method: 'POST', path: '/servers/{server_id}/allocations', command: 'allocations create',
      summary: 'Add an allocation',
      example: 'gsh allocations create -s lobby',
    },
    {
      method: 'PATCH', path: '/servers/{server_id}/allocations/{allocation_id}', command: 'allocations update',
      summary: 'Update an allocation',
      example: 'gsh allocations update -s lobby 7 -f notes="query port"',
      params: allocationId,
    },
    {
      method: 'DELETE', path: '/servers/{server_id}/allocations/{allocation_id}', command: 'allocations delete',
      summary: 'Remove an allocation',
      example: 'gsh allocations delete -s lobby 7 --yes',
      params: allocationId, destructive: true,
    },
    {
      method: 'PUT', path: '/servers/{server_id}/allocations/{allocation_id}/primary', command: 'allocations primary',
      summary: 'Make an allocation the primary one',
      example: 'gsh allocations primary -s lobby 7',
      params: allocationId,
    },
  ],
});
