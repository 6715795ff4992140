import { defineFamily } from './types.js';

const packId = { name: 'pack_id', description: 'Custom pack id from addons packs list' };
const item = [
  packId,
  { name: 'source', description: 'provider_a or provider_b' },
  { name: 'project_id', description: 'Project id of the item' },
];

// Document 3, "Custom packs": writes need file.update, reads file.read; the pack must be the key
// holder's. Metadata field names (name, loader, version, icon, project ids) are not named as
// body fields: send them with -f.
export default defineFamily({
  name: 'custom-packs',
  summary: 'Editable custom mod packs and their items',
  operations: [
    {
      method: 'GET', path: '/servers/{server_id}/addons/custom-packs', command: 'addons packs list',
      columns: ['id', 'name', 'loader', 'version', 'item_count', 'installed'],
      summary: "Your packs with installed flag and pending change count",
      example: 'gsh addons packs list -s lobby',
      scope: 'servers:addons:read', permission: 'file.read', paging: 'offset',
    },
    {
      method: 'POST', path: '/servers/{server_id}/addons/custom-packs', command: 'addons packs create',
      summary: 'Create an empty pack',
      example: 'gsh addons packs create -s lobby -f name="My pack" -f loader=fabric -f version=1.21.4',
      scope: 'servers:addons:write', permission: 'file.update',
    },
    {
      method: 'POST', path: '/servers/{server_id}/addons/custom-packs/fork', command: 'addons packs fork',
      summary: 'Import a marketplace modpack (provider_a or provider_b) into an editable pack',
      example: 'gsh addons packs fork -s lobby -f source=provider_a -f project_id=1KVo5zza',
      scope: 'servers:addons:write', permission: 'file.update',
    },
    {
      method: 'GET', path: '/servers/{server_id}/addons/custom-packs/{pack_id}', command: 'addons packs get',
      summary: 'Pack metadata and full item list',
      example: 'gsh addons packs get -s lobby pack_123',
      scope: 'servers:addons:read', permission: 'file.read', params: [packId],
    },
    {
      method: 'PATCH', path: '/servers/{server_id}/addons/custom-packs/{pack_id}', command: 'addons packs update',
      summary: 'Change pack metadata; only supplied fields change',
      example: 'gsh addons packs update -s lobby pack_123 -f name="Renamed pack"',
      scope: 'servers:addons:write', permission: 'file.update', params: [packId],
    },
    {
      method: 'DELETE', path: '/servers/{server_id}/addons/custom-packs/{pack_id}', command: 'addons packs delete',
      summary: 'Delete a pack and its items (installed mods untouched)',
      example: 'gsh addons packs delete -s lobby pack_123 --yes',
      scope: 'servers:addons:write', permission: 'file.update', params: [packId], destructive: true,
    },
    {
      method: 'GET', path: '/servers/{server_id}/addons/custom-packs/{pack_id}/diff', command: 'addons packs diff',
      summary: 'Mods an install would add, remove or change version',
      example: 'gsh addons packs diff -s lobby pack_123',
      scope: 'servers:addons:read', permission: 'file.read', params: [packId],
    },
    {
      method: 'POST', path: '/servers/{server_id}/addons/custom-packs/{pack_id}/install', command: 'addons packs install',
      summary: 'Install onto the active instance: diff sync, or full (loader reinstalled, /mods wiped)',
      example: 'gsh addons packs install -s lobby pack_123 --yes',
      scope: 'servers:addons:write', permission: 'file.update', params: [packId], destructive: true,
    },
    {
      method: 'POST', path: '/servers/{server_id}/addons/custom-packs/{pack_id}/items', command: 'addons packs items add',
      summary: 'Add a mod with its required dependencies; incompatible ones need force',
      example: 'gsh addons packs items add -s lobby pack_123 -f source=provider_a -f project_id=AANobbMI --force',
      scope: 'servers:addons:write', permission: 'file.update', params: [packId],
      body: [{ name: 'force', type: 'boolean',
        description: 'Add even when incompatible with the pack (after requires_confirmation: true)' }],
    },
    {
      method: 'DELETE', path: '/servers/{server_id}/addons/custom-packs/{pack_id}/items/{source}/{project_id}',
      command: 'addons packs items delete',
      summary: 'Remove an item from a pack',
      example: 'gsh addons packs items delete -s lobby pack_123 provider_a AANobbMI --yes',
      scope: 'servers:addons:write', permission: 'file.update', params: item, destructive: true,
    },
    {
      method: 'PATCH', path: '/servers/{server_id}/addons/custom-packs/{pack_id}/items/{source}/{project_id}',
      command: 'addons packs items update',
      summary: "Change an item's pinned version",
      example: 'gsh addons packs items update -s lobby pack_123 provider_a AANobbMI -f version_id=mc1.21-0.6',
      scope: 'servers:addons:write', permission: 'file.update', params: item,
    },
  ],
});
