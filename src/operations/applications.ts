import { defineFamily } from './types.js';

// Document 2, "Account": GET /applications.
export default defineFamily({
  name: 'applications',
  summary: 'Games and applications a server can run',
  operations: [
    {
      method: 'GET', path: '/applications', command: 'applications list',
      columns: ['id', 'slug', 'name', 'kind', 'free_tier'],
      summary: 'The application catalogue (not paginated)',
      example: 'gsh applications list --kind game --free-tier',
      scope: 'applications:read',
      query: [
        { name: 'kind', type: 'string', choices: ['game', 'application', 'database'], open: true,
          description: 'Only this kind' },
        { name: 'free_tier', type: 'boolean',
          description: 'true: only free-plan ones; false: only paid-only ones' },
      ],
    },
  ],
});
