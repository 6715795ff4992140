import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SandboxContext } from '../context.js';
import { readJsonObject } from '../request.js';
import { mintIdJag } from './id-jag.js';
import { METHODS, type AgentConfig, type Method } from './model.js';
import { agentOf } from './service.js';

// Admin calls that play the person in the agent flow (no credential; 127.0.0.1 only):
//
//   GET  /__sandbox/agent                         config, identities, claims, approvals (no secrets)
//   POST /__sandbox/agent/config                  {methods?: {anonymous: false, ...}, token_lifetime_s?,
//                                                  claim_code_ttl_s?, claim_interval_s?, approval_interval_s?,
//                                                  slow_down_next?}
//   GET  /__sandbox/agent/device[?user_code=X]    the verification page; with a code, enters it
//   POST /__sandbox/agent/claims/complete         {user_code?} (default: the latest open code)
//   GET  /__sandbox/agent/approvals/ID            the approval page (action_url)
//   POST /__sandbox/agent/approvals/ID/approve    ID may be "latest" (the latest pending one)
//   POST /__sandbox/agent/approvals/ID/reject
//   POST /__sandbox/agent/disconnect              {agent_id?} (default: the latest connected agent)
//   POST /__sandbox/agent/id-jag                  {email, issuer?, audience?, login_age_s?} → an ID-JAG

export const AGENT_ADMIN_PREFIX = '/__sandbox/agent';

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, {
    'content-type': typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}

const notFound = (res: ServerResponse, message: string) => send(res, 404, { error: { code: 'not_found', message } });
const bad = (res: ServerResponse, message: string) => send(res, 400, { error: { code: 'bad_request', message } });

const positive = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined);

type ConfigChange = Partial<Omit<AgentConfig, 'methods'>> & { methods?: Partial<Record<Method, boolean>> };

function configChange(b: Record<string, unknown>): ConfigChange {
  const change: ConfigChange = {};
  if (b.methods && typeof b.methods === 'object') {
    const methods: Partial<Record<Method, boolean>> = {};
    for (const m of METHODS) {
      const v = (b.methods as Record<string, unknown>)[m];
      if (typeof v === 'boolean') methods[m] = v;
    }
    change.methods = methods;
  }
  const numbers: Array<[string, keyof AgentConfig]> = [
    ['token_lifetime_s', 'tokenLifetimeS'], ['claim_code_ttl_s', 'claimCodeTtlS'], ['claim_interval_s', 'claimIntervalS'],
    ['approval_interval_s', 'approvalIntervalS'], ['approval_window_s', 'approvalWindowS'],
  ];
  for (const [wire, key] of numbers) {
    const v = positive(b[wire]);
    if (v !== undefined) (change as Record<string, unknown>)[key] = v;
  }
  return change;
}

export async function handleAgentAdmin(ctx: SandboxContext, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const agent = agentOf(ctx);
  const method = (req.method ?? 'GET').toUpperCase();
  const path = url.pathname.replace(/\/$/, '').slice(AGENT_ADMIN_PREFIX.length) || '/';
  const approvalRoute = /^\/approvals\/([^/]+)(?:\/(approve|reject))?$/.exec(path);

  if (method === 'GET' && path === '/') {
    return send(res, 200, {
      data: {
        config: agent.config,
        identities: [...agent.identities.values()].map((i) => ({ id: i.id, method: i.method, account_id: i.accountId, disconnected: i.disconnected })),
        claims: [...agent.claims.values()].map((c) => ({ kind: c.kind, email: c.email, user_code: c.userCode, completed: c.completed, spent: c.spent })),
        approvals: [...agent.approvals.values()].map((a) => agent.approvalObject(a)),
      },
    });
  }
  if (method === 'POST' && path === '/config') {
    const b = await readJsonObject(req);
    if (!b) return bad(res, 'body must be a JSON object');
    agent.configure(configChange(b));
    const slow = positive(b.slow_down_next);
    if (slow !== undefined) agent.slowDownNext = Math.floor(slow);
    return send(res, 200, { data: agent.config });
  }
  if ((method === 'GET' && path === '/device') || (method === 'POST' && path === '/claims/complete')) {
    const b = method === 'POST' ? await readJsonObject(req) : {};
    if (!b) return bad(res, 'body must be a JSON object');
    const code = method === 'GET' ? url.searchParams.get('user_code') ?? undefined : typeof b.user_code === 'string' ? b.user_code : undefined;
    if (method === 'GET' && code === undefined) return send(res, 200, 'Sandbox sign-in: open this page with ?user_code=XXXX-XXXX to enter the code.\n');
    const claim = agent.completeClaim(code);
    if (!claim) return notFound(res, code ? `No open claim with code ${code} (wrong or expired)` : 'No open claim code');
    return method === 'GET'
      ? send(res, 200, `Code ${claim.userCode} entered for ${claim.email ?? 'the account'}. You can close this page.\n`)
      : send(res, 200, { data: { user_code: claim.userCode, email: claim.email, completed: true } });
  }
  if (approvalRoute) {
    const [, ref, verb] = approvalRoute;
    if (method === 'GET' && !verb) {
      const a = agent.approvals.get(ref!);
      return a ? send(res, 200, `Approval ${a.id}: an agent asks to ${a.what}. Status: ${a.status}.\n`) : notFound(res, 'Approval not found');
    }
    if (method === 'POST' && verb) {
      const decided = agent.decide(ref === 'latest' ? undefined : ref, verb === 'approve' ? 'approved' : 'rejected');
      return decided ? send(res, 200, { data: agent.approvalObject(decided) }) : notFound(res, 'No pending approval to decide');
    }
  }
  if (method === 'POST' && path === '/disconnect') {
    const b = await readJsonObject(req);
    if (!b) return bad(res, 'body must be a JSON object');
    const identity = agent.disconnect(typeof b.agent_id === 'string' ? b.agent_id : undefined);
    return identity ? send(res, 200, { data: { id: identity.id, disconnected: true } }) : notFound(res, 'No connected agent');
  }
  if (method === 'POST' && path === '/id-jag') {
    const b = await readJsonObject(req);
    if (!b || typeof b.email !== 'string') return bad(res, 'email is required');
    const assertion = mintIdJag({
      iss: typeof b.issuer === 'string' ? b.issuer : agent.config.trustedIssuers[0]!,
      aud: typeof b.audience === 'string' ? b.audience : ctx.baseUrl,
      email: b.email,
      auth_time: Math.floor(Date.now() / 1000) - (positive(b.login_age_s) ?? 0),
    });
    return send(res, 201, { data: { assertion } });
  }
  return notFound(res, `No admin route ${method} ${url.pathname}`);
}
