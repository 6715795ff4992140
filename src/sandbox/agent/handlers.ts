import { ok, type HandlerResult } from '../envelope.js';
import { handlers as system } from '../handlers/system.js';
import { asSpec, type HandlerMap, type HandlerRequest } from '../handlers/types.js';
import { parseIdJag } from './id-jag.js';
import { METHODS, type Method } from './model.js';
import { agentOf, oauthFailure } from './service.js';

// The agent-flow endpoints (01-general-contract.md "Agent registration flow"): discovery,
// /agent/identity (JSON), /agent/identity/claim (JSON), /oauth2/token and /oauth2/revoke (form),
// the approval status URL, and GET /me for agent tokens. Error codes follow "Errors"
// (agent-flow codes); their statuses, where the contract does not show them, are ours: 400 for
// the OAuth polling and grant codes (as RFC 6749/8628), 403 for a disabled method or issuer,
// 409 for claimed_or_in_flight.

export const CLAIM_GRANT = 'urn:vendor:agent-auth:grant-type:claim';
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';
/** The ID-JAG's login at the provider must be this recent (contract: one hour). */
const LOGIN_MAX_AGE_S = 3600;

const json = (doc: unknown, status = 200): HandlerResult => ({
  status, raw: { contentType: 'application/json; charset=utf-8', text: JSON.stringify(doc) }, headers: { 'cache-control': 'no-store' },
});

function fields(req: HandlerRequest): Record<string, unknown> {
  if (req.body === undefined) return {};
  if (req.body === null || typeof req.body !== 'object' || Array.isArray(req.body)) throw oauthFailure(400, 'invalid_request', 'The body must be an object');
  return req.body as Record<string, unknown>;
}

function text(body: Record<string, unknown>, name: string): string {
  const v = body[name];
  if (typeof v !== 'string' || v === '') throw oauthFailure(400, 'invalid_request', `${name} is required`);
  return v;
}

const meSystem = asSpec(system['GET /me']!).handle;

