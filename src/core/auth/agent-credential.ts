import { AgentAuth, applyGrant, forgetAgent } from './agent-flow.js';
import { CLAIM_GRANT } from './discovery.js';
import { ApiError, Exit, GshError } from '../errors.js';
import type { ApiClient, CredentialProvider } from '../wire/http.js';
import type { AgentIdentity, ConfigStore } from './store.js';

// An agent identity's bearer (ARCHITECTURE.md "Auth store"): the stored access token, renewed with
// the jwt-bearer grant and the stored identity assertion shortly before it expires, or once after a
// 401 (01-general-contract.md "Agent registration flow": no refresh token; repeat with the same
// assertion on expiry). `invalid_grant` means the connection was closed: the secrets go, exit 3.

/** Renew this long before expiry: a fifth of the lifetime, at most a minute (short sandbox lifetimes). */
export function renewMarginMs(agent: AgentIdentity): number {
  return Math.min(60_000, ((agent.expires_in ?? 3600) * 1000) / 5);
}

export function needsRenewal(agent: AgentIdentity, now = Date.now()): boolean {
  if (!agent.access_token) return true;
  const expires = agent.expires_at ? Date.parse(agent.expires_at) : NaN;
  return Number.isFinite(expires) && expires - renewMarginMs(agent) <= now;
}

export const DISCONNECTED_HINT =
  'Its local secrets were removed. Register again: `gsh auth login --agent --email YOU@example.com` (or --anonymous, --assertion FILE).';

/** Makes the client the renewal is sent with (the run's dispatcher, clock and timeouts). */
export type ClientFactory = (baseUrl: string) => ApiClient;

async function renew(profile: string, baseUrl: string, store: ConfigStore, newClient: ClientFactory): Promise<string> {
  const agent = store.read().profiles[profile]?.agent;
  if (!agent?.identity_assertion) {
    throw new GshError(`profile "${profile}" holds no agent identity to renew its token with`, Exit.auth, 'Run `gsh auth login --agent` again.');
  }
  const client = newClient(baseUrl);
  try {
    const grant = await new AgentAuth(client, agent.auth_url ?? client.baseUrl, agent.claim_grant_type ?? CLAIM_GRANT).exchange(agent.identity_assertion);
    await store.update((d) => {
      const stored = d.profiles[profile]?.agent;
      if (stored) applyGrant(stored, grant);
    });
    return grant.access_token;
  } catch (err) {
    if (err instanceof ApiError && err.code === 'invalid_grant') {
      await forgetAgent(profile, store);
      throw new GshError('the agent was disconnected: its connection to the account was closed', Exit.auth, DISCONNECTED_HINT);
    }
    throw err;
  } finally {
    await client.close();
  }
}

export function agentCredential(profile: string, baseUrl: string, store: ConfigStore, newClient: ClientFactory): CredentialProvider {
  // Concurrent requests (paging with --all) share one renewal.
  let renewing: Promise<string> | undefined;
  const renewOnce = () => (renewing ??= renew(profile, baseUrl, store, newClient).finally(() => (renewing = undefined)));
  return {
    source: `profile "${profile}" (agent)`,
    bearer: async () => {
      const agent = store.read().profiles[profile]?.agent;
      if (agent?.access_token && !needsRenewal(agent)) return agent.access_token;
      return renewOnce();
    },
    renewAfterUnauthorized: async () => {
      await renewOnce();
      return true;
    },
  };
}
