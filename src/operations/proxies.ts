import { defineFamily } from './types.js';

const proxyId = [{ name: 'proxy_id', description: 'Proxy id from proxies list' }];

// Document 3, "Operation families that are only named": no scope, permission, parameter or
// body is shown, so none is declared (send fields with -f).
export default defineFamily({
  name: 'proxies',
  summary: 'HTTP proxies with SSL in front of a server',
  operations: [
    {
      method: 'GET', path: '/servers/{server_id}/proxies', command: 'proxies list',
      columns: ['id', 'created_at'],
      summary: "The server's proxies",
      example: 'gsh proxies list -s web',
    },
    {
      method: 'POST', path: '/servers/{server_id}/proxies', command: 'proxies create',
      summary: 'Create a proxy',
      example: 'gsh proxies create -s web -f domain=map.example.com -F port=8123',
    },
    {
      method: 'PATCH', path: '/servers/{server_id}/proxies/{proxy_id}', command: 'proxies update',
      summary: 'Update a proxy',
      example: 'gsh proxies update -s web prx_123 -F port=8100',
      params: proxyId,
    },
    {
      method: 'DELETE', path: '/servers/{server_id}/proxies/{proxy_id}', command: 'proxies delete',
      summary: 'Delete a proxy',
      example: 'gsh proxies delete -s web prx_123 --yes',
      params: proxyId, destructive: true,
    },
    {
      method: 'POST', path: '/servers/{server_id}/proxies/{proxy_id}/retry-ssl', command: 'proxies retry-ssl',
      summary: 'Retry issuing the SSL certificate',
      example: 'gsh proxies retry-ssl -s web prx_123',
      params: proxyId,
    },
    {
      method: 'GET', path: '/servers/{server_id}/proxies/{proxy_id}/status', command: 'proxies status',
      summary: "A proxy's status",
      example: 'gsh proxies status -s web prx_123',
      params: proxyId,
    },
    {
      method: 'POST', path: '/servers/{server_id}/proxies/{proxy_id}/verify', command: 'proxies verify',
      summary: "Verify a proxy's DNS",
      example: 'gsh proxies verify -s web prx_123',
      params: proxyId,
    },
  ],
});
