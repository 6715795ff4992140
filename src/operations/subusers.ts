import { defineFamily } from './types.js';
import { PERMISSIONS } from './vocabulary.js';

const userId = [{ name: 'user_id', description: 'Panel user id of the subuser' }];

// Document 2, "Subusers"; permission names from document 1. The endpoint table says "plus
// permissions"; the field is named `permissions` after the manifest's access[] entries.
export default defineFamily({
  name: 'subusers',
  summary: 'Subusers of a server and their permissions',
  operations: [
    {
      method: 'GET', path: '/servers/{server_id}/subusers', command: 'subusers list',
      columns: ['user_id', 'username', 'email', 'permissions', 'created_at'], idField: 'user_id',
      summary: 'Subusers, each with granted permissions',
      example: 'gsh subusers list -s lobby',
      scope: 'servers:subusers:read', permission: 'user.read', paging: 'offset',
    },
    {
      method: 'POST', path: '/servers/{server_id}/subusers', command: 'subusers create',
      summary: "Add a subuser by exactly one of email, username, user_id; an existing user's set is replaced",
      example: 'gsh subusers create -s lobby --email alex@example.com --permissions control.console,file.read',
      scope: 'servers:subusers:write', permission: 'user.update',
      body: [
        { name: 'email', type: 'string', description: 'Target user by e-mail (exactly one of email, username, user_id)' },
        { name: 'username', type: 'string', description: 'Target user by username' },
        { name: 'user_id', type: 'integer', description: 'Target user by panel user id' },
        { name: 'permissions', type: 'string[]', choices: PERMISSIONS, open: true, description: 'Permissions to grant' },
      ],
    },
    {
      method: 'PUT', path: '/servers/{server_id}/subusers/{user_id}', command: 'subusers update',
      summary: 'Replace the permission set of a subuser',
      example: 'gsh subusers update -s lobby 42 --permissions control.console,control.start',
      scope: 'servers:subusers:write', permission: 'user.update', params: userId,
      body: [{ name: 'permissions', type: 'string[]', choices: PERMISSIONS, open: true, description: 'The new permission set' }],
    },
    {
      method: 'DELETE', path: '/servers/{server_id}/subusers/{user_id}', command: 'subusers delete',
      summary: "Revoke a subuser's access (not your own entry)",
      example: 'gsh subusers delete -s lobby 42',
      scope: 'servers:subusers:write', permission: 'user.update', params: userId,
    },
  ],
});
