import { describe, expect, it } from 'vitest';
import { EXPLICIT_GRANT_SCOPES, READ_SCOPES, hasScope } from '../../src/sandbox/index.js';
import { call, withSandbox } from './helpers.js';

// 01-general-contract.md "Authentication" ("API keys", "Scopes") and "Errors" (401/403); the
// WWW-Authenticate header is from "Agent registration flow".

describe('credentials', () => {
  it('401 unauthorized for missing, malformed, unknown and revoked keys, with WWW-Authenticate', () =>
    withSandbox({}, async (sb) => {
      const revoked = sb.createKey(['*']);
      expect((await call(sb, 'GET', '/me', { key: revoked })).status).toBe(200);
      sb.revokeKey(revoked);
      const cases: Array<Record<string, string>> = [
        {},
        { authorization: sb.keys.all },
        { authorization: `Basic ${sb.keys.all}` },
        { authorization: 'Bearer' },
        { authorization: 'Bearer gsh_live_unknown' },
        { authorization: `Bearer ${revoked}` },
      ];
      for (const headers of cases) {
        const r = await call(sb, 'GET', '/servers', { key: null, headers });
        expect(r.status, JSON.stringify(headers)).toBe(401);
        expect(r.body.error.code).toBe('unauthorized');
        expect(r.body.request_id).toBe(r.headers.get('x-request-id'));
        expect(r.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${sb.baseUrl}/.well-known/oauth-protected-resource"`);
        expect(r.headers.get('x-ratelimit-limit')).toBeNull();
      }
      const meta = await call(sb, 'GET', '/.well-known/oauth-protected-resource', { key: null });
      expect(meta.status).toBe(200);
      expect(meta.body.resource).toBe(sb.baseUrl);
    }));

  it('an expired key is 401', () =>
    withSandbox({}, async (sb) => {
      const key = sb.createKey(['*'], { expiresAt: Date.now() - 1000 });
      expect((await call(sb, 'GET', '/me', { key })).status).toBe(401);
    }));
});

describe('scopes', () => {
  it('the read-only key holds exactly the contract read scopes', () =>
    withSandbox({}, async (sb) => {
      const me = await call(sb, 'GET', '/me', { key: sb.keys.readOnly });
      expect([...me.body.data.key.scopes].sort()).toEqual([...READ_SCOPES].sort());
      expect(READ_SCOPES).toHaveLength(34);
    }));

  it('403 forbidden when the scope is missing; read scopes still read', () =>
    withSandbox({}, async (sb) => {
      const id = [...sb.state.servers.keys()][0]!;
      expect((await call(sb, 'GET', '/servers', { key: sb.keys.readOnly })).status).toBe(200);
      const r = await call(sb, 'POST', `/servers/${id}/power`, { key: sb.keys.readOnly, body: { signal: 'kill' } });
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe('forbidden');
      expect(sb.state.powerActions).toHaveLength(0);
      // Authenticated: rate-limit headers are present on the 403.
      expect(r.headers.get('x-ratelimit-limit')).toBe('1000');
    }));

  it('servers:* covers servers: scopes except the explicit-grant ones; * covers everything', () =>
    withSandbox({}, async (sb) => {
      const id = [...sb.state.servers.keys()][0]!;
      const wide = sb.createKey(['servers:*']);
      expect((await call(sb, 'POST', `/servers/${id}/power`, { key: wide, body: { signal: 'kill' } })).status).toBe(202);
      expect((await call(sb, 'DELETE', `/servers/${id}`, { key: wide })).status).toBe(403);
      expect((await call(sb, 'POST', '/servers', { key: wide, body: { name: 'x' } })).status).toBe(403);
      expect((await call(sb, 'POST', `/servers/${id}/reinstall`, { key: wide })).status).toBe(403);
      expect((await call(sb, 'GET', '/applications', { key: wide })).status).toBe(403);
      const exact = sb.createKey(['servers:delete']);
      expect((await call(sb, 'DELETE', `/servers/${id}`, { key: exact })).status).toBe(200);
    }));

  it('operations without a declared scope accept any valid key', () =>
    withSandbox({}, async (sb) => {
      const none = sb.createKey([]);
      expect((await call(sb, 'GET', '/me', { key: none })).status).toBe(200);
      expect((await call(sb, 'GET', '/servers', { key: none })).status).toBe(403);
    }));

  it('hasScope follows the wildcard rules', () => {
    expect(hasScope(['*'], 'servers:delete')).toBe(true);
    expect(hasScope(['servers:*'], 'servers:files:write')).toBe(true);
    for (const s of EXPLICIT_GRANT_SCOPES) expect(hasScope(['servers:*'], s)).toBe(false);
    expect(hasScope(['servers:*'], 'account:tickets:read')).toBe(false);
    expect(hasScope(['servers:read'], 'servers:files:read')).toBe(false);
  });
});

describe('rate limit', () => {
  // 01-general-contract.md "Limits": per key per minute, X-RateLimit-* headers, 429 + Retry-After.
  it('sends X-RateLimit-* on authenticated responses and 429 rate_limit_exceeded past the limit', () =>
    withSandbox({}, async (sb) => {
      const key = sb.createKey(['*'], { rateLimit: 3 });
      const seen: string[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await call(sb, 'GET', '/me', { key });
        expect(r.status).toBe(200);
        expect(r.headers.get('x-ratelimit-limit')).toBe('3');
        seen.push(r.headers.get('x-ratelimit-remaining')!);
        const reset = Number(r.headers.get('x-ratelimit-reset'));
        expect(reset).toBeGreaterThan(Date.now() / 1000);
        expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 60);
      }
      expect(seen).toEqual(['2', '1', '0']);
      const over = await call(sb, 'GET', '/me', { key });
      expect(over.status).toBe(429);
      expect(over.body.error.code).toBe('rate_limit_exceeded');
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(over.headers.get('x-ratelimit-remaining')).toBe('0');
      // Other keys are unaffected; unauthenticated helpers carry no rate-limit headers.
      expect((await call(sb, 'GET', '/me')).status).toBe(200);
      expect((await call(sb, 'GET', '/health', { key: null })).headers.get('x-ratelimit-limit')).toBeNull();
    }));

  it('the sandbox-wide default applies to the demo keys', () =>
    withSandbox({ rateLimit: 2 }, async (sb) => {
      await call(sb, 'GET', '/me');
      await call(sb, 'GET', '/me');
      expect((await call(sb, 'GET', '/me')).status).toBe(429);
      expect((await call(sb, 'GET', '/me', { key: sb.keys.readOnly })).status).toBe(200);
    }));
});
