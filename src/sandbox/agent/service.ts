import type { Principal } from '../auth.js';
import { EXPLICIT_GRANT_SCOPES, READ_SCOPES } from '../auth.js';
import { isoSeconds } from '../clock.js';
import type { SandboxContext } from '../context.js';
import { ApiFailure } from '../envelope.js';
import { makeServer } from '../state.js';
import {
  type AccessToken, type AgentAccount, type AgentConfig, type Approval, type Claim, DEFAULT_CONFIG, type Identity, type Method,
  secret, userCode,
} from './model.js';

// One sandbox's agent flow: accounts, identities, claims, access tokens and approvals, plus the
// person's side (complete a claim, approve, reject, disconnect). Handlers (handlers.ts), the gate
// (gate.ts) and the admin API (admin.ts) call into it.

const SEVEN_DAYS_MS = 7 * 86_400_000;
/** Principal kind of agent access tokens. */
export const AGENT_KIND = 'agent';

/**
 * Account reach (contract): an agent acts on the whole account but can never add SSH keys,
 * subusers or support access; those three scopes are left out.
 */
const NEVER_FOR_AGENTS = new Set(['account:ssh-keys:write', 'servers:subusers:write', 'servers:support-access:write']);
export const AGENT_SCOPES: readonly string[] = [
  'servers:*', ...READ_SCOPES, 'templates:write', 'account:tickets:write',
  ...[...EXPLICIT_GRANT_SCOPES].filter((s) => !NEVER_FOR_AGENTS.has(s)),
];

export const oauthFailure = (status: number, code: string, message: string, more?: Record<string, unknown>) =>
  new ApiFailure(status, code, message, more ? { more } : {});

export class AgentService {
  config: AgentConfig = structuredClone(DEFAULT_CONFIG);
  /** Polls of the claim grant to answer slow_down regardless of timing (sandbox control). */
  slowDownNext = 0;
  readonly accounts = new Map<number, AgentAccount>();
  readonly identities = new Map<string, Identity>();
  readonly claims = new Map<string, Claim>();
  readonly tokens = new Map<string, AccessToken>();
  readonly approvals = new Map<string, Approval>();
  private seq = 0;

  constructor(private readonly ctx: SandboxContext) {
    const a = ctx.state.account;
    this.accounts.set(a.id, {
      id: a.id, username: a.username, email: this.config.knownEmails[0], temporary: false, claimed: true, createdAt: Date.now(), serverIds: new Set(),
    });
  }

  private next(prefix: string): string {
    this.seq += 1;
    return `${prefix}${this.seq}`;
  }

  configure(change: Partial<Omit<AgentConfig, 'methods'>> & { methods?: Partial<Record<Method, boolean>> }): AgentConfig {
    const { methods, ...rest } = change;
    this.config = { ...this.config, ...rest, methods: { ...this.config.methods, ...(methods ?? {}) } };
    return this.config;
  }

  get mainAccount(): AgentAccount {
    return this.accounts.get(this.ctx.state.account.id)!;
  }

  // --- registration ---------------------------------------------------------------------------

  newIdentity(method: Method, accountId: number): Identity {
    const identity: Identity = { id: this.next('agt_'), method, accountId, assertion: secret('gia_'), disconnected: false, createdAt: Date.now() };
    this.identities.set(identity.id, identity);
    return identity;
  }

  newClaim(kind: Claim['kind'], extra: Partial<Claim> = {}): Claim {
    const claim: Claim = { token: secret('clm_'), kind, interval: this.config.claimIntervalS, completed: false, spent: false, createdAt: Date.now(), ...extra };
    this.claims.set(claim.token, claim);
    return claim;
  }

  /** Hands out (or refreshes) the claim's code. */
  issueCode(claim: Claim): Record<string, unknown> {
    claim.userCode = userCode();
    claim.codeExpiresAt = Date.now() + this.config.claimCodeTtlS * 1000;
    claim.completed = false;
    claim.interval = this.config.claimIntervalS;
    const device = `${this.ctx.origin}/__sandbox/agent/device`;
    return {
      user_code: claim.userCode,
      verification_uri: device,
      verification_uri_complete: `${device}?user_code=${encodeURIComponent(claim.userCode)}`,
      expires_in: this.config.claimCodeTtlS,
      interval: claim.interval,
    };
  }

  /** A temporary account with one free server (its start needs an ad view). */
  anonymousAccount(): AgentAccount {
    const id = Math.max(...this.accounts.keys(), this.ctx.state.account.id) + 1;
    const account: AgentAccount = {
      id, username: `anon-${id}`, temporary: true, claimed: false, createdAt: Date.now(), expiresAt: Date.now() + SEVEN_DAYS_MS, serverIds: new Set(),
    };
    const server = makeServer(this.ctx.state, this.ctx.rng, { name: `${account.username}-server`, application: 'minecraft', plan: 'free', adRequired: true });
    this.ctx.state.servers.set(server.id, server);
    this.ctx.state.events.emit('server-created', server);
    account.serverIds.add(server.id);
    this.accounts.set(id, account);
    return account;
  }

  accountObject(account: AgentAccount): Record<string, unknown> {
    return {
      object: 'account', id: account.id, username: account.username, temporary: account.temporary, claimed: account.claimed,
      ...(account.expiresAt !== undefined && !account.claimed ? { expires_at: isoSeconds(account.expiresAt) } : {}),
    };
  }

  // --- tokens ---------------------------------------------------------------------------------

