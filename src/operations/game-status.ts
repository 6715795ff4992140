import { defineFamily } from './types.js';

// Document 3, "Operation families that are only named" ("Utilities"). The first path segment
// is the game's name (a placeholder); the address parameter's name is not shown (utility:mcquery
// exists as a scope; no mapping is stated).
export default defineFamily({
  name: 'game-status',
  summary: 'Live status of any public game server',
  operations: [
    {
      method: 'GET', path: '/<game>/status', command: 'game-status',
      summary: 'Query the live status of any public game server by address',
      example: 'gsh game-status minecraft',
      params: [{ name: 'game', description: "The game's name (first path segment)" }],
    },
  ],
});
