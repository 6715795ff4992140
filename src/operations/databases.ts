import { defineFamily } from './types.js';

const databaseId = [{ name: 'database_id', description: 'Database id from databases list' }];

// Document 3, "Operation families that are only named": no scope, permission, parameter or
// body is shown, so none is declared (send fields with -f).
export default defineFamily({
  name: 'databases',
  summary: 'Databases of a server',
  operations: [
    {
      method: 'GET', path: '/servers/{server_id}/databases', command: 'databases list',
      columns: ['id', 'created_at'],
      summary: "The server's databases",
      example: 'gsh databases list -s lobby',
    },
    {
      method: 'POST', path: '/servers/{server_id}/databases', command: 'databases create',
      summary: 'Create a database',
      example: 'gsh databases create -s lobby -f name=luckperms',
    },
    {
      method: 'GET', path: '/servers/{server_id}/databases/{database_id}', command: 'databases get',
      summary: 'One database',
      example: 'gsh databases get -s lobby db_123',
      params: databaseId,
    },
    {
      method: 'DELETE', path: '/servers/{server_id}/databases/{database_id}', command: 'databases delete',
      summary: 'Delete a database and its data',
      example: 'gsh databases delete -s lobby db_123 --yes',
      params: databaseId, destructive: true,
    },
    {
      method: 'POST', path: '/servers/{server_id}/databases/{database_id}/rotate-password', command: 'databases rotate-password',
      summary: "Rotate a database's password",
      example: 'gsh databases rotate-password -s lobby db_123',
      params: databaseId,
    },
  ],
});
