import { defineFamily } from './types.js';

const scheduleId = { name: 'schedule_id', description: 'Schedule id from schedules list' };

// Document 3, "Operation families that are only named" ("Schedule webhooks"): no scope,
// permission, parameter or body is shown, so none is declared (send fields with -f).
export default defineFamily({
  name: 'schedule-webhooks',
  summary: 'Webhooks of schedules',
  operations: [
    {
      method: 'GET', path: '/servers/{server_id}/schedules/{schedule_id}/webhooks', command: 'schedules webhooks list',
      columns: ['id', 'created_at'],
      summary: "A schedule's webhooks",
      example: 'gsh schedules webhooks list -s lobby sch_123',
      params: [scheduleId],
    },
    {
      method: 'POST', path: '/servers/{server_id}/schedules/{schedule_id}/webhooks', command: 'schedules webhooks create',
      summary: 'Add a webhook to a schedule',
      example: 'gsh schedules webhooks create -s lobby sch_123 -f url=https://example.com/hook',
      params: [scheduleId],
    },
    {
      method: 'DELETE', path: '/servers/{server_id}/schedules/{schedule_id}/webhooks/{webhook_id}', command: 'schedules webhooks delete',
      summary: "Delete a schedule's webhook",
      example: 'gsh schedules webhooks delete -s lobby sch_123 wh_1 --yes',
      params: [scheduleId, { name: 'webhook_id', description: 'Webhook id from schedules webhooks list' }],
      destructive: true,
    },
  ],
});
