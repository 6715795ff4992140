import { defineFamily } from './types.js';

// Document 3, "Operation families that are only named" ("Git"): no scope, permission, parameter
// or body is shown. Commits page with a provider `page` (document 1, envelope rule 7). Deployment
// progress comes over the console socket; no poll path exists, so deploy has no --wait.
export default defineFamily({
  name: 'git',
  summary: 'Git repository link, browsing and deployments',
  operations: [
    {
      method: 'GET', path: '/servers/{server_id}/git', command: 'git get',
      summary: "The server's git link and settings",
      example: 'gsh git get -s web',
    },
    {
      method: 'POST', path: '/servers/{server_id}/git/link', command: 'git link',
      summary: 'Link a repository to the server',
      example: 'gsh git link -s web -f repository=https://github.com/acme/site -f branch=main',
    },
    {
      method: 'DELETE', path: '/servers/{server_id}/git/link', command: 'git unlink',
      summary: 'Unlink the repository',
      example: 'gsh git unlink -s web',
    },
    {
      method: 'PATCH', path: '/servers/{server_id}/git/settings', command: 'git settings update',
      summary: 'Change git settings',
      example: 'gsh git settings update -s web -f branch=release',
    },
    {
      method: 'POST', path: '/servers/{server_id}/git/validate-public', command: 'git validate-public',
      summary: 'Check that a public repository can be used',
      example: 'gsh git validate-public -s web -f repository=https://github.com/acme/site',
    },
    {
      method: 'GET', path: '/servers/{server_id}/git/branches', command: 'git branches',
      summary: "The repository's branches",
      example: 'gsh git branches -s web',
    },
    {
      method: 'GET', path: '/servers/{server_id}/git/commits', command: 'git commits',
      columns: ['id', 'created_at'],
      summary: "The repository's commits",
      example: 'gsh git commits -s web --page 2',
      paging: 'page',
    },
    {
      method: 'GET', path: '/servers/{server_id}/git/file', command: 'git file',
      summary: 'A file from the repository',
      example: 'gsh git file -s web',
    },
    {
      method: 'GET', path: '/servers/{server_id}/git/overview', command: 'git overview',
      summary: 'Overview of the linked repository',
      example: 'gsh git overview -s web',
    },
    {
      method: 'GET', path: '/servers/{server_id}/git/repos', command: 'git repos',
      summary: 'Repositories available from the connected git provider',
      example: 'gsh git repos -s web',
    },
    {
      method: 'GET', path: '/servers/{server_id}/git/tree', command: 'git tree',
      summary: "The repository's file tree",
      example: 'gsh git tree -s web',
    },
    {
      method: 'POST', path: '/servers/{server_id}/git/deploy', command: 'git deploy',
      summary: 'Deploy the repository contents onto the server',
      example: 'gsh git deploy -s web',
    },
    {
      method: 'GET', path: '/servers/{server_id}/git/deployments', command: 'git deployments',
      summary: 'Past deployments',
      example: 'gsh git deployments -s web',
    },
    {
      method: 'PUT', path: '/servers/{server_id}/git/trigger-schedules', command: 'git trigger-schedules',
      summary: 'Set which schedules a deployment triggers',
      example: 'gsh git trigger-schedules -s web -f \'schedules[]=sch_123\'',
    },
  ],
});
