import { defineFamily } from './types.js';

// Document 2, "Startup". Body field names (command template, variable value) are not shown:
// send them with -f.
export default defineFamily({
  name: 'startup',
  summary: 'Startup command, docker image and environment variables',
  operations: [
    {
      method: 'GET', path: '/servers/{server_id}/startup', command: 'startup get',
      summary: 'Startup command, current and available images, egg id and default startup, variables',
      example: 'gsh startup get -s lobby',
      scope: 'servers:startup:read', permission: 'startup.read',
    },
    {
      method: 'PATCH', path: '/servers/{server_id}/startup', command: 'startup update',
      summary: 'Update the startup command template and sync it to the node (premium)',
      example: 'gsh startup update -s lobby -f startup="java -Xmx4G -jar server.jar"',
      scope: 'servers:startup:write', permission: 'startup.update',
    },
    {
      method: 'PATCH', path: '/servers/{server_id}/startup/variables/{env_variable}', command: 'startup variables update',
      summary: "Set one environment variable by key (must belong to the egg); synced to the node",
      example: 'gsh startup variables update -s lobby SERVER_JARFILE -f value=server.jar',
      scope: 'servers:startup:write', permission: 'startup.update',
      params: [{ name: 'env_variable', description: 'Variable key, as listed by startup get' }],
    },
  ],
});
