import { defineFamily } from './types.js';
import { EVENT_TYPES as EVENTS } from './vocabulary.js';

const hookId = [{ name: 'hook_id', description: 'Webhook id from hooks list' }];

// Document 2, "Webhooks"; event types and delivery rules from document 1, "Webhooks (per server)".
// The endpoint table says "event list"; the field is named `events` after the manifest's hooks[]
// entries, which follow the same contract.
export default defineFamily({
  name: 'hooks',
  summary: 'Per-server webhooks pushing lifecycle events to HTTPS endpoints',
  operations: [
    {
      method: 'GET', path: '/servers/{server_id}/hooks', command: 'hooks list',
      columns: ['id', 'url', 'events', 'enabled', 'consecutive_failures', 'created_at'],
      summary: 'Webhooks of the server; the secret is never returned',
      example: 'gsh hooks list -s lobby',
      scope: 'servers:webhooks:read', permission: 'settings.edit', paging: 'offset',
    },
    {
      method: 'POST', path: '/servers/{server_id}/hooks', command: 'hooks create',
      summary: 'Register a webhook; the 201 response carries the secret, returned only now',
      example: 'gsh hooks create -s lobby --url https://example.com/hook --events server.crashed,backup.completed',
      scope: 'servers:webhooks:write', permission: 'settings.edit',
      ifAbsent: { list: '/servers/{server_id}/hooks', field: 'url' },
      body: [
        { name: 'url', type: 'string', required: true, check: 'https-url',
          description: 'https only; must not resolve to a private or reserved address' },
        { name: 'events', type: 'string[]', choices: EVENTS, open: true,
          description: 'Event types to deliver (player.* and threshold.* only when listed)' },
        { name: 'secret', type: 'string', secret: true,
          description: 'Signing secret, 16 to 128 characters; generated when omitted' },
      ],
    },
    {
      method: 'PATCH', path: '/servers/{server_id}/hooks/{hook_id}', command: 'hooks update',
      summary: 'Change any of url, events, enabled; re-enabling clears the failure counter',
      example: 'gsh hooks update -s lobby hook_123 --enabled',
      scope: 'servers:webhooks:write', permission: 'settings.edit', params: hookId,
      body: [
        { name: 'url', type: 'string', check: 'https-url', description: 'New https URL (re-vetted)' },
        { name: 'events', type: 'string[]', choices: EVENTS, open: true, description: 'Event types to deliver' },
        { name: 'enabled', type: 'boolean', description: 'Enable or disable deliveries' },
      ],
    },
    {
      method: 'DELETE', path: '/servers/{server_id}/hooks/{hook_id}', command: 'hooks delete',
      summary: 'Delete a webhook',
      example: 'gsh hooks delete -s lobby hook_123 --yes',
      scope: 'servers:webhooks:write', permission: 'settings.edit', params: hookId, destructive: true,
    },
    {
      method: 'GET', path: '/servers/{server_id}/hooks/{hook_id}/deliveries', command: 'hooks deliveries',
      columns: ['id', 'event', 'attempt', 'success', 'duration_ms', 'delivered_at'],
      summary: 'Recent delivery attempts of a webhook, newest first',
      example: 'gsh hooks deliveries -s lobby hook_123 --limit 10',
      scope: 'servers:webhooks:read', permission: 'settings.edit', params: hookId, paging: 'offset',
    },
  ],
});
