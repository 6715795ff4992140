import type { Command } from 'commander';

// Hand-written commands (ARCHITECTURE.md "Layers": src/commands/). Each module exports
// register(cmd), called with the command of its top-level word before the registry's commands are
// added, so a hand-written verb replaces a generated one of the same name.
//
// Operations a hand-written command calls: `gsh reference --json` maps every leaf command to the
// API operations it reaches. Generated leaves map to their registry operation by themselves (and a
// hand-written verb replacing a generated one inherits that operation). A module declares the rest
// with one export, keyed by the full command line, each value "METHOD /path" exactly as in the
// registry (a test checks both the keys and the operations):
//
//   export const operations: OperationUses = { 'auth login': ['GET /me'], 'auth profiles': [] };
//
// An empty list says the command reaches no fixed operation (offline, or any path like `gsh api`).
//
// A hand-written verb that takes the place of a generated one (same words) says so, so that a
// clash by accident fails when the tree is built instead of silently hiding a generated command:
//
//   export const replaces = ['files upload'];

/** Full command line (`console attach`) → the operations it calls (`POST /servers/{server_id}/console/token`). */
export type OperationUses = Readonly<Record<string, readonly string[]>>;

export interface HandWrittenModule {
  register(cmd: Command): void | Promise<void>;
  operations?: OperationUses;
  /** Full command lines of generated leaves this module replaces on purpose. */
  replaces?: readonly string[];
}

export interface HandWritten {
  summary: string;
  load: () => Promise<HandWrittenModule>;
}

export const handWritten: Record<string, HandWritten> = {
  auth: { summary: 'Log in with an API key, manage profiles, show the credential in use', load: () => import('./auth.js') },
  api: { summary: 'Send any request to the API through the request core', load: () => import('./api.js') },
  console: { summary: 'Console commands, EULA, queue, status and socket sessions', load: () => import('./console.js') },
  init: { summary: 'Init manifests: lint and schema offline; templates, validation and provisioning status online', load: () => import('./init.js') },
  hooks: { summary: 'Webhooks pushing server events to HTTPS endpoints', load: () => import('./hooks.js') },
  files: { summary: 'Browse, read, write, copy, move and delete server files; put and get transfer bytes', load: () => import('./files.js') },
  sandbox: { summary: 'Run a local emulator of the API for trying gsh and for tests', load: () => import('./sandbox.js') },
  reference: { summary: 'Every command with its API operations, scope, permission, arguments and flags', load: () => import('./reference.js') },
  completion: { summary: 'Print the shell completion script for bash, zsh or fish', load: () => import('./completion.js') },
  man: { summary: 'Print or write the manual pages (gsh.1 and one per command)', load: () => import('./man.js') },
  whoami: { summary: 'Show the account, key, scopes and rate limit of the credential in use, and where it came from', load: () => import('./whoami.js') },
  wait: { summary: 'Wait for work already under way: server states (one or many servers) and jobs', load: () => import('./wait.js') },
  cache: { summary: 'Where remembered servers are kept, and forgetting them', load: () => import('./cache.js') },
  version: { summary: 'Print the versions of gsh and Node.js and the platform (-o json for tools)', load: () => import('./version.js') },
};
