import { defineFamily } from './types.js';
import { LOADERS } from './vocabulary.js';
import type { Field } from './types.js';

const PROVIDERS = ['provider_a', 'provider_b', 'provider_c'] as const;
const id: Field = { name: 'id', type: 'string', required: true, description: 'Project id' };
const source: Field = { name: 'source', type: 'string', required: true, choices: PROVIDERS, open: true,
  description: 'Marketplace provider' };
const contentType: Field = { name: 'content_type', type: 'string', description: 'Content type hint' };

// Document 3, "Marketplace": all need servers:addons:read and file.read.
export default defineFamily({
  name: 'marketplace',
  summary: 'Marketplace search, details, versions and changelogs',
  operations: [
    {
      method: 'GET', path: '/servers/{server_id}/addons/content/changelog', command: 'addons content changelog',
      summary: "A project file's changelog (provider_a or provider_b)",
      example: 'gsh addons content changelog -s lobby --id P7dR8mSH --file-id 5zXa --source provider_a',
      scope: 'servers:addons:read', permission: 'file.read',
      query: [
        id,
        { name: 'file_id', type: 'string', required: true, description: 'Project file id' },
        { ...source, choices: ['provider_a', 'provider_b'], open: false, description: 'provider_a or provider_b' },
      ],
    },
    {
      method: 'GET', path: '/servers/{server_id}/addons/content/changelog/timeline', command: 'addons content timeline',
      summary: "A project's changelog timeline, newest first",
      example: 'gsh addons content timeline -s lobby --id P7dR8mSH --source provider_a --limit 25',
      scope: 'servers:addons:read', permission: 'file.read',
      query: [
        id, source,
        { name: 'limit', type: 'integer', max: 25, clamp: true, default: 15, description: 'Entries (default 15, max 25)' },
      ],
    },
    {
      method: 'GET', path: '/servers/{server_id}/addons/content/details', command: 'addons content details',
      summary: 'Project details normalized to a provider_a-shaped object',
      example: 'gsh addons content details -s lobby --id P7dR8mSH --source provider_a',
      scope: 'servers:addons:read', permission: 'file.read',
      query: [id, source, contentType],
    },
    {
      method: 'GET', path: '/servers/{server_id}/addons/content/related', command: 'addons content related',
      columns: ['id', 'name'],
      summary: 'Projects related to one (provider_a only)',
      example: 'gsh addons content related -s lobby --id P7dR8mSH --source provider_a --page 2',
      scope: 'servers:addons:read', permission: 'file.read', paging: 'page',
      query: [id, { ...source, choices: ['provider_a'], open: false, description: 'provider_a only' }],
    },
    {
      method: 'GET', path: '/servers/{server_id}/addons/content/versions', command: 'addons content versions',
      summary: "A project's versions",
      example: 'gsh addons content versions -s lobby --id P7dR8mSH --source provider_a',
      scope: 'servers:addons:read', permission: 'file.read',
      query: [id, source, contentType],
    },
    {
      method: 'GET', path: '/servers/{server_id}/addons/search', command: 'addons search',
      columns: ['id', 'name'],
      summary: 'Search the marketplace, nine results per page',
      example: 'gsh addons search -s lobby --type mods --query sodium --loader fabric --sort downloads',
      scope: 'servers:addons:read', permission: 'file.read', paging: 'page',
      query: [
        { name: 'type', type: 'string', required: true,
          choices: ['plugins', 'mods', 'modpacks', 'datapacks', 'resourcepacks'], description: 'What to search' },
        { name: 'provider', type: 'string', choices: PROVIDERS, open: true, description: 'Provider (default by type)' },
        { name: 'query', type: 'string', description: 'Search text' },
        { name: 'sort', type: 'string', choices: ['downloads', 'relevance', 'follows', 'newest', 'updated'],
          open: true, description: 'Sort order' },
        { name: 'game_version', type: 'string', description: 'Game version' },
        // Values from the manifest's application.loader (01-general-contract.md "Init manifest"); others still go through.
        { name: 'loader', type: 'string', choices: LOADERS, open: true,
          description: 'Loader (mods only)' },
      ],
    },
  ],
});