  issueToken(identity: Identity): Record<string, unknown> {
    const token: AccessToken = {
      token: secret('gat_'), identityId: identity.id, expiresAt: Date.now() + this.config.tokenLifetimeS * 1000, revoked: false,
    };
    this.tokens.set(token.token, token);
    return { access_token: token.token, token_type: 'Bearer', expires_in: this.config.tokenLifetimeS };
  }

  /** The credential resolver for access tokens (plugs into the sandbox's KeyStore). */
  resolve(token: string): Principal | undefined {
    const t = this.tokens.get(token);
    if (!t || t.revoked || t.expiresAt <= Date.now()) return undefined;
    const identity = this.identities.get(t.identityId);
    if (!identity || identity.disconnected) return undefined;
    return { kind: AGENT_KIND, id: identity.id, scopes: [...AGENT_SCOPES], rateLimit: this.ctx.defaultRateLimit };
  }

  identityOf(principal: Principal | undefined): Identity | undefined {
    return principal?.kind === AGENT_KIND ? this.identities.get(principal.id) : undefined;
  }

  accountOf(identity: Identity): AgentAccount {
    return this.accounts.get(identity.accountId) ?? this.mainAccount;
  }

  // --- the person's side ----------------------------------------------------------------------

  /** The person entered the code (the claim with `userCode`, else the latest open one). */
  completeClaim(code?: string): Claim | undefined {
    const open = [...this.claims.values()].filter((c) => c.userCode && !c.completed && !c.spent && (c.codeExpiresAt ?? 0) > Date.now());
    const claim = code ? open.find((c) => c.userCode === code.toUpperCase()) : open[open.length - 1];
    if (claim) claim.completed = true;
    return claim;
  }

  /** Success of the claim grant: the identity the claim creates or moves, with a fresh assertion. */
  settleClaim(claim: Claim): Identity {
    claim.spent = true;
    if (claim.kind === 'anonymous' && claim.identityId) {
      const identity = this.identities.get(claim.identityId)!;
      const temp = this.accounts.get(identity.accountId);
      if (temp) {
        // The account's server moves into the person's account.
        for (const id of temp.serverIds) this.mainAccount.serverIds.add(id);
        temp.claimed = true;
      }
      identity.accountId = this.mainAccount.id;
      identity.assertion = secret('gia_');
      return identity;
    }
    return this.newIdentity(claim.kind === 'interaction' ? 'identity_assertion' : 'service_auth', this.mainAccount.id);
  }

  decide(ref: string | undefined, status: 'approved' | 'rejected'): Approval | undefined {
    const approval = ref ? this.approvals.get(ref) : [...this.approvals.values()].filter((a) => a.status === 'pending').pop();
    if (!approval || approval.status !== 'pending') return undefined;
    approval.status = status;
    approval.decidedAt = Date.now();
    return approval;
  }

  /** The user disconnects an agent: all its credentials stop working. */
  disconnect(ref?: string): Identity | undefined {
    const identity = ref ? this.identities.get(ref) : [...this.identities.values()].filter((i) => !i.disconnected).pop();
    if (identity) identity.disconnected = true;
    return identity;
  }

  // --- approvals ------------------------------------------------------------------------------

  approvalObject(a: Approval): Record<string, unknown> {
    return {
      object: 'approval', id: a.id, status: a.status, request: a.what,
      status_url: `${this.ctx.baseUrl}/agent/approvals/${a.id}`,
      interval: this.config.approvalIntervalS,
      created_at: isoSeconds(a.createdAt),
      ...(a.decidedAt !== undefined ? { decided_at: isoSeconds(a.decidedAt) } : {}),
    };
  }

  /**
   * Lets an approved identical request through once, within the approval window; otherwise
   * answers 403 approval_pending (one already waits) or approval_required (a new one).
   */
  requireApproval(identity: Identity, fingerprint: string, what: string): void {
    const mine = [...this.approvals.values()].filter((a) => a.fingerprint === fingerprint);
    const latest = mine[mine.length - 1];
    if (latest?.status === 'approved' && !latest.consumed && Date.now() - (latest.decidedAt ?? 0) <= this.config.approvalWindowS * 1000) {
      latest.consumed = true;
      return;
    }
    const waiting = latest?.status === 'pending' ? latest : undefined;
    const approval = waiting ?? { id: this.next('apr_'), identityId: identity.id, fingerprint, what, status: 'pending' as const, createdAt: Date.now(), consumed: false };
    this.approvals.set(approval.id, approval);
    throw new ApiFailure(403, waiting ? 'approval_pending' : 'approval_required',
      waiting ? 'An approval for this exact request already waits; keep polling its status' : `The account owner must approve: ${what}`,
      { action_url: `${this.ctx.origin}/__sandbox/agent/approvals/${approval.id}`, more: { approval: this.approvalObject(approval) } });
  }
}

const services = new WeakMap<SandboxContext, AgentService>();

/** Creates the agent flow of a sandbox and lets its access tokens authenticate. */
export function installAgent(ctx: SandboxContext): AgentService {
  const service = new AgentService(ctx);
  services.set(ctx, service);
  ctx.keys.resolvers.push((token) => service.resolve(token));
  return service;
}

export function agentOf(ctx: SandboxContext): AgentService {
  const service = services.get(ctx);
  if (!service) throw new Error('the agent flow is not installed in this sandbox');
  return service;
}

export function maybeAgentOf(ctx: SandboxContext): AgentService | undefined {
  return services.get(ctx);
}