export const handlers: HandlerMap = {
  'GET /.well-known/oauth-authorization-server': {
    auth: 'none',
    handle: (_req, ctx) => {
      const agent = agentOf(ctx);
      return json({
        issuer: ctx.baseUrl,
        token_endpoint: `${ctx.baseUrl}/oauth2/token`,
        revocation_endpoint: `${ctx.baseUrl}/oauth2/revoke`,
        grant_types_supported: [CLAIM_GRANT, JWT_BEARER_GRANT],
        token_endpoint_auth_methods_supported: ['none'],
        agent_auth: {
          identity_endpoint: `${ctx.baseUrl}/agent/identity`,
          claim_endpoint: `${ctx.baseUrl}/agent/identity/claim`,
          identity_types_supported: METHODS.filter((m) => agent.config.methods[m]),
          assertion_types_supported: [ID_JAG],
        },
      });
    },
  },

  'POST /agent/identity': (req, ctx) => {
    const agent = agentOf(ctx);
    const body = fields(req);
    const type = text(body, 'type') as Method;
    if (!METHODS.includes(type)) throw oauthFailure(400, 'invalid_request', `type must be one of ${METHODS.join(', ')}`);
    if (type === 'anonymous') {
      if (!agent.config.methods.anonymous) throw oauthFailure(403, 'anonymous_not_enabled', 'Anonymous registration is disabled; choose another method');
      const account = agent.anonymousAccount();
      const identity = agent.newIdentity('anonymous', account.id);
      const claim = agent.newClaim('anonymous', { identityId: identity.id });
      return ok({ identity_assertion: identity.assertion, claim_token: claim.token, account: agent.accountObject(account) }, 201);
    }
    if (type === 'service_auth') {
      if (!agent.config.methods.service_auth) throw oauthFailure(400, 'invalid_request', 'service_auth registration is disabled; choose another method');
      const email = text(body, 'login_hint');
      const claim = agent.newClaim('service_auth', { email });
      return ok({ claim_token: claim.token, claim: agent.issueCode(claim) }, 201);
    }
    if (!agent.config.methods.identity_assertion) throw oauthFailure(403, 'issuer_not_enabled', 'Identity assertions are not accepted here');
    if (body.assertion_type !== ID_JAG) throw oauthFailure(400, 'invalid_request', `assertion_type must be ${ID_JAG}`);
    const jag = parseIdJag(text(body, 'assertion'));
    if (!jag) throw oauthFailure(400, 'invalid_request', 'assertion is not an ID-JAG');
    if (!agent.config.trustedIssuers.includes(jag.iss)) throw oauthFailure(403, 'issuer_not_enabled', `The issuer ${jag.iss} is not trusted`);
    if (jag.aud !== ctx.baseUrl) throw oauthFailure(400, 'invalid_request', 'The assertion audience must equal the API base');
    if (Date.now() / 1000 - jag.auth_time > LOGIN_MAX_AGE_S) {
      throw oauthFailure(401, 'login_required', 'The sign-in at the identity provider is older than one hour; mint a fresh assertion');
    }
    if (agent.config.knownEmails.includes(jag.email.toLowerCase())) {
      const claim = agent.newClaim('interaction', { email: jag.email });
      const code = agent.issueCode(claim);
      throw oauthFailure(401, 'interaction_required', 'This e-mail belongs to an existing account; its owner must confirm the link', {
        claim: { ...code, claim_token: claim.token },
      });
    }
    const account = agent.mainAccount;
    const identity = agent.newIdentity('identity_assertion', account.id);
    return ok({ identity_assertion: identity.assertion, account: agent.accountObject(account) }, 201);
  },

  'POST /agent/identity/claim': (req, ctx) => {
    const agent = agentOf(ctx);
    const body = fields(req);
    const token = text(body, 'claim_token');
    const email = text(body, 'email');
    const claim = agent.claims.get(token);
    if (!claim || claim.kind !== 'anonymous' || !claim.identityId) throw oauthFailure(400, 'invalid_claim_token', 'Unknown claim token');
    const identity = agent.identities.get(claim.identityId);
    const account = identity ? agent.accounts.get(identity.accountId) : undefined;
    if (!identity || identity.disconnected || !account || (account.expiresAt ?? Infinity) <= Date.now()) {
      throw oauthFailure(400, 'claim_expired', 'The temporary account is gone; register again');
    }
    if (claim.spent || account.claimed) throw oauthFailure(409, 'claimed_or_in_flight', 'The account is already claimed');
    if (claim.email && claim.email !== email && (claim.codeExpiresAt ?? 0) > Date.now()) {
      throw oauthFailure(409, 'claimed_or_in_flight', 'A claim for another e-mail is in flight');
    }
    claim.email = email;
    return ok({ claim_token: claim.token, claim: agent.issueCode(claim) }, 201);
  },

  'POST /oauth2/token': (req, ctx) => {
    const agent = agentOf(ctx);
    const body = fields(req);
    const grant = text(body, 'grant_type');
    if (grant === JWT_BEARER_GRANT) {
      const assertion = text(body, 'assertion');
      const identity = [...agent.identities.values()].find((i) => i.assertion === assertion);
      if (!identity || identity.disconnected) throw oauthFailure(400, 'invalid_grant', 'The connection was closed, or the assertion is unknown; register again');
      return json(agent.issueToken(identity));
    }
    if (grant !== CLAIM_GRANT) throw oauthFailure(400, 'unsupported_grant_type', `grant_type ${grant} is not supported`);
    const claim = agent.claims.get(text(body, 'claim_token'));
    if (!claim || claim.spent || !claim.userCode) throw oauthFailure(400, 'invalid_grant', 'Unknown or spent claim token');
    const now = Date.now();
    if ((claim.codeExpiresAt ?? 0) <= now) throw oauthFailure(400, 'expired_token', 'The code expired; repeat the claim or registration');
    const tooSoon = claim.lastPollAt !== undefined && now - claim.lastPollAt < claim.interval * 1000 * 0.8;
    claim.lastPollAt = now;
    if (agent.slowDownNext > 0 || tooSoon) {
      agent.slowDownNext = Math.max(0, agent.slowDownNext - 1);
      claim.interval += 5;
      throw oauthFailure(400, 'slow_down', `Polling too fast; wait ${claim.interval} s between polls`);
    }
    if (!claim.completed) throw oauthFailure(400, 'authorization_pending', 'Waiting for the person to enter the code');
    const identity = agent.settleClaim(claim);
    return json({ ...agent.issueToken(identity), identity_assertion: identity.assertion });
  },

  'POST /oauth2/revoke': (req, ctx) => {
    const token = agentOf(ctx).tokens.get(text(fields(req), 'token'));
    if (token) token.revoked = true;
    // RFC 7009: 200 whether or not the token was known.
    return { status: 200 };
  },

  // The approval status URL (its path is ours: the contract hands it over as `status_url`).
  'GET /agent/approvals/{approval_id}': {
    // Polled "with the same bearer" (01-general-contract.md, Approvals): any valid token, no scope.
    auth: 'bearer',
    handle: (req, ctx) => {
      const agent = agentOf(ctx);
      const identity = agent.identityOf(req.principal);
      const approval = agent.approvals.get(req.params.approval_id ?? '');
      if (!identity || !approval || approval.identityId !== identity.id) throw oauthFailure(404, 'not_found', 'Approval not found');
      return ok(agent.approvalObject(approval));
    },
  },

  'GET /me': (req, ctx) => {
    const agent = agentOf(ctx);
    const identity = agent.identityOf(req.principal);
    if (!identity) return meSystem(req, ctx);
    const account = agent.accountOf(identity);
    return ok({ account: agent.accountObject(account), agent: { id: identity.id, method: identity.method, claimed: account.claimed } });
  },
};
