import { defineFamily } from './types.js';

const databaseId = { name: 'database_id', description: 'Database id from databases list' };
const backup = [databaseId, { name: 'backup_uuid', description: 'Backup uuid from databases backups list' }];

// Document 3, "Operation families that are only named" ("Database backups"): no scope,
// permission, parameter or body is shown, so none is declared (send fields with -f).
export default defineFamily({
  name: 'database-backups',
  summary: 'Backups of a database',
  operations: [
    {
      method: 'GET', path: '/servers/{server_id}/databases/{database_id}/backups', command: 'databases backups list',
      columns: ['id', 'created_at'],
      summary: "A database's backups",
      example: 'gsh databases backups list -s lobby db_123',
      params: [databaseId],
    },
    {
      method: 'POST', path: '/servers/{server_id}/databases/{database_id}/backups', command: 'databases backups create',
      summary: 'Back up a database',
      example: 'gsh databases backups create -s lobby db_123',
      params: [databaseId],
    },
    {
      method: 'DELETE', path: '/servers/{server_id}/databases/{database_id}/backups/{backup_uuid}', command: 'databases backups delete',
      summary: 'Delete a database backup',
      example: 'gsh databases backups delete -s lobby db_123 8c1e6f8a-1b2c-4d3e-9f00-0a1b2c3d4e5f --yes',
      params: backup, destructive: true,
    },
    {
      method: 'POST', path: '/servers/{server_id}/databases/{database_id}/backups/{backup_uuid}/download', command: 'databases backups download', signedUrl: true,
      summary: 'A short-lived signed URL of the database backup; --to downloads it',
      example: 'gsh databases backups download -s lobby db_123 8c1e6f8a-1b2c-4d3e-9f00-0a1b2c3d4e5f --to db.tar.gz',
      params: backup,
    },
    {
      method: 'POST', path: '/servers/{server_id}/databases/{database_id}/backups/{backup_uuid}/restore', command: 'databases backups restore',
      summary: 'Restore a database from a backup (overwrites its data)',
      example: 'gsh databases backups restore -s lobby db_123 8c1e6f8a-1b2c-4d3e-9f00-0a1b2c3d4e5f --yes',
      params: backup, destructive: true,
    },
  ],
});
