import { defineFamily } from './types.js';

const templateId = [{ name: 'template_id', description: 'Init template id from init templates list' }];

// Document 2, "Init templates and manifest validation"; the manifest is document 1's "Init
// manifest". A manifest travels as its YAML text (type text-file): the `#service-init` header is a
// comment a parsed object would lose. The template body's manifest field name is not shown; we
// send `manifest` (the resource table's word). `init validate`, `init templates create|update`
// and `init status` are hand-written (src/commands/init.ts) over these operations.
export default defineFamily({
  name: 'init',
  summary: 'Init templates, manifest validation and provisioning status',
  operations: [
    {
      method: 'GET', path: '/init/templates', command: 'init templates list',
      columns: ['id', 'name', 'created_at', 'updated_at'],
      summary: 'Saved init templates, newest first',
      example: 'gsh init templates list',
      scope: 'templates:read', paging: 'offset',
    },
    {
      method: 'POST', path: '/init/templates', command: 'init templates create',
      summary: 'Save a template (name unique per account); the manifest is validated at paid caps',
      example: 'gsh init templates create service-init.yaml --name paper-lobby --description "Paper lobby"',
      scope: 'templates:write',
      body: [
        { name: 'name', type: 'string', required: true, description: 'Unique per account' },
        { name: 'description', type: 'string', description: 'What the template sets up' },
        { name: 'manifest', type: 'text-file', required: true, description: 'Init manifest file, sent as its text (validated at paid caps)' },
      ],
    },
    {
      method: 'GET', path: '/init/templates/{template_id}', command: 'init templates get',
      summary: 'One init template',
      example: 'gsh init templates get tpl_123',
      scope: 'templates:read', params: templateId,
    },
    {
      method: 'PATCH', path: '/init/templates/{template_id}', command: 'init templates update',
      summary: 'Change name, description or manifest (a manifest replaces the stored one and is revalidated)',
      example: 'gsh init templates update tpl_123 service-init.yaml --description "Paper lobby, 1.21"',
      scope: 'templates:write', params: templateId,
      body: [
        { name: 'name', type: 'string', description: 'New name (unique per account)' },
        { name: 'description', type: 'string', description: 'New description' },
        { name: 'manifest', type: 'text-file', description: 'Init manifest file replacing the stored one (revalidated at paid caps)' },
      ],
    },
    {
      method: 'DELETE', path: '/init/templates/{template_id}', command: 'init templates delete',
      summary: 'Delete an init template',
      example: 'gsh init templates delete tpl_123 --yes',
      scope: 'templates:write', params: templateId, destructive: true,
    },
    {
      method: 'POST', path: '/init/validate', command: 'init validate',
      summary: 'Dry run: validate an inline init, a saved template_id, or both (inline merged onto it)',
      example: 'gsh init validate service-init.yaml --template tpl_123 --tier free',
      scope: 'templates:read',
      body: [
        { name: 'init', type: 'text-file', description: 'Inline manifest file; errors are prefixed init.' },
        { name: 'template_id', type: 'string', flag: 'template', description: 'Saved template to validate (the inline init is merged onto it)' },
        // Tier values are not listed; the caps table names the free and paid plans.
        { name: 'tier', type: 'string', choices: ['free', 'paid'], description: 'Plan tier whose caps apply (caps table: free, paid)' },
      ],
    },
    {
      method: 'GET', path: '/servers/{server_id}/init', command: 'init status',
      summary: 'Latest provisioning job with phase progress, per-phase results and warnings',
      example: 'gsh init status -s lobby --wait',
      scope: 'servers:read',
      wait: { kind: 'init' },
    },
  ],
});
