import { defineFamily } from './types.js';

const hostname = [{ name: 'hostname', description: 'Subdomain hostname from subdomains list' }];

// Document 3, "Operation families that are only named": no scope, permission, parameter or
// body is shown, so none is declared (send fields with -f).
export default defineFamily({
  name: 'subdomains',
  summary: 'Subdomains pointing at a server',
  operations: [
    {
      method: 'GET', path: '/servers/{server_id}/subdomains', command: 'subdomains list',
      columns: ['hostname', 'created_at'], idField: 'hostname',
      summary: "The server's subdomains",
      example: 'gsh subdomains list -s lobby',
    },
    {
      method: 'POST', path: '/servers/{server_id}/subdomains', command: 'subdomains create',
      summary: 'Create a subdomain',
      example: 'gsh subdomains create -s lobby -f name=play',
    },
    {
      method: 'PATCH', path: '/servers/{server_id}/subdomains/{hostname}', command: 'subdomains rename',
      summary: 'Rename a subdomain',
      example: 'gsh subdomains rename -s lobby play.example.net -f name=mc',
      params: hostname,
    },
    {
      method: 'DELETE', path: '/servers/{server_id}/subdomains/{hostname}', command: 'subdomains delete',
      summary: 'Delete a subdomain',
      example: 'gsh subdomains delete -s lobby play.example.net --yes',
      params: hostname, destructive: true,
    },
    {
      method: 'PUT', path: '/servers/{server_id}/subdomains/{hostname}/primary', command: 'subdomains primary',
      summary: 'Make a subdomain the primary one',
      example: 'gsh subdomains primary -s lobby play.example.net',
      params: hostname,
    },
  ],
});
