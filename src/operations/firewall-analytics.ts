import { defineFamily } from './types.js';

// Document 3, "Operation families that are only named" ("Firewall analytics"): no scope,
// permission or query parameter is shown. The export's format is not shown: printed as is.
export default defineFamily({
  name: 'firewall-analytics',
  summary: 'Firewall traffic analytics',
  operations: [
    {
      method: 'GET', path: '/servers/{server_id}/firewall/analytics/anomalies', command: 'firewall analytics anomalies',
      summary: 'Firewall analytics: anomalies',
      example: 'gsh firewall analytics anomalies -s lobby',
    },
    {
      method: 'GET', path: '/servers/{server_id}/firewall/analytics/classes', command: 'firewall analytics classes',
      summary: 'Firewall analytics: classes',
      example: 'gsh firewall analytics classes -s lobby',
    },
    {
      method: 'GET', path: '/servers/{server_id}/firewall/analytics/countries', command: 'firewall analytics countries',
      summary: 'Firewall analytics: countries',
      example: 'gsh firewall analytics countries -s lobby',
    },
    {
      method: 'GET', path: '/servers/{server_id}/firewall/analytics/export', command: 'firewall analytics export', raw: true,
      summary: 'Export of firewall analytics (printed as received)',
      example: 'gsh firewall analytics export -s lobby > firewall-export',
    },
    {
      method: 'GET', path: '/servers/{server_id}/firewall/analytics/ports', command: 'firewall analytics ports',
      summary: 'Firewall analytics: ports',
      example: 'gsh firewall analytics ports -s lobby',
    },
    {
      method: 'GET', path: '/servers/{server_id}/firewall/analytics/protocols', command: 'firewall analytics protocols',
      summary: 'Firewall analytics: protocols',
      example: 'gsh firewall analytics protocols -s lobby',
    },
    {
      method: 'GET', path: '/servers/{server_id}/firewall/analytics/report', command: 'firewall analytics report',
      summary: 'Firewall analytics: report',
      example: 'gsh firewall analytics report -s lobby',
    },
    {
      method: 'GET', path: '/servers/{server_id}/firewall/analytics/rules', command: 'firewall analytics rules',
      summary: 'Firewall analytics: rules',
      example: 'gsh firewall analytics rules -s lobby',
    },
    {
      method: 'GET', path: '/servers/{server_id}/firewall/analytics/sources', command: 'firewall analytics sources',
      summary: 'Firewall analytics: sources',
      example: 'gsh firewall analytics sources -s lobby',
    },
    {
      method: 'GET', path: '/servers/{server_id}/firewall/analytics/states', command: 'firewall analytics states',
      summary: 'Firewall analytics: states',
      example: 'gsh firewall analytics states -s lobby',
    },
    {
      method: 'GET', path: '/servers/{server_id}/firewall/analytics/summary', command: 'firewall analytics summary',
      summary: 'Firewall analytics: summary',
      example: 'gsh firewall analytics summary -s lobby',
    },
  ],
});
