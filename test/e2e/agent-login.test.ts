import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type E2E, setup } from './helpers.js';
import { agent, asProfile, logged, storedAgent, until } from '../agent/helpers.js';

// Issue 6 end to end: `gsh auth login --agent` with each method, --no-wait/--resume, claim,
// status and logout against the sandbox (01-general-contract.md "Agent registration flow").

let t: E2E;
beforeAll(async () => {
  t = await setup();
  agent(t).configure({ claimIntervalS: 0.2 });
});
afterAll(async () => {
  await t.close();
});

const openClaims = () => [...agent(t).claims.values()].filter((c) => c.userCode && !c.completed && !c.spent);

describe('service auth (--email)', () => {
  it('shows the code, polls the claim grant until the person enters it, and stores the identity at 0600', async () => {
    const before = openClaims().length;
    const login = t.gsh(['auth', 'login', '--agent', '--email', 'demo@example.com', '--no-browser'], { env: asProfile('svc') });
    const claim = await until(() => openClaims().length > before && openClaims().at(-1));
    // Play the person only once gsh has polled and been told to keep waiting.
    await until(() => logged(t, 'POST /oauth2/token').some((p) => p.errorCode === 'authorization_pending'));
    const done = await t.gsh(['sandbox', 'claim-complete', claim.userCode!, '--sandbox', t.sandbox.origin]);
    expect(done.exitCode).toBe(0);
    const r = await login;
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(String(r.stderr)).toContain(claim.userCode!);
    // The one-click URL comes first, then the URI and code.
    const err = String(r.stderr);
    expect(err.indexOf('user_code=')).toBeLessThan(err.indexOf('enter the code'));

    const stored = storedAgent(t, 'svc')!;
    expect(stored).toMatchObject({ method: 'service_auth', claimed: true });
    expect(stored.access_token).toMatch(/^gat_/);
    expect(stored.identity_assertion).toMatch(/^gia_/);
    expect(Date.parse(stored.expires_at!)).toBeGreaterThan(Date.now());
    expect(statSync(join(t.configDir, 'config.json')).mode & 0o777).toBe(0o600);
    expect(String(r.stdout) + err).not.toContain(stored.access_token!);

    // Wire format: form-encoded claim grant exactly as the contract writes it.
    const polls = logged(t, 'POST /oauth2/token');
    expect(polls.at(-1)!.body).toEqual({ grant_type: 'urn:vendor:agent-auth:grant-type:claim', claim_token: expect.stringMatching(/^clm_/) });
    expect(polls.some((p) => p.errorCode === 'authorization_pending')).toBe(true);
    expect(logged(t, 'POST /agent/identity').at(-1)!.body).toEqual({ type: 'service_auth', login_hint: 'demo@example.com' });

    const status = await t.gsh(['auth', 'status', '--json'], { env: asProfile('svc') });
    expect(status.exitCode).toBe(0);
    expect(JSON.parse(String(status.stdout))).toMatchObject({ method: 'agent (service_auth)', claimed: true, token_expires_at: stored.expires_at });
  });

  it('--no-wait prints one JSON object with the code and the resume command; --resume finishes', async () => {
    const r = await t.gsh(['auth', 'login', '--agent', '--email', 'demo@example.com', '--no-wait'], { env: asProfile('nowait') });
    expect(r.exitCode).toBe(0);
    const out = JSON.parse(String(r.stdout));
    expect(out).toMatchObject({ status: 'pending', user_code: expect.any(String), verification_uri: expect.stringContaining('/device') });
    expect(out.resume).toBe('gsh auth login --agent --resume --profile nowait');
    expect(String(r.stdout)).not.toContain('clm_');

    await t.gsh(['sandbox', 'claim-complete', out.user_code, '--sandbox', t.sandbox.origin]);
    const resumed = await t.gsh(out.resume.split(' ').slice(1), { env: asProfile(undefined as unknown as string) });
    expect(resumed.exitCode, String(resumed.stderr)).toBe(0);
    expect(storedAgent(t, 'nowait')).toMatchObject({ method: 'service_auth', access_token: expect.stringMatching(/^gat_/) });
    expect(storedAgent(t, 'nowait')!.pending).toBeUndefined();
  });

  it('--resume without a pending login is a usage error', async () => {
    const r = await t.gsh(['auth', 'login', '--agent', '--resume'], { env: asProfile('nothing-pending') });
    expect(r.exitCode).toBe(2);
    expect(String(r.stderr)).toContain('no pending agent login');
  });

  it('stops on expired_token with the next step, exit 7 (claim code: 10 minutes, here 1 s)', async () => {
    agent(t).configure({ claimCodeTtlS: 1 });
    try {
      const r = await t.gsh(['auth', 'login', '--agent', '--email', 'demo@example.com'], { env: asProfile('expiring') });
      expect(r.exitCode).toBe(7);
      expect(String(r.stderr)).toContain('expired');
      expect(String(r.stderr)).toContain('gsh auth login --agent --email demo@example.com');
      expect(logged(t, 'POST /oauth2/token').some((e) => e.errorCode === 'expired_token')).toBe(true);
    } finally {
      agent(t).configure({ claimCodeTtlS: 600 });
    }
  });
});

