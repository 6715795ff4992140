import { defineFamily } from './types.js';

// Document 3, "Importer". No job resource exists: --wait follows the server status.
export default defineFamily({
  name: 'importer',
  summary: 'Import an external server over SFTP or FTP (destructive)',
  operations: [
    {
      method: 'POST', path: '/servers/{server_id}/importer', command: 'importer start',
      summary: 'Import from a remote SFTP/FTP server: kills the server, may delete files, queues a rebuild (202)',
      example: 'gsh importer start -s lobby -f host=old.example.com -f protocol=sftp --yes --wait',
      scope: 'servers:importer:write', destructive: true,
      wait: { kind: 'server-status' },
    },
  ],
});
