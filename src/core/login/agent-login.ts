import { readFileSync } from 'node:fs';
import { agentCredential } from '../auth/agent-credential.js';
import { AgentAuth, applyGrant, claimCodeOf, type ClaimCode, explainAgentError, pollClaim, type TokenGrant } from '../auth/agent-flow.js';
import { openBrowser } from '../run/browser.js';
import { type AgentMethod, CLAIM_GRANT, discover, ID_JAG_TYPE, requireMethod } from '../auth/discovery.js';
import { ApiError, Exit, GshError, UsageError } from '../errors.js';
import { ApiClient } from '../wire/http.js';
import { ansi } from '../terminal/io.js';
import { askSecret, readAllStdin } from '../person/ask.js';
import type { Runtime } from '../run/runtime.js';
import { forTerminal } from '../terminal/terminal-text.js';
import { type AgentIdentity, profileName } from '../auth/store.js';

// `gsh auth login --agent` and `gsh auth claim` (01-general-contract.md "Agent registration flow"):
// register with one of three methods, show a claim code to the person and poll for it, store the
// identity assertion, access token and expiry in the profile (0600). `--no-wait` prints the code
// as one JSON object and leaves a pending claim in the profile for `--resume` to finish.

export interface AgentLoginOptions {
  email?: string;
  anonymous?: boolean;
  assertion?: string;
  /** commander's --no-browser sets this false. */
  browser?: boolean;
  /** commander's --no-wait sets this false. */
  wait?: boolean;
  resume?: boolean;
}

/** A claim waiting for a person, kept in the profile between `--no-wait` and `--resume`. */
interface PendingClaim {
  kind: 'login' | 'claim';
  method: AgentMethod;
  base_url: string;
  auth_url: string;
  claim_grant_type: string;
  claim_token: string;
  claim: ClaimCode;
  /** ISO 8601: when the code expires. */
  expires_at: string;
}

const TEMPORARY_NOTE =
  'This is a temporary account with one free server. It is deleted, with its server, after 7 days unless it is claimed:\n' +
  '  gsh auth claim --email YOU@example.com';

function pendingOf(agent: AgentIdentity | undefined): PendingClaim | undefined {
  const p = agent?.pending as Partial<PendingClaim> | undefined;
  return p && typeof p.claim_token === 'string' && typeof p.base_url === 'string' ? (p as PendingClaim) : undefined;
}

function flowClient(rt: Runtime, baseUrl: string): ApiClient {
  return rt.newClient({ baseUrl });
}

function methodOf(opts: AgentLoginOptions): AgentMethod {
  const chosen = [opts.email !== undefined && 'service_auth', opts.anonymous && 'anonymous', opts.assertion !== undefined && 'identity_assertion']
    .filter((m): m is AgentMethod => typeof m === 'string');
  if (chosen.length !== 1) {
    throw new UsageError('choose exactly one agent registration method', 'Use --email E, --anonymous, or --assertion FILE (- for stdin); or --resume to finish a pending login.');
  }
  if (opts.email !== undefined && !/^[^\s@]+@[^\s@]+$/.test(opts.email)) throw new UsageError(`--email: not an e-mail address: ${opts.email}`);
  return chosen[0]!;
}

