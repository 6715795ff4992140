import { defineFamily } from './types.js';

const scheduleId = [{ name: 'schedule_id', description: 'Schedule id from schedules list' }];

// Document 3, "Operation families that are only named" ("Schedules"): no scope, permission,
// parameter or body is shown, so none is declared (send fields with -f).
export default defineFamily({
  name: 'schedules',
  summary: 'Scheduled tasks of a server',
  operations: [
    {
      method: 'GET', path: '/servers/{server_id}/schedules', command: 'schedules list',
      columns: ['id', 'created_at'],
      summary: "The server's schedules",
      example: 'gsh schedules list -s lobby',
    },
    {
      method: 'POST', path: '/servers/{server_id}/schedules', command: 'schedules create',
      summary: 'Create a schedule',
      example: 'gsh schedules create -s lobby -f name=nightly -f cron="0 4 * * *"',
    },
    {
      method: 'GET', path: '/servers/{server_id}/schedules/timezone', command: 'schedules timezone get',
      summary: 'The timezone schedules run in',
      example: 'gsh schedules timezone get -s lobby',
    },
    {
      method: 'PUT', path: '/servers/{server_id}/schedules/timezone', command: 'schedules timezone update',
      summary: 'Set the timezone schedules run in',
      example: 'gsh schedules timezone update -s lobby -f timezone=Europe/Berlin',
    },
    {
      method: 'GET', path: '/servers/{server_id}/schedules/{schedule_id}', command: 'schedules get',
      summary: 'One schedule',
      example: 'gsh schedules get -s lobby sch_123',
      params: scheduleId,
    },
    {
      method: 'PATCH', path: '/servers/{server_id}/schedules/{schedule_id}', command: 'schedules update',
      summary: 'Update a schedule',
      example: 'gsh schedules update -s lobby sch_123 -F only_when_online=true',
      params: scheduleId,
    },
    {
      method: 'DELETE', path: '/servers/{server_id}/schedules/{schedule_id}', command: 'schedules delete',
      summary: 'Delete a schedule',
      example: 'gsh schedules delete -s lobby sch_123 --yes',
      params: scheduleId, destructive: true,
    },
    {
      method: 'GET', path: '/servers/{server_id}/schedules/{schedule_id}/logs', command: 'schedules logs',
      summary: "A schedule's run logs",
      example: 'gsh schedules logs -s lobby sch_123',
      params: scheduleId,
    },
    {
      method: 'POST', path: '/servers/{server_id}/schedules/{schedule_id}/run', command: 'schedules run',
      summary: 'Run a schedule now',
      example: 'gsh schedules run -s lobby sch_123',
      params: scheduleId,
    },
  ],
});