describe('anonymous', () => {
  it('says plainly the account is temporary; claim moves it to the person, and status shows it', async () => {
    const r = await t.gsh(['auth', 'login', '--agent', '--anonymous'], { env: asProfile('anon') });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(String(r.stderr)).toMatch(/deleted, with its server, after 7 days unless it is claimed/);
    expect(storedAgent(t, 'anon')).toMatchObject({ method: 'anonymous', claimed: false, claim_token: expect.stringMatching(/^clm_/) });
    const exchange = logged(t, 'POST /oauth2/token').at(-1)!;
    expect(exchange.body).toEqual({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: expect.stringMatching(/^gia_/) });

    const before = await t.gsh(['auth', 'status', '--json'], { env: asProfile('anon') });
    expect(JSON.parse(String(before.stdout))).toMatchObject({ method: 'agent (anonymous)', claimed: false, account: { temporary: true } });

    const oldAssertion = storedAgent(t, 'anon')!.identity_assertion;
    const claiming = t.gsh(['auth', 'claim', '--email', 'demo@example.com'], { env: asProfile('anon') });
    const claim = await until(() => openClaims().find((c) => c.kind === 'anonymous'));
    expect(logged(t, 'POST /agent/identity/claim').at(-1)!.body).toEqual({ claim_token: expect.stringMatching(/^clm_/), email: 'demo@example.com' });
    agent(t).completeClaim(claim.userCode);
    const claimed = await claiming;
    expect(claimed.exitCode, String(claimed.stderr)).toBe(0);
    const stored = storedAgent(t, 'anon')!;
    expect(stored).toMatchObject({ claimed: true });
    expect(stored.claim_token).toBeUndefined();
    // "success returns access_token and a new identity_assertion (discard older ones)"
    expect(stored.identity_assertion).not.toBe(oldAssertion);
    const after = await t.gsh(['auth', 'status', '--json'], { env: asProfile('anon') });
    expect(JSON.parse(String(after.stdout))).toMatchObject({ claimed: true, account: { id: t.sandbox.state.account.id } });
  });

  it('is refused before any registration call when discovery does not list it', async () => {
    agent(t).configure({ methods: { anonymous: false } });
    try {
      const calls = logged(t, 'POST /agent/identity').length;
      const r = await t.gsh(['auth', 'login', '--agent', '--anonymous'], { env: asProfile('anon-off') });
      expect(r.exitCode).toBe(2);
      expect(String(r.stderr)).toContain('does not offer the anonymous registration method');
      expect(String(r.stderr)).toContain('--email (service_auth)');
      expect(logged(t, 'POST /agent/identity').length).toBe(calls);
      expect(logged(t, 'GET /.well-known/oauth-authorization-server').length).toBeGreaterThan(0);
    } finally {
      agent(t).configure({ methods: { anonymous: true } });
    }
  });
});

