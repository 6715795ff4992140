import { defineFamily } from './types.js';

// Document 2, "Servers".
export default defineFamily({
  name: 'servers',
  summary: 'Create, inspect, reinstall and delete servers',
  operations: [
    {
      method: 'GET', path: '/servers', command: 'servers list',
      columns: ['id', 'name', 'application', 'plan', 'region', 'created_at'],
      summary: 'Servers the key can reach, ordered by name',
      example: 'gsh servers list --search lobby --include-status --all',
      scope: 'servers:read', paging: 'offset',
      query: [
        { name: 'search', type: 'string', description: 'Case-insensitive name substring' },
        { name: 'include', flag: 'include-status', type: 'boolean', sends: 'status',
          description: 'Add live state and usage (include=status; costs a node call per running server)' },
      ],
      // The server runtime states (01-general-contract.md "States and transitions", "Resource table": Server status).
      keep: { flag: 'state', path: 'status.state', choices: ['offline', 'starting', 'running', 'stopping'], sends: { include: 'status' },
        description: 'only servers in this state (asks include=status in the same request)' },
    },
    {
      method: 'POST', path: '/servers', command: 'servers create',
      summary: 'Create a server asynchronously (202 with a creation job)',
      example: 'gsh servers create -f name=lobby -f application=paper --init service-init.yaml --wait',
      scope: 'servers:create',
      // The contract names `init` and `template_id`; the manifest travels as its YAML text (the
      // header line is a comment a parsed object would lose). Top-level keys of `init` replace the
      // template's. Validated at the server's plan caps; errors are prefixed `init.`.
      body: [
        { name: 'init', type: 'text-file', manifest: { tierFrom: 'plan', overlayWith: 'template_id' },
          description: 'Init manifest file (- for stdin), sent as its text; linted first at the caps of -f plan=free|paid (free when no plan is given)' },
        { name: 'template_id', type: 'string', flag: 'template', description: 'Saved init template to provision with (with --init, its top-level keys replace the template\'s)' },
      ],
      wait: { kind: 'job', poll: '/account/servers/create-jobs/{job_id}' },
      ifAbsent: { list: '/servers', field: 'name' },
    },
    {
      method: 'GET', path: '/account/servers/create-jobs/{job_id}', command: 'servers create-job',
      summary: 'A creation job, reporting progress until ready or failed',
      example: 'gsh servers create-job job_123 --wait',
      scope: 'servers:read',
      params: [{ name: 'job_id', description: 'Creation job id from servers create' }],
      wait: { kind: 'job', poll: '/account/servers/create-jobs/{job_id}' },
    },
    {
      method: 'GET', path: '/servers/{server_id}', command: 'servers get',
      serverArgument: true,
      summary: 'Stable server metadata',
      example: 'gsh servers get -s lobby',
      scope: 'servers:read',
    },
    {
      method: 'DELETE', path: '/servers/{server_id}', command: 'servers delete',
      serverArgument: true,
      summary: 'Permanently delete a server; paid time is refunded as account credit',
      example: 'gsh servers delete -s old-lobby --yes',
      scope: 'servers:delete', destructive: true,
    },
    {
      method: 'POST', path: '/servers/{server_id}/reinstall', command: 'servers reinstall',
      serverArgument: true,
      summary: 'Re-run the install script, optionally wiping files first',
      example: 'gsh servers reinstall -s lobby --wipe --yes --wait',
      scope: 'servers:reinstall', permission: 'file.delete', destructive: true,
      body: [{ name: 'wipe', type: 'boolean', destructive: true, description: 'Delete the server files first (asks for confirmation)' }],
      wait: { kind: 'server-status' },
    },
    {
      method: 'GET', path: '/servers/{server_id}/status', command: 'servers status',
      serverArgument: true,
      summary: 'Live state and usage; lifecycle_status reports restore and reinstall progress',
      example: 'gsh servers status -s lobby',
      scope: 'servers:read', permission: 'control.console',
    },
    {
      method: 'GET', path: '/servers/{server_id}/status-issues', command: 'servers status-issues',
      columns: ['id', 'scope', 'kind', 'title', 'started_at'],
      serverArgument: true,
      summary: "Incidents or notices matching the server's node, region or global",
      example: 'gsh servers status-issues -s lobby',
      scope: 'servers:read', permission: 'control.console',
    },
  ],
});
