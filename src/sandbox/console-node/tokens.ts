import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

// Console session tokens (01-general-contract.md "Console socket"; Resource table "Console
// session": the permissions are embedded in the token). A compact HS256 JWT signed with a key
// that lives as long as the sandbox, so a token is checked without a lookup table.

export const OWNER_PERMISSIONS = [
  'control.console', 'control.command', 'control.start', 'control.stop', 'control.restart',
  'admin.websocket.install', 'admin.websocket.transfer', 'admin.websocket.errors',
] as const;

export interface TokenClaims {
  /** Server id the token opens. */
  sid: string;
  permissions: string[];
  /** Issue and expiry, unix milliseconds. */
  iat: number;
  exp: number;
  jti: string;
}

export type Verified = { ok: true; claims: TokenClaims } | { ok: false; reason: string };

const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64url');
const HEADER = b64(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));

export class TokenSigner {
  private readonly key = randomBytes(32);

  issue(sid: string, permissions: readonly string[], ttlMs: number): { token: string; claims: TokenClaims } {
    const now = Date.now();
    const claims: TokenClaims = { sid, permissions: [...permissions], iat: now, exp: now + ttlMs, jti: randomBytes(8).toString('hex') };
    const body = `${HEADER}.${b64(JSON.stringify(claims))}`;
    return { token: `${body}.${this.sign(body)}`, claims };
  }

  /** Checks signature, server and expiry; the reason is what `jwt error` carries. */
  verify(token: unknown, sid: string): Verified {
    if (typeof token !== 'string') return { ok: false, reason: 'token missing' };
    const parts = token.split('.');
    if (parts.length !== 3) return { ok: false, reason: 'malformed token' };
    const expected = Buffer.from(this.sign(`${parts[0]}.${parts[1]}`));
    const given = Buffer.from(parts[2] ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'invalid token signature' };
    let claims: TokenClaims;
    try {
      claims = JSON.parse(Buffer.from(parts[1] ?? '', 'base64url').toString('utf8')) as TokenClaims;
    } catch {
      return { ok: false, reason: 'malformed token' };
    }
    if (claims.sid !== sid) return { ok: false, reason: 'token is for another server' };
    if (claims.exp <= Date.now()) return { ok: false, reason: 'token expired' };
    return { ok: true, claims };
  }

  private sign(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }
}
