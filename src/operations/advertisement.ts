import { defineFamily } from './types.js';

// Document 3, "Operation families that are only named": method, path and purpose only; no
// scope, permission, parameter or body is shown, so none is declared (send fields with -f).
export default defineFamily({
  name: 'advertisement',
  summary: 'Server listing advertisement, its posts and comments',
  operations: [
    {
      method: 'GET', path: '/servers/{server_id}/advertisement', command: 'advertisement get',
      summary: "The server's advertisement",
      example: 'gsh advertisement get -s lobby',
    },
    {
      method: 'PUT', path: '/servers/{server_id}/advertisement', command: 'advertisement publish',
      summary: 'Publish or update the advertisement',
      example: 'gsh advertisement publish -s lobby -f title="Friendly survival"',
    },
    {
      method: 'DELETE', path: '/servers/{server_id}/advertisement', command: 'advertisement unpublish',
      summary: 'Unpublish the advertisement',
      example: 'gsh advertisement unpublish -s lobby',
    },
    {
      method: 'GET', path: '/servers/{server_id}/advertisement/posts', command: 'advertisement posts list',
      columns: ['id', 'created_at'],
      summary: "The advertisement's posts",
      example: 'gsh advertisement posts list -s lobby',
    },
    {
      method: 'POST', path: '/servers/{server_id}/advertisement/posts', command: 'advertisement posts create',
      summary: 'Create a post',
      example: 'gsh advertisement posts create -s lobby -f title="Season 2" -f body="New map!"',
    },
    {
      method: 'PUT', path: '/servers/{server_id}/advertisement/posts/{post_id}', command: 'advertisement posts update',
      summary: 'Replace a post',
      example: 'gsh advertisement posts update -s lobby post_123 -f title="Season 2 is live"',
      params: [{ name: 'post_id', description: 'Post id from advertisement posts list' }],
    },
    {
      method: 'DELETE', path: '/servers/{server_id}/advertisement/posts/{post_id}', command: 'advertisement posts delete',
      summary: 'Delete a post',
      example: 'gsh advertisement posts delete -s lobby post_123 --yes',
      params: [{ name: 'post_id', description: 'Post id from advertisement posts list' }], destructive: true,
    },
    {
      method: 'GET', path: '/servers/{server_id}/advertisement/comments', command: 'advertisement comments list',
      columns: ['id', 'created_at'],
      summary: "Comments on the advertisement",
      example: 'gsh advertisement comments list -s lobby',
    },
    {
      method: 'PATCH', path: '/servers/{server_id}/advertisement/comments/{comment_id}', command: 'advertisement comments update',
      summary: 'Hide or restore a comment',
      example: 'gsh advertisement comments update -s lobby cmt_123 -F hidden=true',
      params: [{ name: 'comment_id', description: 'Comment id from advertisement comments list' }],
    },
    {
      method: 'DELETE', path: '/servers/{server_id}/advertisement/comments/{comment_id}', command: 'advertisement comments delete',
      summary: 'Delete a comment',
      example: 'gsh advertisement comments delete -s lobby cmt_123 --yes',
      params: [{ name: 'comment_id', description: 'Comment id from advertisement comments list' }], destructive: true,
    },
  ],
});