/** The ID-JAG comes from a file or stdin, never from argv. */
async function readAssertion(rt: Runtime, source: string): Promise<string> {
  let text: string;
  if (source === '-') {
    if (rt.io.stdinTTY && rt.globals.input === false) throw new UsageError('--assertion -: pipe the assertion on standard input');
    text = rt.io.stdinTTY ? await askSecret(rt, 'Identity assertion: ') : await readAllStdin(rt.io);
  } else {
    try {
      text = readFileSync(source, 'utf8');
    } catch (err) {
      throw new UsageError(`--assertion: cannot read ${source}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  const assertion = text.trim();
  if (!assertion || /\s/.test(assertion)) throw new UsageError('--assertion: give one identity assertion (an ID-JAG), nothing else');
  return assertion;
}

interface Target {
  profile: string;
  baseUrl: string;
}

function target(rt: Runtime): Target {
  const data = rt.store.read();
  const profile = profileName(rt.globals.profile, rt.env, data);
  const baseUrl = rt.globals.baseUrl || rt.env.GSH_BASE_URL || data.profiles[profile]?.base_url;
  if (!baseUrl) throw new UsageError('no base URL', 'Pass --base-url URL or set GSH_BASE_URL.');
  return { profile, baseUrl };
}

export async function agentLogin(rt: Runtime, opts: AgentLoginOptions): Promise<void> {
  if (opts.resume) {
    if (opts.email !== undefined || opts.anonymous || opts.assertion !== undefined) {
      throw new UsageError('--resume finishes the pending login; give no registration method with it');
    }
    return resume(rt, opts);
  }
  const method = methodOf(opts);
  const assertion = opts.assertion !== undefined ? await readAssertion(rt, opts.assertion) : undefined;
  const { profile, baseUrl } = target(rt);
  const client = flowClient(rt, baseUrl);
  try {
    const server = await discover(client);
    requireMethod(server, method);
    const auth = new AgentAuth(client, server.authUrl, server.claimGrantType);
    const identity: AgentIdentity = { method, auth_url: server.authUrl, claim_grant_type: server.claimGrantType };
    const restart = `Start again: gsh auth login --agent ${method === 'service_auth' ? `--email ${opts.email}` : method === 'anonymous' ? '--anonymous' : '--assertion FILE'}`;

    if (method === 'service_auth') {
      const reg = await auth.register({ type: 'service_auth', login_hint: opts.email! }).catch((e) => rethrow(e, restart));
      if (!reg.claim_token || !reg.claim) throw new GshError('the service answered the registration without a claim code', Exit.error);
      return await awaitClaim(rt, auth, opts, pending('login', method, client.baseUrl, auth, reg.claim_token, reg.claim), restart);
    }

    if (method === 'anonymous') {
      const reg = await auth.register({ type: 'anonymous' }).catch((e) => rethrow(e, restart));
      if (!reg.identity_assertion) throw new GshError('the service answered the registration without an identity assertion', Exit.error);
      const grant = await auth.exchange(reg.identity_assertion).catch((e) => rethrow(e, restart));
      const expires = reg.document.expires_at ?? documentAccount(reg.document).expires_at;
      await finish(rt, { profile, baseUrl: client.baseUrl }, {
        ...identity, identity_assertion: reg.identity_assertion, claimed: false,
        ...(reg.claim_token ? { claim_token: reg.claim_token } : {}),
        ...(typeof expires === 'string' ? { account_expires_at: expires } : {}),
      }, grant, opts);
      rt.io.stderr.write(`${TEMPORARY_NOTE}\n`);
      return;
    }

    let reg;
    try {
      reg = await auth.register({ type: 'identity_assertion', assertion_type: ID_JAG_TYPE, assertion: assertion! });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      if (err.code === 'login_required') {
        throw new GshError('the sign-in at the identity provider is older than one hour', Exit.personMustAct,
          'Sign in at the provider again, mint a fresh assertion, and run this command again.');
      }
      if (err.code !== 'interaction_required') throw explainAgentError(err, restart);
      return await handOverClaim(rt, auth, opts, client.baseUrl, err, restart);
    }
    if (!reg.identity_assertion) throw new GshError('the service answered the registration without an identity assertion', Exit.error);
    const grant = await auth.exchange(reg.identity_assertion).catch((e) => rethrow(e, restart));
    await finish(rt, { profile, baseUrl: client.baseUrl }, { ...identity, identity_assertion: reg.identity_assertion, claimed: true }, grant, opts);
  } finally {
    await client.close();
  }
}

function documentAccount(doc: Record<string, unknown>): Record<string, unknown> {
  return typeof doc.account === 'object' && doc.account !== null ? (doc.account as Record<string, unknown>) : {};
}

function rethrow(err: unknown, restart: string): never {
  throw err instanceof ApiError ? explainAgentError(err, restart) : err;
}

function pending(kind: PendingClaim['kind'], method: AgentMethod, baseUrl: string, auth: AgentAuth, claimToken: string, claim: ClaimCode): PendingClaim {
  return {
    kind, method, base_url: baseUrl, auth_url: auth.authUrl, claim_grant_type: auth.claimGrantType, claim_token: claimToken, claim,
    expires_at: new Date(Date.now() + (claim.expires_in ?? 600) * 1000).toISOString(),
  };
}

/** identity_assertion answered `interaction_required`: the account owner must confirm the link. */
async function handOverClaim(rt: Runtime, auth: AgentAuth, opts: AgentLoginOptions, baseUrl: string, err: ApiError, restart: string): Promise<void> {
  const claimBody = typeof err.body.claim === 'object' && err.body.claim !== null ? (err.body.claim as Record<string, unknown>) : {};
  const claim = claimCodeOf(claimBody);
  const token = [err.body.claim_token, claimBody.claim_token].find((t): t is string => typeof t === 'string' && t !== '');
  rt.io.stderr.write('This e-mail belongs to an existing account: its owner must confirm the link. Hand them this:\n');
  if (claim && token) return awaitClaim(rt, auth, opts, pending('login', 'identity_assertion', baseUrl, auth, token, claim), restart);
  writeClaim(rt, claim ?? {});
  throw new GshError('the account owner must confirm the link first', Exit.personMustAct, 'Once they have, run this command again with a fresh assertion.');
}

function writeClaim(rt: Runtime, claimed: ClaimCode): void {
  const out = rt.io.stderr;
  // The service's text, shown inert on a terminal before gsh makes the code bold (core/terminal/terminal-text.ts).
  const t = <T>(s: T): T => (typeof s === 'string' ? (forTerminal(s, rt.io.stderrTTY) as T) : s);
  const claim = { ...claimed, verification_uri_complete: t(claimed.verification_uri_complete), verification_uri: t(claimed.verification_uri), user_code: t(claimed.user_code) };
  if (claim.verification_uri_complete) out.write(`  Open: ${claim.verification_uri_complete}\n`);
  if (claim.verification_uri) {
    out.write(`  ${claim.verification_uri_complete ? 'or go to' : 'Go to'} ${claim.verification_uri}${claim.user_code ? ` and enter the code ${ansi.bold(claim.user_code, rt.io.colorErr)}` : ''}\n`);
  } else if (claim.user_code) out.write(`  Code: ${claim.user_code}\n`);
  if (claim.expires_in) out.write(`  The code expires in ${Math.max(1, Math.round(claim.expires_in / 60))} min.\n`);
}

function resumeCommand(profile: string): string {
  return `gsh auth login --agent --resume --profile ${profile}`;
}

/** Shows the code, then either leaves it pending (--no-wait) or polls until the person acts. */
async function awaitClaim(rt: Runtime, auth: AgentAuth, opts: AgentLoginOptions, p: PendingClaim, restart: string): Promise<void> {
  const { profile } = target(rt);
  await rt.store.update((d) => {
    const prof = (d.profiles[profile] ??= {});
    prof.agent = { ...(prof.agent ?? { method: p.method }), pending: { ...p } };
  });
  if (opts.wait === false) {
    rt.io.stdout.write(`${JSON.stringify({
      status: 'pending',
      method: p.method,
      user_code: p.claim.user_code,
      verification_uri: p.claim.verification_uri,
      verification_uri_complete: p.claim.verification_uri_complete,
      expires_in: p.claim.expires_in,
      expires_at: p.expires_at,
      interval: p.claim.interval,
      resume: resumeCommand(profile),
    })}\n`);
    return;
  }
  writeClaim(rt, p.claim);
  await openBrowser(rt, p.claim.verification_uri_complete ?? p.claim.verification_uri ?? '', opts.browser === false || !p.claim.verification_uri);
  return completeClaim(rt, auth, profile, p, restart, opts);
}

async function completeClaim(rt: Runtime, auth: AgentAuth, profile: string, p: PendingClaim, restart: string, opts: AgentLoginOptions): Promise<void> {
  rt.note('Waiting for the code to be entered…');
  const grant = await pollClaim(auth, p.claim_token, {
    interval: p.claim.interval,
    // The code's expiry plus a margin for the clocks; the server's expired_token decides first.
    deadline: Date.parse(p.expires_at) + 30_000,
    restart,
    onSlowDown: (ms) => rt.note(`The service asked to poll less often; every ${Math.round(ms / 1000)} s now.`),
  });
  if (p.kind === 'claim') {
    await rt.store.update((d) => {
      const agent = d.profiles[profile]?.agent;
      if (!agent) return;
      applyGrant(agent, grant);
      agent.claimed = true;
      delete agent.claim_token;
      delete agent.pending;
      delete agent.account_expires_at;
    });
    rt.io.stderr.write('Claimed: the account and its server now belong to the person who entered the code.\n');
    return;
  }
  await finish(rt, { profile, baseUrl: p.base_url }, {
    method: p.method, auth_url: p.auth_url, claim_grant_type: p.claim_grant_type, claimed: true,
  }, grant, opts);
}

/** Saves the identity (replacing an API key in the profile), then shows whose account it is. */
async function finish(rt: Runtime, t: Target, identity: AgentIdentity, grant: TokenGrant, opts: AgentLoginOptions): Promise<void> {
  const agent: AgentIdentity = { ...identity };
  applyGrant(agent, grant);
  await rt.store.update((d) => {
    d.profiles[t.profile] = { base_url: t.baseUrl, agent };
    d.current ??= t.profile;
  });
  const client = rt.newClient({ baseUrl: t.baseUrl, credential: agentCredential(t.profile, t.baseUrl, rt.store, (baseUrl) => rt.newClient({ baseUrl })) });
  let who = 'the account';
  try {
    const me = ((await client.request<{ data?: { account?: { id?: number; username?: string } } }>({ method: 'GET', path: '/me' })).body?.data ?? {});
    if (me.account) {
      who = String(me.account.username ?? me.account.id ?? who);
      const account = { ...(me.account.id !== undefined ? { id: me.account.id } : {}), ...(me.account.username !== undefined ? { username: me.account.username } : {}) };
      await rt.store.update((d) => {
        const a = d.profiles[t.profile]?.agent;
        if (a) a.account = account;
      });
    }
  } catch (err) {
    rt.warn(`logged in, but GET /me failed: ${(err as Error).message}`);
  } finally {
    await client.close();
  }
  if (opts.wait === false) {
    rt.io.stdout.write(`${JSON.stringify({ status: 'logged_in', method: agent.method, profile: t.profile, account: who, claimed: agent.claimed === true })}\n`);
  }
  rt.note(`Logged in to ${t.baseUrl} as an agent (${agent.method}) of ${who} (profile "${t.profile}", saved in ${rt.store.path}).`);
}

async function resume(rt: Runtime, opts: AgentLoginOptions): Promise<void> {
  const data = rt.store.read();
  const profile = profileName(rt.globals.profile, rt.env, data);
  const p = pendingOf(data.profiles[profile]?.agent);
  if (!p) {
    throw new UsageError(`profile "${profile}" has no pending agent login`, 'Start one: gsh auth login --agent --email YOU@example.com --no-wait');
  }
  const client = flowClient(rt, p.base_url);
  try {
    const auth = new AgentAuth(client, p.auth_url, p.claim_grant_type ?? CLAIM_GRANT);
    writeClaim(rt, { ...p.claim, expires_in: Math.max(0, (Date.parse(p.expires_at) - Date.now()) / 1000) });
    const restart = p.kind === 'claim' ? 'Ask for a new code: gsh auth claim --email YOU@example.com' : 'Start again: gsh auth login --agent';
    await completeClaim(rt, auth, profile, p, restart, { ...opts, wait: true });
  } finally {
    await client.close();
  }
}

/** `gsh auth claim --email E`: start (or refresh) the claim of the anonymous account, then wait. */
export async function agentClaim(rt: Runtime, email: string, opts: AgentLoginOptions): Promise<void> {
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new UsageError(`--email: not an e-mail address: ${email}`);
  const data = rt.store.read();
  const profile = profileName(rt.globals.profile, rt.env, data);
  const agent = data.profiles[profile]?.agent;
  if (!agent || agent.method !== 'anonymous') {
    throw new UsageError(`profile "${profile}" holds no anonymous agent account to claim`, 'Claims are for accounts made with `gsh auth login --agent --anonymous`.');
  }
  if (agent.claimed) {
    rt.note(`The account of profile "${profile}" is already claimed.`);
    return;
  }
  if (!agent.claim_token) throw new GshError('the profile holds no claim token for this account', Exit.error, 'Register again: gsh auth login --agent --anonymous');
  const baseUrl = data.profiles[profile]?.base_url ?? target(rt).baseUrl;
  const client = flowClient(rt, baseUrl);
  try {
    const auth = new AgentAuth(client, agent.auth_url ?? client.baseUrl, agent.claim_grant_type ?? CLAIM_GRANT);
    const restart = 'Register again: gsh auth login --agent --anonymous';
    const started = await auth.startClaim(agent.claim_token, email).catch((e) => rethrow(e, restart));
    await rt.store.update((d) => {
      const a = d.profiles[profile]?.agent;
      if (a) a.claim_token = started.claim_token;
    });
    rt.io.stderr.write(`${email} must sign in and enter the code to claim this account:\n`);
    await awaitClaim(rt, auth, opts, pending('claim', 'anonymous', client.baseUrl, auth, started.claim_token, started.claim), `Ask for a new code: gsh auth claim --email ${email}`);
  } finally {
    await client.close();
  }
}
