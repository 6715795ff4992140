import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { SandboxContext } from './context.js';
import { ApiFailure, errorBody, type HandlerResult } from './envelope.js';
import { genericHandler } from './handlers/generic.js';
import type { HandlerRequest, HandlerSpec } from './handlers/types.js';
import { missingScope, type Principal } from './auth.js';
import { validateIdempotencyKey } from './idempotency.js';
import { canonical, parseBody, parseQuery, readBody } from './request.js';
import { handleAdmin, ADMIN_PREFIX } from './admin.js';
import { AGENT_ADMIN_PREFIX, handleAgentAdmin } from './agent/admin.js';
import { agentGate } from './agent/gate.js';
import { handleNode } from './node/http.js';
import { NODE_PREFIX } from './node/signed-urls.js';
import { authorizeServer } from './permissions.js';
import { hostileBody } from './hostile.js';
import { strictBody } from './strict.js';
import type { Router } from './router.js';
import type { FaultTag, UpgradeHandler } from './types.js';
import { handleMcp } from './mcp/endpoint.js';

// The HTTP pipeline for /api/v2 (01-general-contract.md throughout). Order per request:
//   route lookup → planned faults (drop / gateway 5xx / 429 before processing) → 404/405 →
//   credential (401) → rate limit (429) → scope (403) → query/body parsing (400/413) →
//   server existence (404) → account reach (404) and server permissions (403) → idempotency (replay / 409 / 400) → injected latency → handler →
//   idempotency record → answer, or destroy the connection for a `lost` fault.
// Every response carries `x-request-id`; error bodies repeat it as `request_id`.

export const API_PREFIX = '/api/v2';

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const GATEWAY: Record<string, [number, string, string]> = {
  '502': [502, 'upstream_error', 'The node rejected or failed the request'],
  '503': [503, 'service_unavailable', 'Service unavailable; retry with backoff'],
  '504': [504, 'upstream_timeout', 'The node did not answer in time; retry with backoff'],
};

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

export function createHttpServer(ctx: SandboxContext, router: Router<HandlerSpec>, upgradeHandlers: UpgradeHandler[]): Server {
  const server = createServer((req, res) => {
    handle(ctx, router, req, res).catch((err: unknown) => {
      console.error('[sandbox] unexpected error:', err);
      if (!res.headersSent) {
        const requestId = newRequestId();
        send(res, requestId, { status: 500, body: errorBody(new ApiFailure(500, 'internal_error', 'Unexpected sandbox error'), requestId, ctx.docBase) });
      } else res.destroy();
    });
  });
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });
  server.on('upgrade', (req, socket, head) => {
    for (const h of upgradeHandlers) {
      try {
        if (h(req, socket, head)) return;
      } catch {
        break;
      }
    }
    socket.destroy();
  });
  return server;
}

function newRequestId(): string {
  return `req_${randomBytes(10).toString('hex')}`;
}

function send(res: ServerResponse, requestId: string, result: HandlerResult, extraHeaders: Record<string, string> = {}): void {
  const headers: Record<string, string> = { 'x-request-id': requestId, ...extraHeaders, ...(result.headers ?? {}) };
  let payload = '';
  if (result.raw) {
    headers['content-type'] = result.raw.contentType;
    payload = result.raw.text;
  } else if (result.body !== undefined) {
    headers['content-type'] = 'application/json; charset=utf-8';
    payload = JSON.stringify(result.body);
  }
  headers['content-length'] = String(Buffer.byteLength(payload));
  res.writeHead(result.status, headers);
  res.end(payload);
}

