import { randomBytes } from 'node:crypto';
import type { ScopeRule } from '../operations/types.js';
import { isoSeconds } from './clock.js';

// Credentials and scopes (01-general-contract.md "Authentication": "API keys" and "Scopes").
// `authenticate` is the single credential check; later kinds of credential (agent access tokens,
// issue 6) plug in as further resolvers instead of touching the pipeline.

/** The fixed "live" prefix of API key secrets. */
export const KEY_PREFIX = 'gsh_live_';

export const READ_SCOPES = [
  'servers:read', 'applications:read', 'templates:read', 'servers:webhooks:read', 'servers:activity:read',
  'servers:network:read', 'servers:databases:read', 'servers:files:read', 'servers:backups:read',
  'servers:properties:read', 'servers:settings:read', 'servers:startup:read', 'servers:proxies:read',
  'servers:schedules:read', 'servers:domains:read', 'servers:sftp:read', 'servers:subdomains:read',
  'servers:worlds:read', 'servers:players:read', 'servers:addons:read', 'servers:subusers:read',
  'servers:git:read', 'servers:firewall:read', 'servers:monitor:read', 'servers:logs:read',
  'servers:modules:read', 'servers:instances:read', 'servers:advertisement:read',
  'servers:support-access:read', 'account:tickets:read', 'utility:mcquery', 'account:ssh-keys:read',
  'account:integrations:read', 'account:billing:read',
] as const;

/** Never covered by `servers:*`; only `*` or the scope itself grants them. */
export const EXPLICIT_GRANT_SCOPES: ReadonlySet<string> = new Set([
  'servers:reinstall', 'servers:delete', 'servers:backups:restore', 'servers:create', 'servers:subusers:write',
  'servers:git:deploy', 'servers:importer:write', 'servers:instances:delete', 'servers:support-access:write',
  'account:ssh-keys:write', 'account:billing:write',
]);

export function hasScope(granted: readonly string[], required: string): boolean {
  if (granted.includes('*') || granted.includes(required)) return true;
  return required.startsWith('servers:') && !EXPLICIT_GRANT_SCOPES.has(required) && granted.includes('servers:*');
}

/** The first scope of a registry rule that `granted` lacks (every named scope is needed). */
export function missingScope(granted: readonly string[], rule: ScopeRule | undefined): string | undefined {
  const required = rule === undefined ? [] : typeof rule === 'string' ? [rule] : rule.allOf;
  return required.find((s) => !hasScope(granted, s));
}

export interface ApiKeyRecord {
  id: string;
  secret: string;
  name: string;
  scopes: string[];
  rateLimit: number;
  createdAt: number;
  expiresAt?: number;
  lastUsedAt?: number;
  revoked: boolean;
  /** Panel user the key acts as; undefined: the account owner (permissions.ts). */
  userId?: number;
}

/** Who is calling. `kind` lets later credential types (agent tokens) coexist with API keys. */
export interface Principal {
  kind: 'api_key' | (string & {});
  /** Stable id used for the request log, rate limiting and idempotency scoping. */
  id: string;
  scopes: string[];
  rateLimit: number;
  key?: ApiKeyRecord;
  /** Panel user acting; undefined: the account owner, who passes every server permission. */
  userId?: number;
}

/** Given a bearer token, returns a principal, or undefined when the token is not of its kind/unknown. */
export type CredentialResolver = (token: string) => Principal | undefined;

export class KeyStore {
  private readonly bySecret = new Map<string, ApiKeyRecord>();
  private seq = 0;
  readonly resolvers: CredentialResolver[] = [];

  constructor() {
    this.resolvers.push((token) => {
      const key = this.bySecret.get(token);
      if (!key || key.revoked) return undefined;
      if (key.expiresAt !== undefined && key.expiresAt <= Date.now()) return undefined;
      return { kind: 'api_key', id: key.id, scopes: key.scopes, rateLimit: key.rateLimit, key, ...(key.userId !== undefined ? { userId: key.userId } : {}) };
    });
  }

  create(scopes: string[], opts: { name?: string; rateLimit: number; expiresAt?: number; userId?: number }): ApiKeyRecord {
    this.seq += 1;
    const record: ApiKeyRecord = {
      id: `key_${this.seq}`,
      secret: KEY_PREFIX + randomBytes(20).toString('hex'),
      name: opts.name ?? `sandbox key ${this.seq}`,
      scopes: [...scopes],
      rateLimit: opts.rateLimit,
      createdAt: Date.now(),
      revoked: false,
      ...(opts.expiresAt !== undefined ? { expiresAt: opts.expiresAt } : {}),
      ...(opts.userId !== undefined ? { userId: opts.userId } : {}),
    };
    this.bySecret.set(record.secret, record);
    return record;
  }

  revoke(secret: string): boolean {
    const key = this.bySecret.get(secret);
    if (!key) return false;
    key.revoked = true;
    return true;
  }

  all(): ApiKeyRecord[] {
    return [...this.bySecret.values()];
  }

  /**
   * The one credential check: parses `Authorization: Bearer <token>` and asks each resolver.
   * Undefined means 401 (missing, malformed, unknown, revoked or expired).
   */
  authenticate(header: string | undefined): Principal | undefined {
    if (!header) return undefined;
    const m = /^Bearer[ ]+([\x21-\x7e]+)[ ]*$/i.exec(header);
    if (!m) return undefined;
    const token = m[1]!;
    for (const resolve of this.resolvers) {
      const p = resolve(token);
      if (p) return p;
    }
    return undefined;
  }
}

/** Non-secret key metadata as `GET /me` shows it (Resource table: api_key). */
export function keyMetadata(key: ApiKeyRecord): Record<string, unknown> {
  return {
    object: 'api_key',
    name: key.name,
    prefix: key.secret.slice(0, KEY_PREFIX.length + 4),
    scopes: key.scopes,
    rate_limit: key.rateLimit,
    created_at: isoSeconds(key.createdAt),
    ...(key.expiresAt !== undefined ? { expires_at: isoSeconds(key.expiresAt) } : {}),
    ...(key.lastUsedAt !== undefined ? { last_used_at: isoSeconds(key.lastUsedAt) } : {}),
  };
}
