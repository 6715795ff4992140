import { defineFamily } from './types.js';

// Document 3, "Operation families that are only named" ("Logs"): no scope, permission,
// parameter or body is shown, so none is declared (send fields with -f).
export default defineFamily({
  name: 'logs',
  summary: 'Analyze and share server logs',
  operations: [
    {
      method: 'POST', path: '/servers/{server_id}/logs/ai-analyze', command: 'logs ai-analyze',
      summary: 'AI analysis of the server log',
      example: 'gsh logs ai-analyze -s lobby',
    },
    {
      method: 'POST', path: '/servers/{server_id}/logs/analyze', command: 'logs analyze',
      summary: 'Analyze the server log',
      example: 'gsh logs analyze -s lobby',
    },
    {
      method: 'POST', path: '/servers/{server_id}/logs/patterns', command: 'logs patterns',
      summary: 'Known patterns found in the server log',
      example: 'gsh logs patterns -s lobby',
    },
    {
      method: 'POST', path: '/servers/{server_id}/logs/share', command: 'logs share',
      summary: 'Share the server log',
      example: 'gsh logs share -s lobby',
    },
  ],
});
