import { defineFamily } from './types.js';

const instanceId = [{ name: 'instance_id', description: 'Instance id from instances list' }];
const cloneJob = { kind: 'job', poll: '/servers/{server_id}/instances/clone-jobs/{job_id}' } as const;

// Document 2, "Instances". The update fields (label, application, metadata) are not named as
// body fields: send them with -f.
export default defineFamily({
  name: 'instances',
  summary: 'Instance profiles of a server (at most 10), activation and clones',
  operations: [
    {
      method: 'GET', path: '/servers/{server_id}/instances', command: 'instances list',
      columns: ['id', 'label', 'application', 'is_default', 'active', 'created_at'],
      summary: 'Instance profiles; the default parent profile is created on first use',
      example: 'gsh instances list -s lobby',
      scope: 'servers:instances:read', permission: 'instance.read', paging: 'offset',
    },
    {
      method: 'POST', path: '/servers/{server_id}/instances', command: 'instances create',
      summary: "Create an instance (at most 10); without target_config_id it copies the active runtime",
      example: 'gsh instances create -s lobby --target-config-id 12',
      scope: 'servers:instances:write', permission: 'instance.create',
      body: [{ name: 'target_config_id', type: 'string', description: 'Supported application to use; omitted copies the active profile\'s runtime' }],
    },
    {
      method: 'GET', path: '/servers/{server_id}/instances/clone-jobs', command: 'instances clone-jobs list',
      columns: ['job_id', 'state', 'progress', 'source_instance_id', 'created_at'], idField: 'job_id',
      summary: 'Clone jobs, newest first',
      example: 'gsh instances clone-jobs list -s lobby',
      scope: 'servers:instances:read', permission: 'instance.read', paging: 'offset',
    },
    {
      method: 'GET', path: '/servers/{server_id}/instances/clone-jobs/{job_id}', command: 'instances clone-jobs get',
      summary: 'A clone job, progress refreshed from the node while running',
      example: 'gsh instances clone-jobs get -s lobby job_123 --wait',
      scope: 'servers:instances:read', permission: 'instance.read',
      params: [{ name: 'job_id', description: 'Clone job id from instances clone' }],
      wait: cloneJob,
    },
    {
      method: 'PATCH', path: '/servers/{server_id}/instances/{instance_id}', command: 'instances update',
      summary: "Update label, application or metadata (the active instance's application needs the server offline)",
      example: 'gsh instances update -s lobby inst_123 -f label=modded',
      scope: 'servers:instances:write', permission: 'instance.update', params: instanceId,
    },
    {
      method: 'DELETE', path: '/servers/{server_id}/instances/{instance_id}', command: 'instances delete',
      summary: 'Delete an inactive non-default instance and its directory',
      example: 'gsh instances delete -s lobby inst_123 --yes',
      scope: 'servers:instances:delete', params: instanceId, destructive: true,
    },
    {
      method: 'POST', path: '/servers/{server_id}/instances/{instance_id}/activate', command: 'instances activate',
      summary: 'Switch to this instance (server offline); verified with the node, rolled back on failure',
      example: 'gsh instances activate -s lobby inst_123 --reinstall',
      scope: 'servers:instances:write', permission: 'instance.activate', params: instanceId,
      query: [{ name: 'reinstall', type: 'boolean', description: 'true: start a reinstall after the verified switch' }],
    },
    {
      method: 'POST', path: '/servers/{server_id}/instances/{source_instance_id}/clone', command: 'instances clone',
      summary: 'Copy an instance into a new one in the background (202 with a clone job)',
      example: 'gsh instances clone -s lobby inst_123 --wait',
      scope: 'servers:instances:write', permission: 'instance.clone',
      params: [{ name: 'source_instance_id', description: 'Instance to copy' }],
      // A body field, distinct from the Idempotency-Key header (--idempotency-key).
      body: [{ name: 'idempotency_key', type: 'string', flag: 'clone-key',
        description: 'The same key returns the existing clone job' }],
      wait: cloneJob,
    },
  ],
});
