import { defineFamily } from './types.js';

const uuid = [{ name: 'uuid', description: 'Player UUID', check: 'uuid' as const }];

// Document 3, "Players". Unnamed body fields (player command, inventory edits, NBT updates) are
// sent with -f/-F.
export default defineFamily({
  name: 'players',
  summary: 'Players, their data files, inventories and UUID migration',
  operations: [
    {
      method: 'GET', path: '/servers/{server_id}/players', command: 'players list',
      columns: ['uuid', 'name', 'online', 'op', 'banned', 'last_seen'], idField: 'uuid',
      summary: 'Players from data files merged with ops, bans and name cache, with online flag',
      example: 'gsh players list -s lobby --search alex',
      scope: 'servers:players:read', permission: 'file.read', paging: 'offset',
      query: [{ name: 'search', type: 'string', description: 'Substring of name or UUID' }],
    },
    {
      method: 'GET', path: '/servers/{server_id}/players/max', command: 'players max get',
      summary: 'The max-players setting',
      example: 'gsh players max get -s lobby',
      scope: 'servers:players:read', permission: 'file.read',
    },
    {
      method: 'PUT', path: '/servers/{server_id}/players/max', command: 'players max update',
      summary: 'Set max-players, an integer 0 to 1000 (restart needed)',
      example: 'gsh players max update -s lobby --max-players 50',
      scope: 'servers:players:write', permission: 'file.update',
      // Field name not shown in the contract; we send `max_players`.
      body: [{ name: 'max_players', type: 'integer', required: true, min: 0, max: 1000,
        description: 'Maximum players, 0 to 1000' }],
    },
    {
      method: 'GET', path: '/servers/{server_id}/players/online', command: 'players online',
      summary: 'Live player query; 0 with query_succeeded: false when unreachable',
      example: 'gsh players online -s lobby',
      scope: 'servers:players:read', permission: 'file.read',
    },
    {
      method: 'GET', path: '/servers/{server_id}/players/resolve', command: 'players resolve',
      summary: 'Resolve a player name to a UUID (rate limited)',
      example: 'gsh players resolve -s lobby --name Notch',
      scope: 'servers:players:read', permission: 'file.update',
      query: [
        { name: 'name', type: 'string', required: true, description: 'Player name' },
        { name: 'online_mode', type: 'boolean', default: true,
          description: 'true: external profile lookup; false: offline UUID computed locally' },
      ],
    },
    {
      method: 'GET', path: '/servers/{server_id}/players/{uuid}', command: 'players get',
      summary: 'Full player detail with op, whitelist, ban and online status',
      example: 'gsh players get -s lobby 069a79f4-44e9-4726-a5be-fca90e38aaf5 --section stats',
      scope: 'servers:players:read', permission: 'file.read-content', params: uuid,
      query: [{ name: 'section', type: 'string', choices: ['stats', 'advancements', 'recipes'],
        description: 'Return only this part' }],
    },
    {
      method: 'POST', path: '/servers/{server_id}/players/{uuid}/command', command: 'players command',
      summary: 'Build a command for the player (admin or gameplay) and send it through the console',
      example: 'gsh players command -s lobby 069a79f4-44e9-4726-a5be-fca90e38aaf5 -f command=heal',
      scope: 'servers:players:write', permission: 'control.console', params: uuid,
    },
    {
      method: 'GET', path: '/servers/{server_id}/players/{uuid}/inventory', command: 'players inventory get',
      summary: 'Main inventory, ender chest and equipment',
      example: 'gsh players inventory get -s lobby 069a79f4-44e9-4726-a5be-fca90e38aaf5',
      scope: 'servers:players:read', permission: 'file.read-content', params: uuid,
    },
    {
      method: 'PATCH', path: '/servers/{server_id}/players/{uuid}/inventory', command: 'players inventory update',
      summary: 'Edit the inventory through console commands (clear, give, move, delete-item, clear-enderchest)',
      example: 'gsh players inventory update -s lobby 069a79f4-44e9-4726-a5be-fca90e38aaf5 --input edit.json',
      scope: 'servers:players:write', permission: 'control.console', params: uuid,
    },
    {
      method: 'PATCH', path: '/servers/{server_id}/players/{uuid}/nbt', command: 'players nbt update',
      summary: 'Up to 50 field updates of the player data, with optional type coercion',
      example: 'gsh players nbt update -s lobby 069a79f4-44e9-4726-a5be-fca90e38aaf5 --input nbt.json',
      scope: 'servers:players:write', permission: 'file.update', params: uuid,
    },
    {
      method: 'DELETE', path: '/servers/{server_id}/players/{uuid}/files', command: 'players files delete',
      summary: "Delete the player's playerdata, stats or advancements file (irreversible)",
      example: 'gsh players files delete -s lobby 069a79f4-44e9-4726-a5be-fca90e38aaf5 --type stats --yes',
      scope: 'servers:players:write', permission: 'file.delete', params: uuid, destructive: true,
      // The contract names the three file types (400 otherwise) but not where the type goes; a
      // DELETE carries no body here, so it is a query parameter.
      query: [{ name: 'type', type: 'string', required: true, choices: ['playerdata', 'stats', 'advancements'], description: 'Which file to delete' }],
    },
    {
      method: 'POST', path: '/servers/{server_id}/players/migrate/preview', command: 'players migrate preview',
      summary: 'The online-to-offline (or reverse) UUID migration plan, without changes',
      example: 'gsh players migrate preview -s lobby',
      scope: 'servers:players:read', permission: 'file.read',
    },
    {
      method: 'POST', path: '/servers/{server_id}/players/migrate/apply', command: 'players migrate apply',
      summary: 'Rename player files, rewrite registries, flip online-mode (server stopped)',
      example: 'gsh players migrate apply -s lobby --backup-id bak_123 --yes',
      scope: 'servers:players:write', permission: { allOf: ['file.read', 'file.update'] }, destructive: true,
      body: [{ name: 'backup_id', type: 'string', description: 'A completed backup to fall back on (should be supplied)' }],
    },
  ],
});
