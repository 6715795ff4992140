import { defineFamily } from './types.js';

const ruleId = [{ name: 'rule_id', description: 'Rule id from firewall get' }];

// Document 3, "Operation families that are only named": no scope, permission, parameter or
// body is shown, so none is declared (send fields with -f).
export default defineFamily({
  name: 'firewall',
  summary: 'Server firewall and its rules',
  operations: [
    {
      method: 'GET', path: '/servers/{server_id}/firewall', command: 'firewall get',
      summary: "The server's firewall and rules",
      example: 'gsh firewall get -s lobby',
    },
    {
      method: 'POST', path: '/servers/{server_id}/firewall/rules', command: 'firewall rules create',
      summary: 'Add a firewall rule',
      example: 'gsh firewall rules create -s lobby -f action=deny -f source=203.0.113.0/24',
    },
    {
      method: 'PUT', path: '/servers/{server_id}/firewall/rules/{rule_id}', command: 'firewall rules update',
      summary: 'Replace a firewall rule',
      example: 'gsh firewall rules update -s lobby rule_123 -f action=allow -f source=203.0.113.7',
      params: ruleId,
    },
    {
      method: 'DELETE', path: '/servers/{server_id}/firewall/rules/{rule_id}', command: 'firewall rules delete',
      summary: 'Delete a firewall rule',
      example: 'gsh firewall rules delete -s lobby rule_123 --yes',
      params: ruleId, destructive: true,
    },
    {
      method: 'POST', path: '/servers/{server_id}/firewall/sync', command: 'firewall sync',
      summary: 'Sync the firewall rules to the node',
      example: 'gsh firewall sync -s lobby',
    },
    {
      method: 'POST', path: '/servers/{server_id}/firewall/toggle', command: 'firewall toggle',
      summary: 'Turn the firewall on or off',
      example: 'gsh firewall toggle -s lobby -F enabled=true',
    },
  ],
});
