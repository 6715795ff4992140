import { defineFamily } from './types.js';

// Document 2, "Settings". Resource-limit field names and the transfer's region field name are
// not shown in the contract: send them with -f.
export default defineFamily({
  name: 'settings',
  summary: 'Server settings, resource limits, application switch and transfers',
  operations: [
    {
      method: 'GET', path: '/servers/{server_id}/resources', command: 'settings resources get',
      summary: 'CPU, RAM and disk limits',
      example: 'gsh settings resources get -s lobby',
      scope: 'servers:settings:read', permission: 'settings.resources',
    },
    {
      method: 'PUT', path: '/servers/{server_id}/resources', command: 'settings resources update',
      summary: 'Adjust CPU, RAM and disk within the plan allowance (premium plans)',
      example: 'gsh settings resources update -s lobby -F memory=4096',
      scope: 'servers:settings:write', permission: 'settings.resources',
    },
    {
      method: 'GET', path: '/servers/{server_id}/settings', command: 'settings get',
      summary: 'Display name, description, startup-detection message, stop command',
      example: 'gsh settings get -s lobby',
      scope: 'servers:settings:read', permission: 'settings.edit',
    },
    {
      method: 'PATCH', path: '/servers/{server_id}/settings', command: 'settings update',
      summary: 'Change any subset of the writable fields; returns the updated settings',
      example: 'gsh settings update -s lobby --name "Lobby" --stop-command stop',
      scope: 'servers:settings:write',
      // "Writable fields of PATCH /settings and the permission each needs". The message-of-the-day
      // fields' names are not shown; `motd` is the sandbox's.
      permission: {
        byField: {
          name: ['settings.rename'], description: ['settings.description'],
          done_message: ['settings.edit'], stop_command: ['settings.edit'], timezone: ['settings.edit'],
          auto_stop: ['settings.edit'], start_on_join: ['settings.edit'],
          autoupdate_mode: ['control.console'], motd: ['file.update'], online_mode: ['file.read', 'file.update'],
        },
      },
      // Types of auto_stop, autoupdate_mode and the message-of-the-day fields are not shown.
      body: [
        { name: 'name', type: 'string', description: 'Display name (needs settings.rename)' },
        { name: 'description', type: 'string', description: 'Description (needs settings.description)' },
        { name: 'done_message', type: 'string', description: 'Startup-detection message (needs settings.edit)' },
        { name: 'stop_command', type: 'string', description: 'Stop command (needs settings.edit)' },
        { name: 'timezone', type: 'string', description: 'Timezone (needs settings.edit)' },
        { name: 'auto_stop', type: 'json', description: 'Auto-stop setting, JSON value (needs settings.edit)' },
        { name: 'start_on_join', type: 'boolean', description: 'Start when a player joins (needs settings.edit and premium)' },
        { name: 'autoupdate_mode', type: 'string', description: 'Auto-update mode (needs control.console)' },
        { name: 'online_mode', type: 'boolean', description: 'Online mode (needs file.read and file.update)' },
      ],
    },
    {
      method: 'PUT', path: '/servers/{server_id}/settings/application', command: 'settings application update',
      summary: 'Give exactly one of application (switch game: resets variables, reinstalls), version or image',
      example: 'gsh settings application update -s lobby --runtime-version 1.21.4',
      scope: 'servers:settings:write',
      permission: { byField: { application: ['file.delete'], version: ['startup.update'], image: ['startup.update'] } },
      body: [
        { name: 'application', type: 'string', description: 'Switch game type: resets variables and reinstalls' },
        { name: 'version', type: 'string', flag: 'runtime-version', description: 'Runtime version key' },
        { name: 'image', type: 'string', description: 'Docker image from the current egg' },
      ],
    },
    {
      method: 'GET', path: '/servers/{server_id}/settings/applications', command: 'settings application list',
      columns: ['category', 'applications'], idField: 'category',
      summary: 'Switchable applications grouped by category, the current one marked',
      example: 'gsh settings application list -s lobby',
      scope: 'servers:settings:read',
    },
    {
      method: 'POST', path: '/servers/{server_id}/settings/transfer', command: 'settings transfer start',
      summary: 'Move the server to the best node in a target region (202)',
      example: 'gsh settings transfer start -s lobby -f region=eu-west --wait',
      scope: 'servers:settings:write', permission: 'settings.transfer',
      wait: { kind: 'transfer' },
    },
    {
      method: 'GET', path: '/servers/{server_id}/settings/transfer/availability', command: 'settings transfer availability',
      columns: ['region', 'current', 'available'], idField: 'region',
      summary: 'Per region, whether a node can take the server given its disk usage',
      example: 'gsh settings transfer availability -s lobby',
      scope: 'servers:settings:read', permission: 'settings.transfer',
    },
    {
      method: 'GET', path: '/servers/{server_id}/settings/transfer/status', command: 'settings transfer status',
      summary: 'Latest transfer: in_progress, then completed or failed',
      example: 'gsh settings transfer status -s lobby --wait',
      scope: 'servers:settings:read', permission: 'settings.transfer',
      wait: { kind: 'transfer' },
    },
  ],
});
