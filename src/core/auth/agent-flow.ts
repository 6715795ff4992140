import { ApiError, Exit, GshError } from '../errors.js';
import type { ApiClient } from '../wire/http.js';
import { documentOf, JWT_BEARER_GRANT } from './discovery.js';
import type { AgentIdentity, ConfigStore } from './store.js';
import { sleep as defaultSleep } from '../sleep.js';

// The wire side of the agent flow (01-general-contract.md "Agent registration flow"): JSON bodies
// to /agent/identity and /agent/identity/claim, form bodies to /oauth2/token and /oauth2/revoke,
// all under {auth_url} and without a bearer. Secrets travel only in bodies.

export interface ClaimCode {
  user_code?: string;
  verification_uri?: string;
  verification_uri_complete?: string;
  expires_in?: number;
  interval?: number;
}

export interface Registration {
  identity_assertion?: string;
  claim_token?: string;
  claim?: ClaimCode;
  document: Record<string, unknown>;
}

export interface TokenGrant {
  access_token: string;
  expires_in?: number;
  identity_assertion?: string;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function num(v: unknown): number | undefined {
  const n = typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
}

export function claimCodeOf(v: unknown): ClaimCode | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const c = v as Record<string, unknown>;
  const code: ClaimCode = {};
  for (const k of ['user_code', 'verification_uri', 'verification_uri_complete'] as const) if (str(c[k])) code[k] = str(c[k]);
  for (const k of ['expires_in', 'interval'] as const) if (num(c[k]) !== undefined) code[k] = num(c[k]);
  return Object.keys(code).length ? code : undefined;
}

export class AgentAuth {
  constructor(
    private readonly client: ApiClient,
    readonly authUrl: string,
    readonly claimGrantType: string,
  ) {}

  private async post(path: string, spec: { body?: unknown; form?: Record<string, string> }): Promise<Record<string, unknown>> {
    const res = await this.client.request({ method: 'POST', path: `${this.authUrl}${path}`, auth: false, ...spec });
    return documentOf(res.body);
  }

  async register(body: Record<string, string>): Promise<Registration> {
    const doc = await this.post('/agent/identity', { body });
    const claim = claimCodeOf(doc.claim);
    return {
      document: doc,
      ...(str(doc.identity_assertion) ? { identity_assertion: str(doc.identity_assertion) } : {}),
      ...(str(doc.claim_token) ? { claim_token: str(doc.claim_token) } : {}),
      ...(claim ? { claim } : {}),
    };
  }

  /** Starts the claim of an anonymous account, or refreshes its code (same token and e-mail). */
  async startClaim(claimToken: string, email: string): Promise<{ claim: ClaimCode; claim_token: string }> {
    const doc = await this.post('/agent/identity/claim', { body: { claim_token: claimToken, email } });
    return { claim: claimCodeOf(doc.claim) ?? claimCodeOf(doc) ?? {}, claim_token: str(doc.claim_token) ?? claimToken };
  }

  async pollClaim(claimToken: string): Promise<TokenGrant> {
    return grantOf(await this.post('/oauth2/token', { form: { grant_type: this.claimGrantType, claim_token: claimToken } }));
  }

  async exchange(assertion: string): Promise<TokenGrant> {
    return grantOf(await this.post('/oauth2/token', { form: { grant_type: JWT_BEARER_GRANT, assertion } }));
  }

  async revoke(token: string): Promise<void> {
    await this.post('/oauth2/revoke', { form: { token } });
  }
}

function grantOf(doc: Record<string, unknown>): TokenGrant {
  const token = str(doc.access_token);
  if (!token) throw new GshError('the token endpoint answered without an access_token', Exit.error);
  const expiresIn = num(doc.expires_in);
  return {
    access_token: token,
    ...(expiresIn !== undefined ? { expires_in: expiresIn } : {}),
    ...(str(doc.identity_assertion) ? { identity_assertion: str(doc.identity_assertion) } : {}),
  };
}

export interface ClaimPollOptions {
  /** Seconds between polls, from the claim object. */
  interval: number | undefined;
  /** Give up locally after this (epoch ms): the code's own expiry plus a margin. */
  deadline: number;
  /** The next step when the code expires. */
  restart: string;
  sleep?: (ms: number) => Promise<void>;
  onSlowDown?: (intervalMs: number) => void;
}

const DEFAULT_INTERVAL_S = 5;
const MIN_INTERVAL_MS = 100;
const SLOW_DOWN_MS = 5000;

/**
 * Polls the claim grant: `authorization_pending` waits `interval`, `slow_down` adds 5 s,
 * `expired_token` stops with the next step; success is the access token and a new assertion.
 */
export async function pollClaim(auth: AgentAuth, claimToken: string, opts: ClaimPollOptions): Promise<TokenGrant> {
  const sleep = opts.sleep ?? defaultSleep;
  let intervalMs = Math.max(MIN_INTERVAL_MS, (opts.interval && opts.interval > 0 ? opts.interval : DEFAULT_INTERVAL_S) * 1000);
  for (;;) {
    if (Date.now() + intervalMs > opts.deadline) {
      throw new GshError('gave up waiting: the code has expired', Exit.personMustAct, opts.restart);
    }
    await sleep(intervalMs);
    try {
      return await auth.pollClaim(claimToken);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      if (err.code === 'authorization_pending') continue;
      if (err.code === 'slow_down') {
        intervalMs += SLOW_DOWN_MS;
        opts.onSlowDown?.(intervalMs);
        continue;
      }
      if (err.code === 'expired_token') {
        throw new GshError('the code expired before the person completed it', Exit.personMustAct, opts.restart);
      }
      throw explainAgentError(err, opts.restart);
    }
  }
}

/** Agent-flow error codes (01-general-contract.md "Errors") as messages with a next step. */
export function explainAgentError(err: ApiError, restart: string): GshError {
  switch (err.code) {
    case 'anonymous_not_enabled':
      return new GshError('anonymous registration is disabled on this service', err.exitCode, 'Choose another method: --email or --assertion.');
    case 'issuer_not_enabled':
      return new GshError("the identity provider that issued the assertion is not trusted by this service", err.exitCode, 'Use an assertion from a trusted provider, or --email.');
    case 'invalid_claim_token':
    case 'claim_expired':
    case 'claimed_or_in_flight':
      return new GshError(`the claim cannot go on (${err.code}): ${err.message}`, Exit.error, restart);
    case 'invalid_grant':
      return new GshError('the agent connection was closed', Exit.auth, restart);
    default:
      return err;
  }
}

/** Stores a token grant: the new assertion replaces older ones (contract: "discard older ones"). */
export function applyGrant(agent: AgentIdentity, grant: TokenGrant, now = Date.now()): void {
  agent.access_token = grant.access_token;
  const lifetime = grant.expires_in ?? 3600;
  agent.expires_in = lifetime;
  agent.expires_at = new Date(now + lifetime * 1000).toISOString();
  if (grant.identity_assertion) agent.identity_assertion = grant.identity_assertion;
}

/** A disconnected agent: nothing of it is worth keeping but the profile's base URL. */
export async function forgetAgent(profile: string, store: ConfigStore): Promise<void> {
  await store.update((d) => {
    const p = d.profiles[profile];
    if (p) delete p.agent;
  });
}
