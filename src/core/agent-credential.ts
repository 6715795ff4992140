import type { CredentialProvider } from './http.js';
import { readStore } from './store.js';

// An agent identity's bearer: the stored access token. Renewal with the jwt-bearer grant is
// added by the agent-flow work; until then an expired token surfaces as a 401.
export function agentCredential(profile: string, _baseUrl: string, env: NodeJS.ProcessEnv): CredentialProvider {
  return {
    source: `profile "${profile}" (agent)`,
    bearer: async () => readStore(env).profiles[profile]?.agent?.access_token ?? '',
  };
}
