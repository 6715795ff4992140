import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { discover } from '../../../src/core/auth/discovery.js';
import { GshError } from '../../../src/core/errors.js';
import { ApiClient } from '../../../src/core/wire/http.js';

// Issue #28, TLS or loopback: identity assertions and claim tokens travel in the bodies sent to
// {auth_url}. A service reached over https that names a plain-http authorization server on
// another host gets no agent secret sent there: discovery stops before the first request to it.

let agent: MockAgent;
afterEach(async () => {
  await agent.close();
});

function service(authServer: string): ApiClient {
  agent = new MockAgent();
  agent.disableNetConnect();
  const api = agent.get('https://api.example.com');
  api.intercept({ path: '/api/v2/.well-known/oauth-authorization-server' }).reply(404, { error: { code: 'not_found', message: 'no' } });
  api.intercept({ path: '/api/v2/me' }).reply(401, { error: { code: 'unauthorized', message: 'no' } }, { headers: { 'www-authenticate': 'Bearer resource_metadata="https://api.example.com/prm"' } });
  api.intercept({ path: '/prm' }).reply(200, { authorization_servers: [authServer] });
  const meta = { agent_auth: { identity_types_supported: ['anonymous'] }, grant_types_supported: [] };
  for (const origin of ['http://auth.example.com', 'https://auth.example.com', 'http://127.0.0.1:9']) {
    agent.get(origin).intercept({ path: '/.well-known/oauth-authorization-server' }).reply(200, meta);
  }
  return new ApiClient({ baseUrl: 'https://api.example.com/api/v2', retries: 0, dispatcher: agent });
}

describe('discovery never downgrades to plain http', () => {
  it('an https service naming an http authorization server on another host is refused before it is asked', async () => {
    const err = await discover(service('http://auth.example.com')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GshError);
    expect((err as GshError).message).toBe('https://api.example.com/api/v2 names a plain-http authorization server (http://auth.example.com); gsh sends no agent secrets there');
    expect(agent.pendingInterceptors().map((i) => i.origin)).toContain('http://auth.example.com');
  });

  it('https, or a loopback http one, is used', async () => {
    expect((await discover(service('https://auth.example.com'))).authUrl).toBe('https://auth.example.com');
    expect((await discover(service('http://127.0.0.1:9'))).authUrl).toBe('http://127.0.0.1:9');
  });
});
