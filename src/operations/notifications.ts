import { defineFamily } from './types.js';

// Document 2, "Notifications": crash detection and the chat webhook. The chat webhook's body
// field names (URL, event triggers) are not shown: send them with -f.
export default defineFamily({
  name: 'notifications',
  summary: 'Crash detection and chat webhook notifications',
  operations: [
    {
      method: 'GET', path: '/servers/{server_id}/settings/crash-config', command: 'settings crash-config get',
      summary: 'Crash detection and auto-recovery settings (premium)',
      example: 'gsh settings crash-config get -s lobby',
      scope: 'servers:settings:read', permission: 'settings.edit',
    },
    {
      method: 'PUT', path: '/servers/{server_id}/settings/crash-config', command: 'settings crash-config update',
      summary: 'Change crash detection; only provided fields change (premium)',
      example: 'gsh settings crash-config update -s lobby --max-crashes 3 --time-window 600',
      scope: 'servers:settings:write', permission: 'settings.edit',
      // The allowed ranges are not shown (400 when out of range).
      body: [
        { name: 'max_crashes', type: 'integer', description: 'Crashes tolerated within the time window' },
        { name: 'time_window', type: 'integer', description: 'Window in which crashes are counted' },
      ],
    },
    {
      method: 'GET', path: '/servers/{server_id}/settings/discord-webhook', command: 'settings discord-webhook get',
      summary: 'Chat webhook with masked URL and its event triggers',
      example: 'gsh settings discord-webhook get -s lobby',
      scope: 'servers:settings:read', permission: 'settings.edit',
    },
    {
      method: 'PUT', path: '/servers/{server_id}/settings/discord-webhook', command: 'settings discord-webhook update',
      summary: "Store the chat webhook URL (must match the provider's pattern) with event triggers",
      example: 'gsh settings discord-webhook update -s lobby -f url=https://discord.com/api/webhooks/ID/TOKEN',
      scope: 'servers:settings:write', permission: 'settings.edit',
    },
    {
      method: 'DELETE', path: '/servers/{server_id}/settings/discord-webhook', command: 'settings discord-webhook delete',
      summary: 'Remove the chat webhook; returns the unconfigured resource',
      example: 'gsh settings discord-webhook delete -s lobby --yes',
      scope: 'servers:settings:write', permission: 'settings.edit', destructive: true,
    },
    {
      method: 'POST', path: '/servers/{server_id}/settings/discord-webhook/test', command: 'settings discord-webhook test',
      summary: 'Post a test embed to the configured chat webhook',
      example: 'gsh settings discord-webhook test -s lobby',
      scope: 'servers:settings:write', permission: 'settings.edit',
    },
  ],
});
