import { defineFamily } from './types.js';

const backupUuid = [{ name: 'backup_uuid', description: 'Backup uuid from backups list' }];

// Document 3, "Operation families that are only named" ("Backups"): no scope, permission,
// parameter or body is shown, so none is declared (send fields with -f). A backup takes a while
// to finish (document 3 "Players": migrate apply wants "a completed backup_id", 409 "backup
// incomplete"; document 1 "Webhooks": `backup.completed`), so create can be followed with --wait.
export default defineFamily({
  name: 'backups',
  summary: 'Server backups',
  operations: [
    {
      method: 'GET', path: '/servers/{server_id}/backups', command: 'backups list',
      columns: ['id', 'created_at'],
      summary: "The server's backups",
      example: 'gsh backups list -s lobby',
    },
    {
      method: 'POST', path: '/servers/{server_id}/backups', command: 'backups create',
      summary: 'Create a backup (--wait follows it until it has finished)',
      example: 'gsh backups create -s lobby -f name=before-update --wait',
      wait: { kind: 'backup', poll: '/servers/{server_id}/backups/{backup_uuid}' },
    },
    {
      method: 'GET', path: '/servers/{server_id}/backups/{backup_uuid}', command: 'backups get',
      summary: 'One backup',
      example: 'gsh backups get -s lobby 8c1e6f8a-1b2c-4d3e-9f00-0a1b2c3d4e5f',
      params: backupUuid,
    },
    {
      method: 'DELETE', path: '/servers/{server_id}/backups/{backup_uuid}', command: 'backups delete',
      summary: 'Delete a backup',
      example: 'gsh backups delete -s lobby 8c1e6f8a-1b2c-4d3e-9f00-0a1b2c3d4e5f --yes',
      params: backupUuid, destructive: true,
    },
    {
      method: 'POST', path: '/servers/{server_id}/backups/{backup_uuid}/download', command: 'backups download', signedUrl: true,
      summary: 'A short-lived signed URL of the backup archive; --to downloads it',
      example: 'gsh backups download -s lobby 8c1e6f8a-1b2c-4d3e-9f00-0a1b2c3d4e5f --to ./backups/',
      params: backupUuid,
    },
    {
      method: 'POST', path: '/servers/{server_id}/backups/{backup_uuid}/lock', command: 'backups lock',
      summary: 'Lock a backup',
      example: 'gsh backups lock -s lobby 8c1e6f8a-1b2c-4d3e-9f00-0a1b2c3d4e5f',
      params: backupUuid,
    },
    {
      method: 'POST', path: '/servers/{server_id}/backups/{backup_uuid}/unlock', command: 'backups unlock',
      summary: 'Unlock a backup',
      example: 'gsh backups unlock -s lobby 8c1e6f8a-1b2c-4d3e-9f00-0a1b2c3d4e5f',
      params: backupUuid,
    },
    {
      method: 'POST', path: '/servers/{server_id}/backups/{backup_uuid}/transfer', command: 'backups transfer',
      summary: 'Transfer a backup',
      example: 'gsh backups transfer -s lobby 8c1e6f8a-1b2c-4d3e-9f00-0a1b2c3d4e5f -f target_server_id=srv_456',
      params: backupUuid,
    },
  ],
});
