import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentAuth, pollClaim } from '../../src/core/auth/agent-flow.js';
import { needsRenewal, renewMarginMs } from '../../src/core/auth/agent-credential.js';
import { CLAIM_GRANT, discover, requireMethod, resourceMetadataUrl } from '../../src/core/auth/discovery.js';
import { ApiError, UsageError } from '../../src/core/errors.js';
import { ApiClient, toApiError } from '../../src/core/wire/http.js';
import { personMustAct } from '../../src/core/run/person-must-act.js';
import { Runtime } from '../../src/core/run/runtime.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { agentOf } from '../../src/sandbox/agent/service.js';
import { testContext } from '../helpers/context.js';

// Units of the agent flow's client side (01-general-contract.md "Agent registration flow",
// "Errors": agent-flow error codes), against an in-process sandbox where a server is needed.

let sb: Sandbox;
let client: ApiClient;
beforeAll(async () => {
  sb = await startSandbox({ timeScale: 0.05 });
  client = new ApiClient({ baseUrl: sb.baseUrl, retries: 0 });
});
afterAll(async () => {
  await client.close();
  await sb.close();
});

describe('discovery', () => {
  it('reads identity_types_supported and the claim grant, and refuses an unlisted method before calling it', async () => {
    agentOf(sb.extensions.context).configure({ methods: { identity_assertion: false } });
    try {
      const server = await discover(client);
      expect(server).toMatchObject({ authUrl: sb.baseUrl, identityTypes: ['service_auth', 'anonymous'], claimGrantType: CLAIM_GRANT });
      expect(() => requireMethod(server, 'identity_assertion')).toThrow(UsageError);
      expect(() => requireMethod(server, 'anonymous')).not.toThrow();
    } finally {
      agentOf(sb.extensions.context).configure({ methods: { identity_assertion: true } });
    }
  });

  it('finds the protected-resource document named by WWW-Authenticate, quoted or not', () => {
    expect(resourceMetadataUrl('Bearer resource_metadata="https://a.example/.well-known/oauth-protected-resource"'))
      .toBe('https://a.example/.well-known/oauth-protected-resource');
    expect(resourceMetadataUrl('Bearer realm="x", resource_metadata=https://b.example/prm')).toBe('https://b.example/prm');
    expect(resourceMetadataUrl('Bearer realm="x"')).toBeUndefined();
  });

  it("a sandbox 401 names the protected-resource document, and it is reachable", async () => {
    const err = await client.request({ method: 'GET', path: '/me', auth: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    const url = resourceMetadataUrl((err as ApiError).wwwAuthenticate);
    expect(url).toBe(`${sb.baseUrl}/.well-known/oauth-protected-resource`);
    expect((await client.request({ method: 'GET', path: url!, auth: false })).status).toBe(200);
  });
});

describe('errors in OAuth form', () => {
  it('keeps the code and members of {error: "slow_down", error_description}', () => {
    const err = toApiError({
      status: 400, headers: {}, body: { error: 'interaction_required', error_description: 'confirm', claim: { user_code: 'AB' } },
      requestId: 'req_1', replayed: false, idempotencyKey: undefined,
    });
    expect(err.code).toBe('interaction_required');
    expect(err.message).toBe('confirm');
    expect(err.body.claim).toEqual({ user_code: 'AB' });
  });
});

describe('claim polling', () => {
  it('waits interval on authorization_pending, adds 5 s on slow_down, returns the grant once the person acts', async () => {
    const agent = agentOf(sb.extensions.context);
    agent.configure({ claimIntervalS: 0.1 });
    const auth = new AgentAuth(client, sb.baseUrl, CLAIM_GRANT);
    const reg = await auth.register({ type: 'service_auth', login_hint: 'demo@example.com' });
    agent.slowDownNext = 1;
    const sleeps: number[] = [];
    const grant = await pollClaim(auth, reg.claim_token!, {
      interval: reg.claim!.interval, deadline: Date.now() + 60_000, restart: 'again',
      sleep: async (ms) => {
        sleeps.push(ms);
        // The sleep is simulated: tell the sandbox the interval did pass (no slow_down for speed).
        delete agent.claims.get(reg.claim_token!)!.lastPollAt;
        if (sleeps.length === 3) agent.completeClaim(reg.claim!.user_code);
      },
    });
    expect(sleeps).toEqual([100, 5100, 5100]);
    expect(grant.access_token).toMatch(/^gat_/);
    expect(grant.identity_assertion).toMatch(/^gia_/);
  });

  it('stops on expired_token with exit 7 and the next step', async () => {
    const agent = agentOf(sb.extensions.context);
    const auth = new AgentAuth(client, sb.baseUrl, CLAIM_GRANT);
    const reg = await auth.register({ type: 'service_auth', login_hint: 'demo@example.com' });
    agent.claims.get(reg.claim_token!)!.codeExpiresAt = Date.now() - 1;
    const err = await pollClaim(auth, reg.claim_token!, { interval: 0.1, deadline: Date.now() + 60_000, restart: 'Start again', sleep: async () => {} })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ exitCode: 7, hint: 'Start again' });
  });
});

