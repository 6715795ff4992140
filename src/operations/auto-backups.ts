import { defineFamily } from './types.js';

// Document 3, "Operation families that are only named" ("Auto backups"): no scope, permission,
// parameter or body is shown, so none is declared (send fields with -f).
export default defineFamily({
  name: 'auto-backups',
  summary: 'Automatic backup settings and scheduled backups',
  operations: [
    {
      method: 'GET', path: '/servers/{server_id}/backups/auto-settings', command: 'backups auto get',
      summary: 'Automatic backup settings',
      example: 'gsh backups auto get -s lobby',
    },
    {
      method: 'PATCH', path: '/servers/{server_id}/backups/auto-settings', command: 'backups auto update',
      summary: 'Change automatic backup settings',
      example: 'gsh backups auto update -s lobby -F enabled=true',
    },
    {
      method: 'GET', path: '/servers/{server_id}/backups/scheduled', command: 'backups scheduled list',
      columns: ['id', 'created_at'],
      summary: 'Scheduled (automatic) backups',
      example: 'gsh backups scheduled list -s lobby',
    },
    {
      method: 'GET', path: '/servers/{server_id}/backups/scheduled/{backup_uuid}', command: 'backups scheduled get',
      summary: 'One scheduled backup',
      example: 'gsh backups scheduled get -s lobby 8c1e6f8a-1b2c-4d3e-9f00-0a1b2c3d4e5f',
      params: [{ name: 'backup_uuid', description: 'Backup uuid from backups scheduled list' }],
    },
  ],
});
