import { defineFamily } from './types.js';

const taskId = [{ name: 'task_id', description: 'Module task id from modules tasks list' }];
// Module tasks are background jobs; a job object carries `job_id`, which names the task here.
const moduleTask = { kind: 'job', poll: '/servers/{server_id}/modules/tasks/{job_id}' } as const;

// Document 3, "Modules (runtime dependencies)". Only list and capabilities have stated access;
// for the other operations parameters, bodies, statuses and the per-operation scope
// (servers:modules:read or :write) are not shown, so none is declared.
export default defineFamily({
  name: 'modules',
  summary: 'Runtime dependencies from project manifests (npm, pip, cargo, composer, go)',
  operations: [
    {
      method: 'GET', path: '/servers/{server_id}/modules', command: 'modules list',
      columns: ['name', 'ecosystem', 'declared', 'installed', 'latest'], idField: 'name',
      summary: 'Declared dependencies with installed and latest versions and vulnerability summary',
      example: 'gsh modules list -s api',
      scope: 'servers:modules:read', permission: 'file.read', paging: 'offset',
    },
    {
      method: 'GET', path: '/servers/{server_id}/modules/capabilities', command: 'modules capabilities',
      summary: 'Supported manifests in the server root and which listings and mutations are available',
      example: 'gsh modules capabilities -s api',
      scope: 'servers:modules:read', permission: 'file.read',
    },
    {
      method: 'POST', path: '/servers/{server_id}/modules/delete', command: 'modules delete',
      summary: 'Remove dependencies (background task)',
      example: 'gsh modules delete -s api -f name=left-pad --yes --wait',
      destructive: true, wait: moduleTask,
    },
    {
      method: 'POST', path: '/servers/{server_id}/modules/install', command: 'modules install',
      summary: 'Install dependencies (background task)',
      example: 'gsh modules install -s api -f name=express --wait',
      wait: moduleTask,
    },
    {
      method: 'GET', path: '/servers/{server_id}/modules/search', command: 'modules search',
      columns: ['name', 'latest'], idField: 'name',
      summary: 'Search the package registry',
      example: 'gsh modules search -s api',
    },
    {
      method: 'POST', path: '/servers/{server_id}/modules/update', command: 'modules update',
      summary: 'Update dependencies (background task)',
      example: 'gsh modules update -s api -f name=express --wait',
      wait: moduleTask,
    },
    {
      method: 'GET', path: '/servers/{server_id}/modules/versions', command: 'modules versions',
      summary: 'Available versions of a dependency',
      example: 'gsh modules versions -s api',
    },
    {
      method: 'GET', path: '/servers/{server_id}/modules/tasks', command: 'modules tasks list',
      columns: ['id', 'action', 'names', 'state', 'progress', 'created_at'],
      summary: 'Module background tasks',
      example: 'gsh modules tasks list -s api',
    },
    {
      method: 'GET', path: '/servers/{server_id}/modules/tasks/{task_id}', command: 'modules tasks get',
      summary: 'One module task',
      example: 'gsh modules tasks get -s api task_123 --wait',
      params: taskId, wait: { kind: 'job', poll: '/servers/{server_id}/modules/tasks/{task_id}' },
    },
    {
      method: 'DELETE', path: '/servers/{server_id}/modules/tasks/{task_id}', command: 'modules tasks cancel',
      summary: 'Cancel a module task',
      example: 'gsh modules tasks cancel -s api task_123',
      params: taskId,
    },
    {
      method: 'GET', path: '/servers/{server_id}/modules/tasks/{task_id}/logs', command: 'modules tasks logs',
      summary: "A module task's logs",
      example: 'gsh modules tasks logs -s api task_123',
      params: taskId,
    },
  ],
});
