import { defineFamily } from './types.js';

// Document 3, "Worlds". Unnamed body fields (world name, project id, file URL, NBT updates) are
// sent with -f/-F.
export default defineFamily({
  name: 'worlds',
  summary: 'World folders, downloads, marketplace maps, Bedrock worlds and level data',
  operations: [
    {
      method: 'GET', path: '/servers/{server_id}/worlds', command: 'worlds list',
      columns: ['name', 'edition', 'dimension', 'primary'], idField: 'name',
      summary: 'Detected world folders with edition, dimension type and primary flag',
      example: 'gsh worlds list -s lobby',
      scope: 'servers:worlds:read', permission: 'file.read', paging: 'offset',
    },
    {
      method: 'POST', path: '/servers/{server_id}/worlds/download', command: 'worlds download', signedUrl: true,
      summary: 'A signed short-lived URL of a compressed world archive (anyone with it can download); --to downloads it',
      example: 'gsh worlds download -s lobby -f world=world --to world.tar.gz',
      scope: 'servers:worlds:read', permission: 'file.read',
    },
    {
      method: 'GET', path: '/servers/{server_id}/worlds/maps', command: 'worlds maps search',
      columns: ['id', 'name'],
      summary: 'Marketplace map search, nine results per page (no q: most downloaded)',
      example: 'gsh worlds maps search -s lobby --q skyblock --page 2',
      scope: 'servers:worlds:read', permission: 'file.read', paging: 'page',
      query: [
        { name: 'q', type: 'string', description: 'Search text; omitted gives the most downloaded' },
        { name: 'bedrock', type: 'boolean', description: 'Bedrock maps' },
      ],
    },
    {
      method: 'POST', path: '/servers/{server_id}/worlds/maps/install', command: 'worlds maps install',
      summary: 'Download and extract a marketplace map (latest file unless file_id given)',
      example: 'gsh worlds maps install -s lobby -f project_id=12345 --file-id 67890',
      scope: 'servers:worlds:write', permission: 'file.create',
      body: [{ name: 'file_id', type: 'string', description: 'Map file to install; latest when omitted' }],
    },
    {
      method: 'POST', path: '/servers/{server_id}/worlds/mcworld', command: 'worlds mcworld install',
      summary: 'Install a Bedrock world file into /worlds/, optionally made primary',
      example: 'gsh worlds mcworld install -s bedrock1 -f url=https://example.com/castle.mcworld',
      scope: 'servers:worlds:write', permission: 'file.create',
    },
    {
      method: 'GET', path: '/servers/{server_id}/worlds/nbt', command: 'worlds nbt get',
      summary: "Parse a world's level.dat (Java or Bedrock) or the third game's config.json",
      example: 'gsh worlds nbt get -s lobby --world world --json',
      scope: 'servers:worlds:read', permission: 'file.read-content',
      query: [
        { name: 'world', type: 'string', required: true, description: 'World name' },
        { name: 'nbt_type', type: 'string', choices: ['java', 'bedrock'], open: true,
          description: 'java, bedrock or a game-specific value; auto-detected when omitted' },
        { name: 'path', type: 'string', description: 'Full world directory' },
      ],
    },
    {
      method: 'PUT', path: '/servers/{server_id}/worlds/nbt', command: 'worlds nbt update',
      summary: 'Apply NBT path updates to a world (body up to 4 MB, else 413)',
      example: 'gsh worlds nbt update -s lobby --input updates.json',
      scope: 'servers:worlds:write', permission: 'file.update',
    },
    {
      method: 'PUT', path: '/servers/{server_id}/worlds/primary', command: 'worlds primary',
      summary: 'Make a world primary (sets level-name; restart needed)',
      example: 'gsh worlds primary -s lobby -f world=survival',
      scope: 'servers:worlds:write', permission: 'file.update',
    },
  ],
});
