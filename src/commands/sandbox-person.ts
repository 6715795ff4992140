import { outputStream } from '../core/terminal/io.js';
import type { Command } from 'commander';
import { GshError, UsageError } from '../core/errors.js';
import { contextOf } from '../core/run/run-state.js';
import { offline } from './offline.js';

// `gsh sandbox approve|reject|ad-view|disconnect|claim-complete`: play the person against a
// running sandbox through its admin API (src/sandbox/agent/admin.ts and /__sandbox/ad). They call no
// operation of the API, so a dry run names the admin request and sends nothing. The
// sandbox is found with --sandbox URL, else from GSH_BASE_URL (its origin).

function origin(flag: string | undefined, env: Record<string, string | undefined>): string {
  const raw = flag ?? env.GSH_BASE_URL;
  if (!raw) throw new UsageError('which sandbox?', 'Pass --sandbox http://127.0.0.1:PORT, or set GSH_BASE_URL as `gsh sandbox start` prints.');
  try {
    return new URL(raw).origin;
  } catch {
    throw new UsageError(`not a URL: ${raw}`);
  }
}

async function admin(base: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<string> {
  let res: Response;
  try {
    res = await fetch(`${base}${path}`, {
      method,
      ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}),
    });
  } catch (err) {
    throw new GshError(`cannot reach the sandbox at ${base}: ${(err as Error).message}`, 9, 'Is `gsh sandbox start` running?');
  }
  const text = await res.text();
  if (!res.ok) {
    let message = text.trim();
    try {
      message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? message;
    } catch {
      // a plain-text answer is its own message
    }
    throw new GshError(message || `HTTP ${res.status}`, res.status === 404 ? 5 : 1);
  }
  return text;
}

/** Sends one admin request and prints its answer (or, with --dry-run, says which it would send). */
async function play(cmd: Command, flag: string | undefined, method: 'GET' | 'POST', path: string, body?: unknown): Promise<void> {
  const base = origin(flag, contextOf(cmd).env);
  await offline(cmd, `${method} ${base}${path} (the sandbox's admin API)`, async (ctx) => {
    const text = await admin(base, method, path, body);
    outputStream(ctx.stdout).write(text.endsWith('\n') ? text : `${text}\n`);
  });
}

export function registerPersonCommands(cmd: Command): void {
  const withSandbox = (c: Command) => c.option('--sandbox <url>', 'the sandbox (default: the origin of $GSH_BASE_URL)');

  for (const verb of ['approve', 'reject'] as const) {
    withSandbox(cmd.command(verb))
      .description(`Play the account owner: ${verb} a pending agent request (default: the latest)`)
      .argument('[approval_id]', 'the approval (apr_…); default the latest pending one')
      .action(async function (this: Command, id: string | undefined, o: { sandbox?: string }) {
        await play(this, o.sandbox, 'POST', `/__sandbox/agent/approvals/${encodeURIComponent(id ?? 'latest')}/${verb}`);
      });
  }

  withSandbox(cmd.command('ad-view'))
    .description('Play the person: watch the ad that starting a free server needs')
    .argument('<server_id>', 'the free-plan server')
    .action(async function (this: Command, id: string, o: { sandbox?: string }) {
      await play(this, o.sandbox, 'GET', `/__sandbox/ad?server_id=${encodeURIComponent(id)}`);
    });

  withSandbox(cmd.command('disconnect'))
    .description('Play the user: disconnect an agent from the dashboard (all its credentials stop working)')
    .argument('[agent_id]', 'the agent (agt_…); default the latest connected one')
    .action(async function (this: Command, id: string | undefined, o: { sandbox?: string }) {
      await play(this, o.sandbox, 'POST', '/__sandbox/agent/disconnect', id ? { agent_id: id } : {});
    });

  withSandbox(cmd.command('claim-complete'))
    .description('Play the person: sign in and enter a claim code (default: the latest open one)')
    .argument('[user_code]', 'the code shown by `gsh auth login --agent` or `gsh auth claim`')
    .action(async function (this: Command, code: string | undefined, o: { sandbox?: string }) {
      await play(this, o.sandbox, 'POST', '/__sandbox/agent/claims/complete', code ? { user_code: code } : {});
    });
}
