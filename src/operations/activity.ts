import { defineFamily } from './types.js';

// Document 2, "Activity".
export default defineFamily({
  name: 'activity',
  summary: 'Activity logs of a server or of your account',
  operations: [
    {
      method: 'GET', path: '/me/activity', command: 'activity account',
      columns: ['id', 'created_at'],
      summary: "Your account's activity not tied to a server, newest first",
      example: 'gsh activity account --limit 50',
      scope: 'servers:activity:read', paging: 'offset',
    },
    {
      method: 'GET', path: '/servers/{server_id}/activity', command: 'activity list',
      columns: ['id', 'created_at'],
      summary: "The server's activity, newest first",
      example: 'gsh activity list -s lobby --all',
      scope: 'servers:activity:read', permission: 'activity.read', paging: 'offset',
    },
  ],
});
