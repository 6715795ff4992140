import { defineFamily } from './types.js';

// Document 3, "Operation families that are only named" ("Support access"): no scope,
// permission, parameter or body is shown (servers:support-access:read/write exist; no mapping).
export default defineFamily({
  name: 'support-access',
  summary: 'Time-boxed staff access to a server',
  operations: [
    {
      method: 'GET', path: '/servers/{server_id}/support-access', command: 'support-access get',
      summary: 'Whether staff access is granted',
      example: 'gsh support-access get -s lobby',
    },
    {
      method: 'POST', path: '/servers/{server_id}/support-access', command: 'support-access grant',
      summary: 'Grant time-boxed staff access',
      example: 'gsh support-access grant -s lobby',
    },
    {
      method: 'DELETE', path: '/servers/{server_id}/support-access', command: 'support-access revoke',
      summary: 'Revoke staff access',
      example: 'gsh support-access revoke -s lobby',
    },
  ],
});