describe('renewal timing', () => {
  it('renews a fifth of the lifetime early, at most a minute', () => {
    expect(renewMarginMs({ method: 'anonymous', expires_in: 3600 })).toBe(60_000);
    expect(renewMarginMs({ method: 'anonymous', expires_in: 2 })).toBe(400);
    const now = Date.parse('2030-01-01T00:00:00Z');
    const agent = { method: 'anonymous' as const, access_token: 'gat_x', expires_in: 10 };
    expect(needsRenewal({ ...agent, expires_at: new Date(now + 3000).toISOString() }, now)).toBe(false);
    expect(needsRenewal({ ...agent, expires_at: new Date(now + 1000).toISOString() }, now)).toBe(true);
    expect(needsRenewal({ method: 'anonymous' }, now)).toBe(true);
  });
});

describe('a person must act, without a terminal', () => {
  const apiError = (status: number, code: string, extra: Record<string, unknown> = {}) =>
    new ApiError(status, { code, message: code, ...extra }, 'req_1');

  it.each([
    ['insufficient_funds', 402, 'add funds at the checkout or top-up URL'],
    ['free_plan_restricted', 402, 'upgrade the plan'],
    ['integration_not_connected', 412, 'Link the integration'],
    ['ad_required', 403, 'watch the ad'],
    ['approval_required', 403, 'repeat the identical request within 10 minutes'],
  ])('%s exits 7 with what to do', async (code, status, hint) => {
    const rt = new Runtime({}, testContext());
    const err = await personMustAct(rt)(apiError(status, code, { action_url: 'https://x.example/act', approval: { status_url: '/agent/approvals/a' } }), {
      method: 'POST', path: '/servers', idempotencyKey: 'k-1',
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({ exitCode: 7, code });
    expect((err as { hint: string }).hint).toContain(hint);
  });

  it('other codes are left to the caller', async () => {
    const rt = new Runtime({}, testContext());
    await expect(personMustAct(rt)(apiError(401, 'login_required'), { method: 'GET', path: '/me' })).resolves.toBe(false);
  });
});

describe('a person must act, on a terminal', () => {
  it('the approval status is polled with a growing interval (the service\'s, then 1.5 times more, up to 5 s while a person is expected), and the mutation is never re-sent meanwhile', async () => {
    const { createServer } = await import('node:http');
    let polls = 0;
    const server = createServer((req, res) => {
      polls++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: { object: 'approval', status: polls < 12 ? 'pending' : 'approved' } }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}/api/v2`;
    try {
      const rt = new Runtime({ baseUrl: base, timeout: '1h' }, testContext({ env: { GSH_API_KEY: 'gsh_live_test', GSH_CONFIG_DIR: '/nonexistent-gsh-test' }, tty: { stdin: true, stderr: true } }));
      const slept: number[] = [];
      const again = await personMustAct(rt, async (ms) => void slept.push(ms))(
        new ApiError(403, { code: 'approval_required', message: 'approve', approval: { status_url: '/agent/approvals/a', interval: 2 } }, 'req_1'),
        { method: 'DELETE', path: '/servers/x', idempotencyKey: 'k-1' },
      );
      expect(again).toBe(true);
      expect(polls).toBe(12);
      expect(slept.slice(0, 4)).toEqual([2000, 3000, 4500, 5000]);
      expect(Math.max(...slept)).toBe(5000);
      await rt.close();
    } finally {
      server.close();
    }
  });
});

describe('an approval waited for without a terminal (--wait)', () => {
  it('polls no faster than half the key\'s per-minute limit allows (X-RateLimit-Limit), and repeats once approved', async () => {
    const { createServer } = await import('node:http');
    let polls = 0;
    const server = createServer((req, res) => {
      polls++;
      res.writeHead(200, { 'content-type': 'application/json', 'x-ratelimit-limit': '25', 'x-ratelimit-remaining': '24', 'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 60) });
      res.end(JSON.stringify({ data: { object: 'approval', status: polls < 4 ? 'pending' : 'approved' } }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}/api/v2`;
    try {
      // No terminal: only the request's --wait (waitsForApproval) makes gsh wait.
      const rt = new Runtime({ baseUrl: base, timeout: '1h' }, testContext({ env: { GSH_API_KEY: 'gsh_live_test', GSH_CONFIG_DIR: '/nonexistent-gsh-test' } }));
      const slept: number[] = [];
      const again = await personMustAct(rt, async (ms) => void slept.push(ms))(
        new ApiError(403, { code: 'approval_required', message: 'approve', approval: { status_url: '/agent/approvals/a', interval: 2 } }, 'req_1'),
        { method: 'DELETE', path: '/servers/x', idempotencyKey: 'k-1', waitsForApproval: true },
      );
      expect(again).toBe(true);
      expect(polls).toBe(4);
      // 25 requests a minute, half of them for polls: one every 4.8 s, though the service asks for
      // 2 s (a smaller key's floor is cut at the 5 s cap: a person is waiting; person-must-act.ts).
      expect(slept).toEqual([4800, 4800, 4800]);
      await rt.close();
    } finally {
      server.close();
    }
  });

  it('without --wait and without a terminal: exit 7 at once, nothing polled, the hint names --wait', async () => {
    const rt = new Runtime({}, testContext());
    const err = await personMustAct(rt, async () => { throw new Error('must not sleep'); })(
      new ApiError(403, { code: 'approval_required', message: 'approve', approval: { status_url: '/agent/approvals/a' } }, 'req_1'),
      { method: 'DELETE', path: '/servers/x', idempotencyKey: 'k-1' },
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({ exitCode: 7 });
    expect((err as { hint: string }).hint).toContain('add --wait to wait here');
  });
});
