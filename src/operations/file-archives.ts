import { defineFamily } from './types.js';

// Document 3, "Archives and structured data files". The NBT write body is not named: send it
// with -f/-F.
export default defineFamily({
  name: 'file-archives',
  summary: 'Archive listing and extraction, NBT files',
  operations: [
    {
      method: 'GET', path: '/servers/{server_id}/files/archive', command: 'files archive list',
      summary: 'Entries of an archive with sizes, without extracting',
      example: 'gsh files archive list -s lobby --path /world.zip',
      scope: 'servers:files:read', permission: 'file.read',
      query: [
        { name: 'path', type: 'string', required: true, description: 'Archive path' },
        { name: 'directory', type: 'string', default: '/', description: 'Directory the path is relative to' },
      ],
    },
    {
      method: 'POST', path: '/servers/{server_id}/files/archive/extract', command: 'files archive extract',
      summary: 'Extract into directory; empty files extracts everything (may take 10 minutes)',
      example: 'gsh files archive extract -s lobby -f path=/world.zip --directory /world --files level.dat',
      scope: 'servers:files:write', permission: 'file.create',
      body: [
        { name: 'directory', type: 'string', description: 'Directory to extract into' },
        { name: 'files', type: 'string[]', description: 'Entries to extract; empty extracts everything' },
      ],
    },
    {
      method: 'GET', path: '/servers/{server_id}/files/nbt', command: 'files nbt get',
      summary: 'Parse a .dat, .nbt, .schematic or .schem file into a tree (over 5 MB rejected)',
      example: 'gsh files nbt get -s lobby --path /world/level.dat --json',
      scope: 'servers:files:read', permission: 'file.read-content',
      query: [{ name: 'path', type: 'string', required: true, description: 'File path (.dat, .nbt, .schematic, .schem)' }],
    },
    {
      method: 'PUT', path: '/servers/{server_id}/files/nbt', command: 'files nbt update',
      summary: 'Write a tree back to such a file (body up to 4 MB, else 413)',
      example: 'gsh files nbt update -s lobby --input level.json',
    },
  ],
});
