import type { HandWritten, OperationUses } from './hand-written.js';

// Hand-written commands (ARCHITECTURE.md "Layers": src/commands/). Each module exports
// register(cmd, program), called with the command of its top-level word before the registry's
// commands are added, so a hand-written verb replaces a generated one of the same name. What a
// module may export besides (the operations it calls, the generated verbs it replaces) is
// described in `hand-written.ts`.

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
  top: { summary: 'The fleet at a glance: a live view of every server\'s state and usage, within the rate limit', load: () => import('./top.js') },
  fleet: { summary: 'Rollouts across servers: merge the journals of fleet runs into one report', load: () => import('./fleet.js') },
  wait: { summary: 'Wait for work already under way: server states (one or many servers) and jobs', load: () => import('./wait.js') },
  config: { summary: 'A server\'s configuration as code: export, lint, diff and apply declaration files', load: () => import('./config.js') },
  cache: { summary: 'Where remembered servers are kept, and forgetting them', load: () => import('./cache.js') },
  mcp: { summary: 'The service\'s MCP tools in an AI client, through gsh\'s login and guardrails: proxy, tools, call, doctor, install', load: () => import('./mcp.js') },
  version: { summary: 'Print the versions of gsh and Node.js and the platform (-o json for tools)', load: () => import('./version.js') },
};

/** Full command line → declared operations, over every hand-written module (loads them all). */
export async function handWrittenUses(): Promise<Map<string, readonly string[]>> {
  const uses = new Map<string, readonly string[]>();
  for (const h of Object.values(handWritten)) {
    const declared: OperationUses = (await h.load()).operations ?? {};
    for (const [line, ops] of Object.entries(declared)) uses.set(line, ops);
  }
  return uses;
}