describe('identity assertion (--assertion FILE|-)', () => {
  async function idJag(email: string, extra: Record<string, unknown> = {}): Promise<string> {
    const res = await fetch(`${t.sandbox.origin}/__sandbox/agent/id-jag`, { method: 'POST', body: JSON.stringify({ email, ...extra }) });
    return ((await res.json()) as { data: { assertion: string } }).data.assertion;
  }

  it('registers from a file, and from stdin with -', async () => {
    const file = join(t.configDir, 'jag.txt');
    writeFileSync(file, `${await idJag('new.person@example.com')}\n`);
    const r = await t.gsh(['auth', 'login', '--agent', '--assertion', file], { env: asProfile('jag') });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(storedAgent(t, 'jag')).toMatchObject({ method: 'identity_assertion', access_token: expect.stringMatching(/^gat_/) });
    expect(logged(t, 'POST /agent/identity').at(-1)!.body).toMatchObject({
      type: 'identity_assertion', assertion_type: 'urn:ietf:params:oauth:token-type:id-jag',
    });

    const piped = await t.gsh(['auth', 'login', '--agent', '--assertion', '-'], { env: asProfile('jag-stdin'), input: await idJag('other@example.com') });
    expect(piped.exitCode, String(piped.stderr)).toBe(0);
    expect(storedAgent(t, 'jag-stdin')?.access_token).toMatch(/^gat_/);
  });

  it('login_required says to sign in at the provider again (exit 7)', async () => {
    const r = await t.gsh(['auth', 'login', '--agent', '--assertion', '-'], {
      env: asProfile('jag-old'), input: await idJag('new.person@example.com', { login_age_s: 7200 }),
    });
    expect(r.exitCode).toBe(7);
    expect(String(r.stderr)).toContain('Sign in at the provider again');
    expect(storedAgent(t, 'jag-old')).toBeUndefined();
  });

  it('interaction_required shows the claim for the account owner; --no-wait then --resume finishes', async () => {
    const r = await t.gsh(['auth', 'login', '--agent', '--assertion', '-', '--no-wait'], { env: asProfile('jag-link'), input: await idJag('demo@example.com') });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(String(r.stderr)).toContain('its owner must confirm the link');
    const out = JSON.parse(String(r.stdout));
    expect(out).toMatchObject({ status: 'pending', method: 'identity_assertion', user_code: expect.any(String) });
    agent(t).completeClaim(out.user_code);
    const resumed = await t.gsh(['auth', 'login', '--agent', '--resume'], { env: asProfile('jag-link') });
    expect(resumed.exitCode, String(resumed.stderr)).toBe(0);
    expect(storedAgent(t, 'jag-link')).toMatchObject({ method: 'identity_assertion', claimed: true });
  });

  it('an unreadable file is a usage error, and the assertion is never taken from argv', async () => {
    const r = await t.gsh(['auth', 'login', '--agent', '--assertion', join(t.configDir, 'missing.jwt')], { env: asProfile('jag-missing') });
    expect(r.exitCode).toBe(2);
    expect(String(r.stderr)).toContain('cannot read');
    expect(String(r.stderr)).not.toContain('at ');
  });
});

describe('logout', () => {
  it('revokes the access token with /oauth2/revoke (form field token) and removes the secrets', async () => {
    expect((await t.gsh(['auth', 'login', '--agent', '--anonymous'], { env: asProfile('bye') })).exitCode).toBe(0);
    const token = storedAgent(t, 'bye')!.access_token!;
    const r = await t.gsh(['auth', 'logout'], { env: asProfile('bye') });
    expect(r.exitCode).toBe(0);
    expect(String(r.stderr)).toContain("Revoked the agent's access token");
    expect(logged(t, 'POST /oauth2/revoke').at(-1)!.body).toEqual({ token });
    expect(agent(t).tokens.get(token)!.revoked).toBe(true);
    expect(storedAgent(t, 'bye')).toBeUndefined();
    const after = await t.gsh(['me'], { env: asProfile('bye') });
    expect(after.exitCode).toBe(3);
  });
});
