import { defineFamily } from './types.js';

const scheduleId = { name: 'schedule_id', description: 'Schedule id from schedules list' };
const trigger = [scheduleId, { name: 'trigger_id', description: 'Trigger id from schedules triggers list' }];

// Document 3, "Operation families that are only named" ("Schedule triggers"): no scope,
// permission, parameter or body is shown, so none is declared (send fields with -f).
export default defineFamily({
  name: 'schedule-triggers',
  summary: 'Event triggers of schedules',
  operations: [
    {
      method: 'GET', path: '/servers/{server_id}/schedules/event-types', command: 'schedules event-types',
      summary: 'Event types a schedule can be triggered by',
      example: 'gsh schedules event-types -s lobby',
    },
    {
      method: 'GET', path: '/servers/{server_id}/schedules/{schedule_id}/triggers', command: 'schedules triggers list',
      columns: ['id', 'created_at'],
      summary: "A schedule's triggers",
      example: 'gsh schedules triggers list -s lobby sch_123',
      params: [scheduleId],
    },
    {
      method: 'POST', path: '/servers/{server_id}/schedules/{schedule_id}/triggers', command: 'schedules triggers create',
      summary: 'Add a trigger to a schedule',
      example: 'gsh schedules triggers create -s lobby sch_123 -f event=server.crashed',
      params: [scheduleId],
    },
    {
      method: 'PATCH', path: '/servers/{server_id}/schedules/{schedule_id}/triggers/{trigger_id}', command: 'schedules triggers update',
      summary: 'Update a trigger',
      example: 'gsh schedules triggers update -s lobby sch_123 trg_1 -f event=server.stopped',
      params: trigger,
    },
    {
      method: 'DELETE', path: '/servers/{server_id}/schedules/{schedule_id}/triggers/{trigger_id}', command: 'schedules triggers delete',
      summary: 'Delete a trigger',
      example: 'gsh schedules triggers delete -s lobby sch_123 trg_1 --yes',
      params: trigger, destructive: true,
    },
  ],
});
