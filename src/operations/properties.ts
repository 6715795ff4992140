import { defineFamily } from './types.js';

const configType = [{ name: 'config_type', description: 'Config type from properties configs list (fixed allowlist)' }];

// Document 2, "Properties". Bodies are key/value maps of the file's own keys: send them with -f.
export default defineFamily({
  name: 'properties',
  summary: 'server.properties and known application config files',
  operations: [
    {
      method: 'GET', path: '/servers/{server_id}/properties', command: 'properties list',
      columns: ['key', 'value'], idField: 'key',
      summary: 'Every server.properties entry, sorted by key',
      example: 'gsh properties list -s lobby',
      scope: 'servers:properties:read', permission: 'file.read',
    },
    {
      method: 'PUT', path: '/servers/{server_id}/properties', command: 'properties update',
      summary: 'Bulk key/value merge: only sent keys change, comments and ordering kept',
      example: 'gsh properties update -s lobby -f motd="Welcome" -F max-players=40',
      scope: 'servers:properties:write', permission: 'file.update',
    },
    {
      method: 'GET', path: '/servers/{server_id}/properties/configs', command: 'properties configs list',
      columns: ['path', 'type'], idField: 'path',
      summary: 'Known application config files that exist (server.properties excluded)',
      example: 'gsh properties configs list -s lobby',
      scope: 'servers:properties:read', permission: 'file.read',
    },
    {
      method: 'GET', path: '/servers/{server_id}/properties/configs/{config_type}', command: 'properties configs get',
      summary: 'A config file as flattened dot-notation key/value pairs plus raw content',
      example: 'gsh properties configs get -s lobby bukkit',
      scope: 'servers:properties:read', permission: 'file.read', params: configType,
    },
    {
      method: 'PUT', path: '/servers/{server_id}/properties/configs/{config_type}', command: 'properties configs update',
      summary: 'Dot-notation merge update preserving unsent content (not server.properties)',
      example: 'gsh properties configs update -s lobby bukkit -F settings.allow-end=false',
      scope: 'servers:properties:write', permission: 'file.update', params: configType,
    },
  ],
});
