import { defineFamily } from './types.js';

// Document 3, "Operation families that are only named" ("Internal network"): no scope,
// permission, parameter or body is shown, so none is declared (send fields with -f).
export default defineFamily({
  name: 'internal-network',
  summary: 'Internal network between your servers',
  operations: [
    {
      method: 'GET', path: '/servers/{server_id}/internal-network', command: 'network get',
      summary: "The server's internal network",
      example: 'gsh network get -s lobby',
    },
    {
      method: 'PUT', path: '/servers/{server_id}/internal-network', command: 'network update',
      summary: 'Set the internal network configuration',
      example: 'gsh network update -s lobby -F enabled=true',
    },
    {
      method: 'POST', path: '/servers/{server_id}/internal-network/peers', command: 'network peers create',
      summary: 'Add a peer server to the internal network',
      example: 'gsh network peers create -s lobby -f server_id=srv_456',
    },
    {
      method: 'DELETE', path: '/servers/{server_id}/internal-network/peers/{peer_uuid}', command: 'network peers delete',
      summary: 'Remove a peer from the internal network',
      example: 'gsh network peers delete -s lobby 3f1c2b9a-0000-4000-8000-000000000000 --yes',
      params: [{ name: 'peer_uuid', description: 'Peer uuid from network get' }], destructive: true,
    },
  ],
});
