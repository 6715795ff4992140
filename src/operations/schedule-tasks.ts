import { defineFamily } from './types.js';

const scheduleId = { name: 'schedule_id', description: 'Schedule id from schedules list' };
const task = [scheduleId, { name: 'task_id', description: 'Task id from schedules get' }];

// Document 3, "Operation families that are only named" ("Schedule tasks"): no scope,
// permission, parameter or body is shown, so none is declared (send fields with -f).
export default defineFamily({
  name: 'schedule-tasks',
  summary: 'Tasks of a schedule',
  operations: [
    {
      method: 'POST', path: '/servers/{server_id}/schedules/{schedule_id}/tasks', command: 'schedules tasks create',
      summary: 'Add a task to a schedule',
      example: 'gsh schedules tasks create -s lobby sch_123 -f action=command -f payload="say Restarting soon"',
      params: [scheduleId],
    },
    {
      method: 'POST', path: '/servers/{server_id}/schedules/{schedule_id}/tasks/reorder', command: 'schedules tasks reorder',
      summary: "Reorder a schedule's tasks",
      example: 'gsh schedules tasks reorder -s lobby sch_123 -f \'order[]=task_2\' -f \'order[]=task_1\'',
      params: [scheduleId],
    },
    {
      method: 'PATCH', path: '/servers/{server_id}/schedules/{schedule_id}/tasks/{task_id}', command: 'schedules tasks update',
      summary: 'Update a task',
      example: 'gsh schedules tasks update -s lobby sch_123 task_1 -F time_offset=60',
      params: task,
    },
    {
      method: 'DELETE', path: '/servers/{server_id}/schedules/{schedule_id}/tasks/{task_id}', command: 'schedules tasks delete',
      summary: 'Delete a task',
      example: 'gsh schedules tasks delete -s lobby sch_123 task_1 --yes',
      params: task, destructive: true,
    },
  ],
});
