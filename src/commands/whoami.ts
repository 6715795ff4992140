import type { Command } from 'commander';
import { withRuntime } from '../core/run/runtime.js';
import type { OperationUses } from './hand-written.js';

// `gsh whoami`: the short way to `gsh auth status` (one function serves both).

export function register(cmd: Command): void {
  cmd
    .addHelpText('after', `
Shows the account, the key's name, scopes and rate limit (or the agent token's expiry), the base
URL, and which credential was used and why (--profile, GSH_API_KEY, the current profile…).
The same as gsh auth status.

Examples:
  gsh whoami
  gsh whoami --jq .account.username
  gsh --profile ci whoami -o json`)
    .action(async function (this: Command) {
      const { authStatus } = await import('./auth.js');
      await withRuntime(this, authStatus);
    });
}

export const operations: OperationUses = { whoami: ['GET /me'] };
