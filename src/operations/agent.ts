import { defineFamily } from './types.js';

// Document 1, "Agent registration flow". Paths are relative to {auth_url}, the same address as
// {base_url}. None of these takes the bearer credential: the claim token, identity assertion
// and access token travel in the body, never on argv (`secret`). The hand-written `auth`
// commands drive the flow through these operations.
export default defineFamily({
  name: 'agent',
  summary: 'Agent registration: discovery, identity, claim and tokens',
  operations: [
    {
      method: 'GET', path: '/.well-known/oauth-authorization-server', command: 'agent discovery', auth: 'none', raw: true,
      summary: 'Authorization server metadata, with agent_auth.identity_types_supported',
      example: 'gsh agent discovery --json',
    },
    {
      method: 'GET', path: '/.well-known/oauth-protected-resource', command: 'agent resource-metadata', auth: 'none', raw: true,
      summary: 'Protected-resource metadata (named by WWW-Authenticate on every 401)',
      example: 'gsh agent resource-metadata --json',
    },
    {
      method: 'POST', path: '/agent/identity', command: 'agent register', auth: 'none',
      summary: 'Register an agent identity: service_auth, anonymous or identity_assertion',
      example: 'gsh agent register --type service_auth --login-hint alex@example.com',
      body: [
        { name: 'type', type: 'string', required: true, choices: ['service_auth', 'anonymous', 'identity_assertion'],
          description: 'Registration method (identity_assertion only when discovery lists it)' },
        { name: 'login_hint', type: 'string', description: "service_auth: the user's e-mail" },
        { name: 'assertion_type', type: 'string', choices: ['urn:ietf:params:oauth:token-type:id-jag'],
          description: 'identity_assertion: urn:ietf:params:oauth:token-type:id-jag' },
        { name: 'assertion', type: 'string', secret: true,
          description: 'identity_assertion: an ID-JAG from a trusted identity provider' },
      ],
    },
    {
      method: 'POST', path: '/agent/identity/claim', command: 'agent claim', auth: 'none',
      summary: 'Start a claim of an anonymous account, or refresh its code (same token and e-mail)',
      example: 'gsh agent claim --email alex@example.com --claim-token-file claim-token.txt',
      body: [
        { name: 'claim_token', type: 'string', required: true, secret: true, description: 'The claim token (clm_…)' },
        { name: 'email', type: 'string', required: true, description: 'E-mail of the person who completes the claim' },
      ],
    },
    {
      method: 'POST', path: '/oauth2/token', command: 'agent token', auth: 'none', form: true,
      summary: 'Poll a claim, or exchange the identity assertion for a one-hour access token',
      example: 'gsh agent token --grant-type urn:ietf:params:oauth:grant-type:jwt-bearer --assertion-file -',
      body: [
        { name: 'grant_type', type: 'string', required: true,
          choices: ['urn:vendor:agent-auth:grant-type:claim', 'urn:ietf:params:oauth:grant-type:jwt-bearer'],
          open: true, // the claim grant's vendor segment is shown neutral in the contract
          description: 'claim (poll with claim_token) or jwt-bearer (exchange assertion)' },
        { name: 'claim_token', type: 'string', secret: true, description: 'claim grant: the claim token' },
        { name: 'assertion', type: 'string', secret: true, description: 'jwt-bearer grant: the identity assertion' },
      ],
    },
    {
      method: 'POST', path: '/oauth2/revoke', command: 'agent revoke', auth: 'none', form: true,
      summary: 'Revoke one access token',
      example: 'gsh agent revoke --token-file -',
      body: [{ name: 'token', type: 'string', required: true, secret: true, description: 'The access token to revoke' }],
    },
  ],
});
