import { randomBytes } from 'node:crypto';

// The sandbox's model of the agent flow (01-general-contract.md "Agent registration flow",
// "States and transitions", "Limits"). Lifetimes are real seconds, not scaled by timeScale, so a
// test can ask for a 2-second token and see it expire on the wall clock.

export type Method = 'service_auth' | 'anonymous' | 'identity_assertion';
export const METHODS: readonly Method[] = ['service_auth', 'anonymous', 'identity_assertion'];

export interface AgentConfig {
  /** Registration methods on offer (discovery lists exactly these). */
  methods: Record<Method, boolean>;
  /** Access token lifetime (contract: 3600). */
  tokenLifetimeS: number;
  /** Claim code lifetime (contract: 10 minutes). */
  claimCodeTtlS: number;
  /** `interval` handed out with claim codes. */
  claimIntervalS: number;
  /** `interval` handed out with approvals. */
  approvalIntervalS: number;
  /** How long an approval stays usable (contract: 10 minutes). */
  approvalWindowS: number;
  /** Issuers whose ID-JAGs are trusted. */
  trustedIssuers: string[];
  /** E-mails that already have an account: an assertion for one answers interaction_required. */
  knownEmails: string[];
}

export const DEFAULT_CONFIG: AgentConfig = {
  methods: { service_auth: true, anonymous: true, identity_assertion: true },
  tokenLifetimeS: 3600,
  claimCodeTtlS: 600,
  claimIntervalS: 5,
  approvalIntervalS: 2,
  approvalWindowS: 600,
  trustedIssuers: ['https://idp.sandbox.test'],
  knownEmails: ['demo@example.com'],
};

/** An account an agent acts for: the demo account (id of state.account) or a temporary one. */
export interface AgentAccount {
  id: number;
  username: string;
  email?: string;
  temporary: boolean;
  claimed: boolean;
  createdAt: number;
  /** Unclaimed temporary accounts are deleted 7 days after creation. */
  expiresAt?: number;
  serverIds: Set<string>;
}

export interface Identity {
  id: string;
  method: Method;
  accountId: number;
  /** The current identity assertion; a new one replaces it (older ones stop working). */
  assertion: string;
  disconnected: boolean;
  createdAt: number;
}

/** A claim in flight: a service-auth login, an assertion link to confirm, or an anonymous account's claim. */
export interface Claim {
  token: string;
  kind: 'service_auth' | 'interaction' | 'anonymous';
  email?: string;
  /** Set once a code was handed out (anonymous claims get one from /agent/identity/claim). */
  userCode?: string;
  codeExpiresAt?: number;
  interval: number;
  lastPollAt?: number;
  /** The person entered the code. */
  completed: boolean;
  /** One successful poll spends the token. */
  spent: boolean;
  /** The anonymous identity a claim moves into the person's account. */
  identityId?: string;
  createdAt: number;
}

export interface AccessToken {
  token: string;
  identityId: string;
  expiresAt: number;
  revoked: boolean;
}

export interface Approval {
  id: string;
  identityId: string;
  /** Identity, method, path and canonical body: the "identical request". */
  fingerprint: string;
  what: string;
  status: 'pending' | 'approved' | 'rejected';
  createdAt: number;
  decidedAt?: number;
  consumed: boolean;
}

export const secret = (prefix: string): string => `${prefix}${randomBytes(18).toString('base64url')}`;

/** Eight letters without look-alikes, shown as XXXX-XXXX. */
export function userCode(): string {
  const alphabet = 'BCDFGHJKLMNPQRSTVWXZ';
  const bytes = randomBytes(8);
  const chars = [...bytes].map((b) => alphabet[b % alphabet.length]);
  return `${chars.slice(0, 4).join('')}-${chars.slice(4).join('')}`;
}
