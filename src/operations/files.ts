import { defineFamily } from './types.js';

// Document 3, "Files". Body field names not named there (copy, delete, content) are sent with -f.
export default defineFamily({
  name: 'files',
  summary: 'Browse, read, write, copy, move and delete server files',
  operations: [
    {
      method: 'GET', path: '/servers/{server_id}/files', command: 'files list',
      columns: ['name', 'type', 'size', 'modified_at'], idField: 'path',
      summary: 'Directory listing in node order; pagination.total is the full listing size',
      example: 'gsh files list -s lobby --directory /plugins --all',
      scope: 'servers:files:read', permission: 'file.read', paging: 'offset',
      query: [{ name: 'directory', type: 'string', default: '/', description: 'Directory to list' }],
    },
    {
      method: 'GET', path: '/servers/{server_id}/files/content', command: 'files content get',
      summary: 'A file as UTF-8 text (binary files give 400)',
      example: 'gsh files content get -s lobby --path /server.properties',
      scope: 'servers:files:read', permission: 'file.read-content', raw: true,
      query: [{ name: 'path', type: 'string', required: true, check: 'absolute-path', description: 'Absolute file path' }],
    },
    {
      method: 'PUT', path: '/servers/{server_id}/files/content', command: 'files content update',
      summary: 'Write inline UTF-8 content (at most 64 KB, else 413; larger files: files upload), creating the file',
      example: 'gsh files content update -s lobby -f path=/motd.txt -f content="Welcome"',
      scope: 'servers:files:write', permission: 'file.update',
    },
    {
      method: 'POST', path: '/servers/{server_id}/files/copy', command: 'files copy',
      summary: 'Copy a file in place (adjacent copy by the node)',
      example: 'gsh files copy -s lobby -f location=/server.properties',
      scope: 'servers:files:write', permission: 'file.create',
    },
    {
      method: 'POST', path: '/servers/{server_id}/files/delete', command: 'files delete',
      summary: 'Delete the listed files immediately, with no trash',
      example: 'gsh files delete -s lobby -f \'files[]=/logs/old.log\' --yes',
      scope: 'servers:files:write', permission: 'file.delete', destructive: true,
    },
    {
      method: 'POST', path: '/servers/{server_id}/files/folder', command: 'files folder',
      summary: 'Create a folder name inside a parent path',
      example: 'gsh files folder -s lobby --name backups --path /',
      scope: 'servers:files:write', permission: 'file.create',
      body: [
        { name: 'name', type: 'string', required: true, description: 'New folder name' },
        { name: 'path', type: 'string', description: 'Parent directory' },
      ],
    },
    {
      method: 'POST', path: '/servers/{server_id}/files/move', command: 'files move',
      summary: 'Move a file or directory',
      example: 'gsh files move -s lobby --from /world_old --to /archive/world_old',
      scope: 'servers:files:write', permission: 'file.update',
      body: [
        { name: 'from', type: 'string', required: true, description: 'Current path' },
        { name: 'to', type: 'string', required: true, description: 'New path' },
      ],
    },
    {
      method: 'POST', path: '/servers/{server_id}/files/rename', command: 'files rename',
      summary: 'Rename a file or directory',
      example: 'gsh files rename -s lobby --from /plugins/a.jar --to /plugins/b.jar',
      scope: 'servers:files:write', permission: 'file.update',
      body: [
        { name: 'from', type: 'string', required: true, description: 'Current path' },
        { name: 'to', type: 'string', required: true, description: 'New path' },
      ],
    },
    {
      method: 'GET', path: '/servers/{server_id}/sftp', command: 'files sftp',
      summary: 'SFTP hostname, port and username (never a password)',
      example: 'gsh files sftp -s lobby',
      scope: 'servers:sftp:read', permission: 'file.sftp',
    },
  ],
});
