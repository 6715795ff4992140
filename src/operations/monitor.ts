import { defineFamily } from './types.js';

// Document 3, "Operation families that are only named" ("Monitor"): no scope, permission or
// query parameter is shown.
export default defineFamily({
  name: 'monitor',
  summary: 'Crashes, metrics, health and player activity',
  operations: [
    {
      method: 'GET', path: '/servers/{server_id}/monitor/crashes', command: 'monitor crashes',
      summary: 'Recorded crashes',
      example: 'gsh monitor crashes -s lobby',
    },
    {
      method: 'GET', path: '/servers/{server_id}/monitor/data', command: 'monitor data',
      summary: 'Monitoring data',
      example: 'gsh monitor data -s lobby --json',
    },
    {
      method: 'GET', path: '/servers/{server_id}/monitor/health-score', command: 'monitor health-score',
      summary: "The server's health score",
      example: 'gsh monitor health-score -s lobby',
    },
    {
      method: 'GET', path: '/servers/{server_id}/monitor/health-status', command: 'monitor health-status',
      summary: "The server's health status",
      example: 'gsh monitor health-status -s lobby',
    },
    {
      method: 'GET', path: '/servers/{server_id}/monitor/player-activity', command: 'monitor player-activity',
      summary: 'Player activity over time',
      example: 'gsh monitor player-activity -s lobby',
    },
  ],
});
