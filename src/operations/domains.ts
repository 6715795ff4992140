import { defineFamily } from './types.js';

const domainId = [{ name: 'domain_id', description: 'Domain id from domains list' }];

// Document 3, "Operation families that are only named": no scope, permission, parameter or
// body is shown, so none is declared (send fields with -f).
export default defineFamily({
  name: 'domains',
  summary: 'Custom domains of a server',
  operations: [
    {
      method: 'GET', path: '/servers/{server_id}/domains', command: 'domains list',
      columns: ['id', 'created_at'],
      summary: "The server's custom domains",
      example: 'gsh domains list -s lobby',
    },
    {
      method: 'POST', path: '/servers/{server_id}/domains', command: 'domains create',
      summary: 'Add a custom domain',
      example: 'gsh domains create -s lobby -f domain=play.example.com',
    },
    {
      method: 'DELETE', path: '/servers/{server_id}/domains/{domain_id}', command: 'domains delete',
      summary: 'Remove a custom domain',
      example: 'gsh domains delete -s lobby dom_123 --yes',
      params: domainId, destructive: true,
    },
    {
      method: 'PUT', path: '/servers/{server_id}/domains/{domain_id}/primary', command: 'domains primary',
      summary: 'Make a domain the primary one',
      example: 'gsh domains primary -s lobby dom_123',
      params: domainId,
    },
    {
      method: 'POST', path: '/servers/{server_id}/domains/{domain_id}/verify', command: 'domains verify',
      summary: "Verify a domain's DNS",
      example: 'gsh domains verify -s lobby dom_123',
      params: domainId,
    },
  ],
});
