import { defineFamily } from './types.js';

const backupUuid = [{ name: 'backup_uuid', description: 'Backup uuid from backups list' }];

// Document 3, "Operation families that are only named" ("Backup restore"): no scope,
// permission, parameter or body is shown (the scope servers:backups:restore exists but no
// per-operation mapping is stated). Restores are destructive (document 1); their progress is
// reported by lifecycle_status on the server status resource, which --wait follows.
export default defineFamily({
  name: 'backup-restore',
  summary: 'Browse backups and restore from them',
  operations: [
    {
      method: 'GET', path: '/servers/{server_id}/backups/scheduled/{backup_uuid}/restore-points', command: 'backups scheduled restore-points',
      summary: 'Restore points of a scheduled backup',
      example: 'gsh backups scheduled restore-points -s lobby 8c1e6f8a-1b2c-4d3e-9f00-0a1b2c3d4e5f',
      params: backupUuid,
    },
    {
      method: 'GET', path: '/servers/{server_id}/backups/{backup_uuid}/browse', command: 'backups browse',
      summary: 'Browse the files in a backup',
      example: 'gsh backups browse -s lobby 8c1e6f8a-1b2c-4d3e-9f00-0a1b2c3d4e5f',
      params: backupUuid,
    },
    {
      method: 'GET', path: '/servers/{server_id}/backups/{backup_uuid}/contents', command: 'backups contents',
      summary: 'Contents of a backup',
      example: 'gsh backups contents -s lobby 8c1e6f8a-1b2c-4d3e-9f00-0a1b2c3d4e5f',
      params: backupUuid,
    },
    {
      method: 'POST', path: '/servers/{server_id}/backups/{backup_uuid}/copy-to-server', command: 'backups copy-to-server',
      summary: 'Copy files from a backup onto the server',
      example: 'gsh backups copy-to-server -s lobby 8c1e6f8a-1b2c-4d3e-9f00-0a1b2c3d4e5f -f path=/plugins',
      params: backupUuid,
    },
    {
      method: 'POST', path: '/servers/{server_id}/backups/{backup_uuid}/quick-restore', command: 'backups quick-restore',
      summary: 'Quick-restore the server from a backup',
      example: 'gsh backups quick-restore -s lobby 8c1e6f8a-1b2c-4d3e-9f00-0a1b2c3d4e5f --yes --wait',
      params: backupUuid, destructive: true, wait: { kind: 'server-status' },
    },
    {
      method: 'POST', path: '/servers/{server_id}/backups/{backup_uuid}/restore', command: 'backups restore',
      summary: 'Restore the server from a backup',
      example: 'gsh backups restore -s lobby 8c1e6f8a-1b2c-4d3e-9f00-0a1b2c3d4e5f --yes --wait',
      params: backupUuid, destructive: true, wait: { kind: 'server-status' },
    },
    {
      method: 'POST', path: '/servers/{server_id}/backups/{backup_uuid}/restore/selective', command: 'backups restore-selective',
      summary: 'Restore selected files from a backup',
      example: 'gsh backups restore-selective -s lobby 8c1e6f8a-1b2c-4d3e-9f00-0a1b2c3d4e5f --input restore.json --yes --wait',
      params: backupUuid, destructive: true, wait: { kind: 'server-status' },
    },
  ],
});
