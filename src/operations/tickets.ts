import { defineFamily } from './types.js';

const ticketId = [{ name: 'ticket_id', description: 'Ticket id from tickets list' }];

// Document 3, "Operation families that are only named" ("Support tickets"): no scope,
// permission, parameter or body is shown, so none is declared (send fields with -f).
export default defineFamily({
  name: 'tickets',
  summary: 'Support tickets',
  operations: [
    {
      method: 'GET', path: '/account/tickets', command: 'tickets list',
      columns: ['id', 'created_at'],
      summary: 'Your support tickets',
      example: 'gsh tickets list',
    },
    {
      method: 'POST', path: '/account/tickets', command: 'tickets create',
      summary: 'Open a support ticket',
      example: 'gsh tickets create -f subject="Server will not start" -f message="Crash after update"',
    },
    {
      method: 'GET', path: '/account/tickets/{ticket_id}', command: 'tickets get',
      summary: 'One ticket',
      example: 'gsh tickets get tkt_123',
      params: ticketId,
    },
    {
      method: 'PATCH', path: '/account/tickets/{ticket_id}', command: 'tickets rename',
      summary: 'Rename a ticket',
      example: 'gsh tickets rename tkt_123 -f subject="Crash on 1.21.4"',
      params: ticketId,
    },
    {
      method: 'POST', path: '/account/tickets/{ticket_id}/close', command: 'tickets close',
      summary: 'Close a ticket',
      example: 'gsh tickets close tkt_123',
      params: ticketId,
    },
    {
      method: 'POST', path: '/account/tickets/{ticket_id}/reopen', command: 'tickets reopen',
      summary: 'Reopen a ticket',
      example: 'gsh tickets reopen tkt_123',
      params: ticketId,
    },
    {
      method: 'POST', path: '/account/tickets/{ticket_id}/replies', command: 'tickets reply',
      summary: 'Reply to a ticket',
      example: 'gsh tickets reply tkt_123 -f message="Fixed, thanks"',
      params: ticketId,
    },
    {
      method: 'GET', path: '/account/tickets/{ticket_id}/participants', command: 'tickets participants',
      summary: "A ticket's participants",
      example: 'gsh tickets participants tkt_123',
      params: ticketId,
    },
  ],
});
