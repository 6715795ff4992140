import { defineFamily } from './types.js';

// Document 3, "File trash" (the dashboard trashes deletes; files delete does not). Entry-list
// field names are not shown: send them with -f/-F.
export default defineFamily({
  name: 'file-trash',
  summary: 'Trashed file entries: list, restore, delete, empty',
  operations: [
    {
      method: 'GET', path: '/servers/{server_id}/files/trash', command: 'files trash list',
      columns: ['id', 'path', 'size', 'deleted_at'],
      summary: 'Trashed entries',
      example: 'gsh files trash list -s lobby --all',
      scope: 'servers:files:read', permission: 'file.read', paging: 'offset',
    },
    {
      method: 'POST', path: '/servers/{server_id}/files/trash/delete', command: 'files trash delete',
      summary: 'Permanently remove the listed trash entries',
      example: 'gsh files trash delete -s lobby -f \'entries[]=trash_1\' --yes',
      scope: 'servers:files:write', permission: 'file.delete', destructive: true,
    },
    {
      method: 'POST', path: '/servers/{server_id}/files/trash/empty', command: 'files trash empty',
      summary: 'Remove every trash entry',
      example: 'gsh files trash empty -s lobby --yes',
      scope: 'servers:files:write', permission: 'file.delete', destructive: true,
    },
    {
      method: 'POST', path: '/servers/{server_id}/files/trash/restore', command: 'files trash restore',
      summary: 'Restore entries to their original paths (suffixed name on collision)',
      example: 'gsh files trash restore -s lobby -f \'entries[]=trash_1\'',
      scope: 'servers:files:write', permission: 'file.update',
    },
  ],
});
