import { defineFamily } from './types.js';

// Document 3, "Operation families that are only named" ("Cloud drive backups"): these need a
// connected cloud drive integration (else 412). No scope, permission, parameter or body shown.
export default defineFamily({
  name: 'gdrive-backups',
  summary: 'Backups on the connected cloud drive',
  operations: [
    {
      method: 'GET', path: '/servers/{server_id}/backups/gdrive', command: 'backups gdrive list',
      summary: 'Backups on the cloud drive',
      example: 'gsh backups gdrive list -s lobby',
    },
    {
      method: 'POST', path: '/servers/{server_id}/backups/gdrive/link-backup', command: 'backups gdrive link-backup',
      summary: 'Link a cloud drive backup to the server',
      example: 'gsh backups gdrive link-backup -s lobby -f file_id=1AbC',
    },
    {
      method: 'GET', path: '/servers/{server_id}/backups/gdrive/orphans', command: 'backups gdrive orphans',
      summary: 'Cloud drive backups not linked to a server backup',
      example: 'gsh backups gdrive orphans -s lobby',
    },
    {
      method: 'GET', path: '/servers/{server_id}/backups/gdrive/quota', command: 'backups gdrive quota',
      summary: 'Cloud drive quota',
      example: 'gsh backups gdrive quota -s lobby',
    },
    {
      method: 'POST', path: '/servers/{server_id}/backups/{backup_uuid}/gdrive-download', command: 'backups gdrive download',
      summary: 'Fetch a backup from the cloud drive',
      example: 'gsh backups gdrive download -s lobby 8c1e6f8a-1b2c-4d3e-9f00-0a1b2c3d4e5f',
      params: [{ name: 'backup_uuid', description: 'Backup uuid from backups gdrive list' }],
    },
  ],
});
