import { AgentAuth } from '../auth/agent-flow.js';
import { CLAIM_GRANT } from '../auth/discovery.js';
import type { Runtime } from '../run/runtime.js';
import type { AgentIdentity } from '../auth/store.js';

// `gsh auth logout` of an agent: revoke the access token (`POST /oauth2/revoke`, form field
// `token`; 01-general-contract.md "Agent registration flow") before the local secrets go. A
// failed revocation is reported but does not keep the secrets on disk.

export async function revokeAccessToken(rt: Runtime, baseUrl: string, agent: AgentIdentity): Promise<boolean> {
  if (!agent.access_token) return false;
  const client = rt.newClient({ baseUrl });
  try {
    await new AgentAuth(client, agent.auth_url ?? client.baseUrl, agent.claim_grant_type ?? CLAIM_GRANT).revoke(agent.access_token);
    return true;
  } catch (err) {
    rt.warn(`could not revoke the access token (${(err as Error).message}); it stays valid until it expires`);
    return false;
  } finally {
    await client.close();
  }
}
