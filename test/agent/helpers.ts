import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { E2E } from '../e2e/helpers.js';
import { agentOf, type AgentService } from '../../src/sandbox/agent/service.js';
import type { AgentIdentity } from '../../src/core/auth/store.js';

// Shared by the agent-flow tests: the sandbox's agent model, profile-based env, the stored
// profile, and waiting for the sandbox to reach a state (the person acts on their own schedule).

export const agent = (t: E2E): AgentService => agentOf(t.sandbox.extensions.context);

/** Profile-based auth (no GSH_API_KEY), one profile per test so tests do not share identities. */
export const asProfile = (profile: string): Record<string, string | undefined> => ({ GSH_API_KEY: undefined, GSH_PROFILE: profile });

export function storedAgent(t: E2E, profile: string): AgentIdentity | undefined {
  const data = JSON.parse(readFileSync(join(t.configDir, 'config.json'), 'utf8')) as { profiles: Record<string, { agent?: AgentIdentity }> };
  return data.profiles[profile]?.agent;
}

export async function until<T>(fn: () => T | undefined | false, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Requests the sandbox received on `route` (method and template, e.g. "POST /oauth2/token"). */
export const logged = (t: E2E, route: string) => t.sandbox.log.filter((e) => `${e.method} ${e.route ?? e.path}` === route);
