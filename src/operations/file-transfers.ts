import { defineFamily } from './types.js';

// Document 3, "File transfers". Item-list field names are not shown; `files` follows
// `files/archive/extract`, so the contract's item caps can be checked before sending.
export default defineFamily({
  name: 'file-transfers',
  summary: 'Copy between directories and servers, pull URLs, signed download and upload URLs',
  operations: [
    {
      method: 'POST', path: '/servers/{server_id}/files/copy-to', command: 'files copy-to',
      summary: 'Copy or cut up to 100 items to another directory (collisions resolved automatically)',
      example: 'gsh files copy-to -s lobby --mode copy --files /a.txt,/b.txt -f destination=/archive',
      scope: 'servers:files:write', permission: { byValue: { field: 'mode', values: { cut: ['file.update'] } } },
      body: [
        { name: 'mode', type: 'string', choices: ['copy', 'cut'], description: 'copy, or cut (needs file.update)' },
        { name: 'files', type: 'string[]', maxItems: 100, description: 'Items to copy or cut (at most 100)' },
      ],
    },
    {
      method: 'POST', path: '/servers/{server_id}/files/download', command: 'files download', signedUrl: true,
      summary: 'A short-lived signed URL to GET the file from the node; --to downloads it',
      example: 'gsh files download -s lobby -f file=/logs/latest.log',
      scope: 'servers:files:read', permission: 'file.read',
    },
    {
      method: 'POST', path: '/servers/{server_id}/files/pull', command: 'files pull',
      summary: 'Have the node download an http(s) URL into the server (202)',
      example: 'gsh files pull -s lobby --url https://example.com/plugin.jar -f directory=/plugins --wait',
      scope: 'servers:files:write',
      // Field name not shown; `url` as in the manifest's assets[].
      body: [{ name: 'url', type: 'string', required: true, check: 'http-url',
        description: 'http(s) URL; private, loopback and metadata hosts are rejected' }],
      wait: { kind: 'pull' },
    },
    {
      method: 'GET', path: '/servers/{server_id}/files/pull/status', command: 'files pull-status',
      summary: 'Active downloads, each with its completion fraction',
      example: 'gsh files pull-status -s lobby',
      scope: 'servers:files:read', permission: 'file.read',
    },
    {
      method: 'POST', path: '/servers/{server_id}/files/transfer', command: 'files transfer',
      summary: 'Copy up to 50 files to another server you own (path server is the source)',
      example: 'gsh files transfer -s lobby --files /world.zip -f target_server_id=srv_456',
      // Read on the source (the path server), write on the target, "authorized independently".
      // The target's field name is not shown; `target_server_id` is ours.
      scope: { allOf: ['servers:files:read', 'servers:files:write'] },
      permission: { allOf: ['file.read'], onServer: { field: 'target_server_id', allOf: ['file.create'] } },
      body: [{ name: 'files', type: 'string[]', maxItems: 50, description: 'Files to copy (at most 50)' }],
    },
    {
      method: 'POST', path: '/servers/{server_id}/files/upload', command: 'files upload',
      summary: 'A short-lived signed URL to POST a multipart upload to (add query directory)',
      example: 'gsh files upload -s lobby',
      scope: 'servers:files:write', permission: 'file.create',
    },
  ],
});
