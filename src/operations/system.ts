import { defineFamily } from './types.js';

// Document 2, "System": unauthenticated helpers and the key check.
export default defineFamily({
  name: 'system',
  summary: 'Service health, documentation and the current credential',
  operations: [
    {
      method: 'GET', path: '/health', command: 'health', auth: 'none',
      summary: 'Static liveness body; touches no database or cache',
      example: 'gsh health',
    },
    {
      method: 'GET', path: '/me', command: 'me',
      summary: 'The account and non-secret metadata of the key in use',
      example: 'gsh me --json',
    },
    {
      method: 'GET', path: '/docs', command: 'docs', auth: 'none', raw: true,
      summary: 'Where the hosted API reference lives (308 redirect)',
      example: 'gsh docs',
    },
    {
      method: 'GET', path: '/llms.txt', command: 'llms', auth: 'none', raw: true,
      summary: 'Concise markdown index of the documentation',
      example: 'gsh llms > llms.txt',
    },
    {
      method: 'GET', path: '/llms-full.txt', command: 'llms-full', auth: 'none', raw: true,
      summary: 'Full documentation as markdown',
      example: 'gsh llms-full | less',
    },
    {
      method: 'GET', path: '/openapi.json', command: 'openapi', auth: 'none', raw: true,
      summary: 'Machine-readable specification of the API (printed as served)',
      example: 'gsh openapi > openapi.json',
    },
  ],
});
