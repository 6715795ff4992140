import type { Command } from 'commander';

// Hand-written commands (DESIGN.md layout: src/commands/). Each module exports register(cmd),
// called with the command of its top-level word before the registry's commands are added, so a
// hand-written verb replaces a generated one of the same name.

export interface HandWritten {
  summary: string;
  load: () => Promise<{ register(cmd: Command): void | Promise<void> }>;
}

export const handWritten: Record<string, HandWritten> = {
  auth: { summary: 'Log in with an API key, manage profiles, show the credential in use', load: () => import('./auth.js') },
  api: { summary: 'Send any request to the API through the request core', load: () => import('./api.js') },
  console: { summary: 'Console commands, EULA, queue, status and socket sessions', load: () => import('./console.js') },
  sandbox: { summary: 'Run a local emulator of the API for trying gsh and for tests', load: () => import('./sandbox.js') },
};