async function handle(ctx: SandboxContext, router: Router<HandlerSpec>, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
  if (url.pathname === AGENT_ADMIN_PREFIX || url.pathname.startsWith(`${AGENT_ADMIN_PREFIX}/`)) {
    await handleAgentAdmin(ctx, req, res, url);
    return;
  }
  if (url.pathname === ADMIN_PREFIX || url.pathname.startsWith(`${ADMIN_PREFIX}/`)) {
    await handleAdmin(ctx, req, res, url);
    return;
  }
  if (url.pathname.startsWith(`${NODE_PREFIX}/`)) {
    await handleNode(ctx, req, res, url);
    return;
  }
  const method = (req.method ?? 'GET').toUpperCase();
  const requestId = newRequestId();
  // The MCP server (item 6 of "What the service does"): JSON-RPC over Streamable HTTP, not REST.
  if (url.pathname === `${API_PREFIX}/mcp`) {
    await handleMcp(ctx, req, res, requestId);
    return;
  }
  const inApi = url.pathname === API_PREFIX || url.pathname.startsWith(`${API_PREFIX}/`);
  let path = inApi ? url.pathname.slice(API_PREFIX.length) || '/' : url.pathname;
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  const query = parseQuery(url.searchParams);
  const idemKey = header(req, 'idempotency-key');
  const match = inApi ? router.match(method, path) : ({ kind: 'not_found' } as const);
  const route = match.kind === 'found' ? match.route : undefined;

  const entry = ctx.log.open({
    method, path, query, requestId,
    ...(route ? { route: route.template } : {}),
    ...(idemKey !== undefined ? { idempotencyKey: idemKey } : {}),
  });
  let rateHeaders: Record<string, string> = {};

  const finish = (result: HandlerResult, extra: Record<string, string> = {}) => {
    entry.status = result.status;
    const err = (result.body as { error?: { code?: string } } | undefined)?.error;
    if (err?.code) entry.errorCode = err.code;
    // Hostile mode (hostile.ts): what a person reads carries escape sequences, on every answer of the API.
    if (ctx.hostile && inApi && result.body !== undefined) result = { ...result, body: hostileBody(result.body, { states: ctx.hostileStates }) };
    send(res, requestId, result, { ...rateHeaders, ...extra });
    ctx.log.done(entry);
  };
  const failWith = (f: ApiFailure) =>
    finish({ status: f.status, body: errorBody(f, requestId, ctx.docBase), ...(f.extra.headers ? { headers: f.extra.headers } : {}) });
  const faulted = (tag: FaultTag) => {
    entry.fault = tag;
  };

  const raw = await readBody(req);

  // Faults decided before anything is processed (a gateway in front of the API).
  const plan = inApi ? ctx.faults.plan(method, path, route?.template) : { lose: false, latencyMs: 0 };
  if (plan.before) {
    const { tag, retryAfter } = plan.before;
    faulted(tag);
    if (tag === 'drop') {
      res.socket?.destroy();
      ctx.log.done(entry);
      return;
    }
    if (tag === '429') {
      return failWith(new ApiFailure(429, 'rate_limit_exceeded', 'Rate limit exceeded', { headers: { 'Retry-After': String(retryAfter) } }));
    }
    const [status, code, message] = GATEWAY[tag]!;
    return failWith(new ApiFailure(status, code, message));
  }

  try {
    if (match.kind === 'method_not_allowed') {
      throw new ApiFailure(405, 'method_not_allowed', `${method} is not supported on ${path}`, { headers: { Allow: match.allow.join(', ') } });
    }
    if (match.kind === 'bad_path') throw new ApiFailure(400, 'bad_request', 'Malformed path encoding');
    if (match.kind !== 'found' || !route) throw new ApiFailure(404, 'not_found', `No route for ${method} ${path}`);

    // Credential, rate limit, scope.
    const isPublic = route.op ? route.op.auth === 'none' : route.spec?.auth === 'none';
    let principal: Principal | undefined;
    if (!isPublic) {
      principal = ctx.keys.authenticate(header(req, 'authorization'));
      if (!principal) {
        throw new ApiFailure(401, 'unauthorized', 'Missing, malformed, unknown, revoked or expired credential', {
          headers: { 'WWW-Authenticate': `Bearer resource_metadata="${ctx.baseUrl}/.well-known/oauth-protected-resource"` },
        });
      }
      entry.keyId = principal.id;
      if (principal.key) principal.key.lastUsedAt = Date.now();
      const decision = ctx.rate.take(principal.id, principal.rateLimit, ctx.now());
      rateHeaders = decision.headers;
      if (!decision.allowed) {
        throw new ApiFailure(429, 'rate_limit_exceeded', `Rate limit of ${principal.rateLimit} requests per minute exceeded`, {
          headers: { 'Retry-After': String(decision.retryAfter) },
        });
      }
      const scope = missingScope(principal.scopes, route.op?.scope ?? route.spec?.scope);
      if (scope) throw new ApiFailure(403, 'forbidden', `This key lacks the scope ${scope}`);
    }

    if (raw instanceof ApiFailure) throw raw;
    const parsed = parseBody(raw, header(req, 'content-type'));
    if (parsed.value !== undefined) entry.body = parsed.value;
    // "400 invalid body, query or content type": JSON everywhere; form-encoded only where the
    // registry says `form`; other types only for uploads (file content, upload endpoints).
    const acceptsRaw = route.spec ? route.spec.rawBody === true : /\/(upload|files\/content)$/.test(route.template);
    if ((parsed.kind === 'raw' && !acceptsRaw) || (parsed.kind === 'form' && !route.op?.form)) {
      throw new ApiFailure(400, 'bad_request', `Unsupported content type ${header(req, 'content-type') ?? ''}; send application/json`);
    }

    if (match.params.server_id !== undefined && !ctx.state.servers.has(match.params.server_id)) {
      throw new ApiFailure(404, 'not_found', 'Server not found');
    }
    if (principal) authorizeServer(ctx, principal, route.op, match.params.server_id, parsed.value);
    if (method !== 'GET' && match.params.server_id !== undefined && ctx.state.servers.get(match.params.server_id)?.suspended) {
      throw new ApiFailure(403, 'server_suspended', 'The server is suspended');
    }

    const hreq: HandlerRequest = {
      method, path, template: route.template, params: match.params, query,
      body: parsed.value, bodyKind: parsed.kind, rawBody: parsed.kind === 'raw' ? parsed.raw : Buffer.alloc(0),
      requestId, headers: req.headers,
      ...(principal ? { principal } : {}),
      ...(route.op ? { op: route.op } : {}),
    };

    // Idempotency (mutations only), scoped per credential.
    let record: ((r: HandlerResult) => void) | undefined;
    if (idemKey !== undefined && MUTATING.has(method)) {
      validateIdempotencyKey(idemKey);
      const fingerprint = `${method} ${path}\n${canonical(query)}\n${parsed.kind === 'raw' ? raw.toString('base64') : canonical(parsed.value)}`;
      const claim = ctx.idempotency.claim(principal?.id ?? 'anonymous', idemKey, fingerprint);
      if (claim.kind === 'replay') {
        entry.replayed = true;
        const stored = claim.result;
        const body = (stored.body as { request_id?: unknown } | undefined)?.request_id !== undefined
          ? { ...(stored.body as object), request_id: requestId }
          : stored.body;
        return deliver({ ...stored, body }, { 'Idempotency-Replayed': 'true' });
      }
      record = claim.finish;
    }

    let result: HandlerResult;
    try {
      if (plan.latencyMs > 0) await ctx.clock.sleepReal(plan.latencyMs);
      const handler = route.spec?.handle ?? genericHandler;
      agentGate(hreq, ctx); // agent approvals and account reach (agent/gate.ts)
      if (plan.failInHandler) throw new ApiFailure(500, 'internal_error', 'Injected server error');
      result = await handler(hreq, ctx);
    } catch (err) {
      const f = err instanceof ApiFailure ? err : new ApiFailure(500, 'internal_error', 'Unexpected sandbox error');
      if (!(err instanceof ApiFailure)) console.error('[sandbox] handler error:', err);
      result = { status: f.status, body: errorBody(f, requestId, ctx.docBase), ...(f.extra.headers ? { headers: f.extra.headers } : {}) };
    }
    record?.(result);
    if (MUTATING.has(method) && result.status < 400) {
      ctx.effects.push({
        seq: entry.seq, method, path, status: result.status, lost: plan.lose,
        ...(route.template ? { route: route.template } : {}),
        ...(idemKey !== undefined ? { idempotencyKey: idemKey } : {}),
      });
    }
    return deliver(result);
  } catch (err) {
    if (err instanceof ApiFailure) return failWith(err);
    throw err;
  }

  function deliver(result: HandlerResult, extra: Record<string, string> = {}): void {
    if (plan.lose) {
      // Executed (and recorded for idempotency), but the client never hears back.
      faulted('lost');
      entry.status = result.status;
      res.socket?.destroy();
      ctx.log.done(entry);
      return;
    }
    const shaped = ctx.strict && route && result.status < 300 && result.body !== undefined
      ? { ...result, body: strictBody(route.template, result.body) }
      : result;
    finish(shaped, extra);
  }
}
