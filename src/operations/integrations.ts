import { defineFamily } from './types.js';

// Document 2, "Account": GET /account/integrations.
export default defineFamily({
  name: 'integrations',
  summary: 'Connected git providers and cloud drive',
  operations: [
    {
      method: 'GET', path: '/account/integrations', command: 'integrations get',
      summary: 'Connection status of git providers (with provider username) and the cloud drive',
      example: 'gsh integrations get',
      scope: 'account:integrations:read',
    },
  ],
});
