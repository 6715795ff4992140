import { defineFamily } from './types.js';

// Document 3, "File tools".
export default defineFamily({
  name: 'file-tools',
  summary: 'chmod, compress, decompress, disk usage, history and search',
  operations: [
    {
      method: 'POST', path: '/servers/{server_id}/files/chmod', command: 'files chmod',
      summary: 'Change file modes (octal strings such as 644 or 0755, validated before the node call)',
      example: 'gsh files chmod -s lobby --mode 0755 -f \'files[]=/start.sh\'',
      scope: 'servers:files:write', permission: 'file.update',
      // Field name not shown; inferred from the 400 wording ("bad path, mode, or no files").
      body: [{ name: 'mode', type: 'string', check: 'octal-mode', description: 'Octal mode, e.g. 644 or 0755' }],
    },
    {
      method: 'POST', path: '/servers/{server_id}/files/compress', command: 'files compress',
      summary: 'Pack paths into a tar.gz archive in directory',
      example: 'gsh files compress -s lobby --directory / -f \'files[]=world\' -f \'files[]=plugins\'',
      scope: 'servers:files:write', permission: 'file.create',
      body: [{ name: 'directory', type: 'string', description: 'Where the paths are and the archive goes' }],
    },
    {
      method: 'POST', path: '/servers/{server_id}/files/decompress', command: 'files decompress',
      summary: 'Extract an archive into directory',
      example: 'gsh files decompress -s lobby --directory / -f file=world.tar.gz',
      scope: 'servers:files:write', permission: 'file.delete',
      body: [{ name: 'directory', type: 'string', description: 'Directory to extract into' }],
    },
    {
      method: 'GET', path: '/servers/{server_id}/files/disk-usage', command: 'files disk-usage',
      columns: ['path', 'type', 'size', 'share'], idField: 'path',
      summary: 'Entries directly under directory, largest first, each with its share (can take a minute)',
      example: 'gsh files disk-usage -s lobby --directory / --limit 20',
      scope: 'servers:files:read', permission: 'file.read',
      query: [
        { name: 'directory', type: 'string', default: '/', description: 'Directory to measure' },
        { name: 'limit', type: 'integer', min: 1, max: 100, clamp: true, description: 'Entries to return (clamped 1 to 100)' },
        { name: 'recursive', type: 'boolean', description: 'Measure recursively' },
      ],
    },
    {
      method: 'GET', path: '/servers/{server_id}/files/history', command: 'files history',
      columns: ['revision', 'changed_at', 'size', 'previous_size'], idField: 'revision',
      summary: "A file's change history, newest first, with unified diffs where available",
      example: 'gsh files history -s lobby --path /server.properties --limit 10',
      scope: 'servers:files:read', permission: 'file.read-content',
      query: [
        { name: 'path', type: 'string', required: true, description: 'File path' },
        { name: 'limit', type: 'integer', min: 1, max: 50, clamp: true, description: 'Entries to return (clamped 1 to 50)' },
        { name: 'offset', type: 'integer', min: 0, default: 0, description: 'Entries to skip' },
      ],
    },
    {
      method: 'GET', path: '/servers/{server_id}/files/search', command: 'files search',
      columns: ['path', 'type', 'size', 'modified_at'], idField: 'path',
      summary: 'Find files whose names match query',
      example: 'gsh files search -s lobby --query config --directory /plugins',
      scope: 'servers:files:read', permission: 'file.read',
      query: [
        { name: 'query', type: 'string', required: true, description: 'Text matched against names (not empty)' },
        { name: 'directory', type: 'string', description: 'Directory to search' },
      ],
    },
    {
      method: 'GET', path: '/servers/{server_id}/files/search/content', command: 'files search-content',
      columns: ['path', 'line', 'text'], idField: 'path',
      summary: 'Search file contents (the node scans at most 2 MB per file)',
      example: 'gsh files search-content -s lobby --query "max-players" --extensions properties,yml --context-lines 2',
      scope: 'servers:files:read', permission: 'file.read',
      query: [
        { name: 'query', type: 'string', required: true, description: 'Text to find (at least 2 characters)' },
        { name: 'directory', type: 'string', description: 'Directory to search' },
        { name: 'case_sensitive', type: 'boolean', description: 'Match case' },
        { name: 'context_lines', type: 'integer', min: 0, max: 10, clamp: true, description: 'Lines around each match (clamped 0 to 10)' },
        { name: 'limit', type: 'integer', min: 1, max: 500, clamp: true, description: 'Matches to return (clamped 1 to 500)' },
        { name: 'extensions', type: 'string', description: 'Comma-separated file extensions' },
      ],
    },
  ],
});
