import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SandboxContext } from '../context.js';
import { hostileValue } from '../hostile.js';
import { readBody } from '../request.js';
import { callRest, type ToolDef, TOOLS } from './tools.js';

// The sandbox's MCP server at `{base_url}/mcp` (01-general-contract.md "What the service does",
// item 6): Streamable HTTP as the MCP specification has it (revisions 2025-06-18 and 2025-03-26).
// POST carries one JSON-RPC message: a notification or response gets 202, a request gets its
// answer as JSON or as an SSE stream (`ctx.mcp.answers`), the long tool's progress notifications
// before it. `Mcp-Session-Id` is handed out at initialize and required after; a session unused for
// `sessionTtlMs` is forgotten (404, the client initializes again). GET opens the server's stream
// (405 in strict mode), DELETE ends a session. The bearer is checked as for REST (401 with
// WWW-Authenticate). Strict mode speaks only 2025-03-26, leaves out what that revision lacks
// (tool titles, structured content), answers every request as SSE and offers no GET stream or
// DELETE; hostile mode makes tool titles, descriptions and result text hostile.

export interface McpSettings {
  answers: 'json' | 'sse';
  /** A session unused this long (real ms) is forgotten. */
  sessionTtlMs: number;
  /** Tools per tools/list page. */
  pageSize: number;
}

export const DEFAULT_MCP: McpSettings = { answers: 'json', sessionTtlMs: 30 * 60_000, pageSize: 5 };

const VERSIONS = ['2025-06-18', '2025-03-26'];

interface Session {
  id: string;
  principal: string;
  version: string;
  lastUsed: number;
  streams: Set<ServerResponse>;
  /** Calls under way, by JSON-RPC id, for notifications/cancelled. */
  running: Map<string, AbortController>;
}

interface Message {
  jsonrpc?: string;
  id?: string | number | null;
  method?: string;
  params?: Record<string, unknown>;
}

/** What each sandbox's MCP server remembers. */
export class McpState {
  readonly sessions = new Map<string, Session>();
  constructor(readonly settings: McpSettings) {}
  /** Forgets every session (a service restart): the next request with an old id gets 404. */
  forgetSessions(): void {
    for (const s of this.sessions.values()) for (const r of s.streams) r.end();
    this.sessions.clear();
  }
}

const states = new WeakMap<SandboxContext, McpState>();
export function mcpOf(ctx: SandboxContext): McpState {
  let s = states.get(ctx);
  if (!s) states.set(ctx, (s = new McpState({ ...DEFAULT_MCP })));
  return s;
}

const rpcError = (id: Message['id'], code: number, message: string, data?: unknown) => ({ jsonrpc: '2.0', id: id ?? null, error: { code, message, ...(data === undefined ? {} : { data }) } });

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

export async function handleMcp(ctx: SandboxContext, req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
  const state = mcpOf(ctx);
  const method = (req.method ?? 'GET').toUpperCase();
  const raw = await readBody(req);
  let message: Message | undefined;
  const entry = ctx.log.open({ method, path: '/mcp', route: '/mcp', query: {}, requestId });
  const answer = (status: number, body?: unknown, headers: Record<string, string> = {}) => {
    entry.status = status;
    const payload = body === undefined ? '' : JSON.stringify(body);
    res.writeHead(status, { 'x-request-id': requestId, ...(body === undefined ? {} : { 'content-type': 'application/json' }), 'content-length': String(Buffer.byteLength(payload)), ...headers });
    res.end(payload);
    ctx.log.done(entry);
  };

  const principal = ctx.keys.authenticate(header(req, 'authorization'));
  if (!principal) {
    return answer(401, { error: { code: 'unauthorized', message: 'Missing, malformed, unknown, revoked or expired credential' }, request_id: requestId }, {
      'WWW-Authenticate': `Bearer resource_metadata="${ctx.baseUrl}/.well-known/oauth-protected-resource"`,
    });
  }
  entry.keyId = principal.id;
  const sessionId = header(req, 'mcp-session-id');
  const session = sessionId === undefined ? undefined : state.sessions.get(sessionId);
  const expired = session && Date.now() - session.lastUsed > state.settings.sessionTtlMs;
  if (expired) state.sessions.delete(session.id);
  const known = session && !expired && session.principal === principal.id ? session : undefined;

  if (method === 'DELETE') {
    if (ctx.strict) return answer(405, undefined, { allow: 'GET, POST' });
    if (!known) return answer(404, rpcError(null, -32001, 'Session not found'));
    for (const r of known.streams) r.end();
    state.sessions.delete(known.id);
    return answer(200);
  }
  if (method === 'GET') {
    if (ctx.strict || !/text\/event-stream/.test(header(req, 'accept') ?? '')) return answer(405, undefined, { allow: ctx.strict ? 'POST' : 'GET, POST, DELETE' });
    if (!known) return answer(sessionId === undefined ? 400 : 404, rpcError(null, -32001, 'Session not found'));
    entry.status = 200;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-request-id': requestId });
    res.write(': the server\'s stream\n\n');
    known.streams.add(res);
    res.on('close', () => known.streams.delete(res));
    ctx.log.done(entry);
    return;
  }
  if (method !== 'POST') return answer(405, undefined, { allow: 'GET, POST, DELETE' });

  const accept = header(req, 'accept') ?? '';
  if (!/application\/json/.test(accept) || !/text\/event-stream/.test(accept)) {
    return answer(406, rpcError(null, -32000, 'Not Acceptable: the client must accept both application/json and text/event-stream'));
  }
  try {
    message = JSON.parse(Buffer.isBuffer(raw) ? raw.toString('utf8') : '') as Message;
  } catch {
    return answer(400, rpcError(null, -32700, 'Parse error'));
  }
  entry.body = message;
  if (typeof message !== 'object' || message === null || Array.isArray(message) || message.jsonrpc !== '2.0') {
    return answer(400, rpcError(null, -32600, 'Invalid Request: one JSON-RPC 2.0 message per POST'));
  }

  if (message.method === 'initialize') {
    const asked = String(message.params?.protocolVersion ?? '');
    const offered = ctx.strict ? ['2025-03-26'] : VERSIONS;
    const version = offered.includes(asked) ? asked : offered[0]!;
    const id = randomBytes(16).toString('hex');
    state.sessions.set(id, { id, principal: principal.id, version, lastUsed: Date.now(), streams: new Set(), running: new Map() });
    const result = {
      protocolVersion: version,
      capabilities: { tools: { listChanged: false } },
      serverInfo: { name: 'gsh-sandbox', version: '1.0.0' },
      instructions: 'Tools for the servers, files, console, backups and billing of this account.',
    };
    return respond(ctx, res, entry, message, result, { 'mcp-session-id': id }, requestId);
  }
  if (sessionId === undefined) return answer(400, rpcError(message.id, -32000, 'Bad Request: Mcp-Session-Id header is required'));
  if (!known) return answer(404, rpcError(message.id, -32001, 'Session not found'));
  const version = header(req, 'mcp-protocol-version');
  if (version !== undefined && version !== known.version) {
    return answer(400, rpcError(message.id, -32000, `Bad Request: unsupported MCP-Protocol-Version ${version}`));
  }
  known.lastUsed = Date.now();

  // Notifications and responses: accepted, nothing to answer.
  if (message.method === undefined || message.id === undefined || message.id === null) {
    if (message.method === 'notifications/cancelled') known.running.get(String(message.params?.requestId))?.abort();
    return answer(202);
  }
  switch (message.method) {
    case 'ping':
      return respond(ctx, res, entry, message, {}, {}, requestId);
    case 'tools/list': {
      const start = Number.parseInt(String(message.params?.cursor ?? '0'), 10);
      if (!Number.isInteger(start) || start < 0 || start > TOOLS.length) return respond(ctx, res, entry, message, rpcError(message.id, -32602, 'Invalid cursor'), {}, requestId);
      const page = TOOLS.slice(start, start + state.settings.pageSize).map((t) => shownTool(ctx, t));
      const next = start + state.settings.pageSize;
      return respond(ctx, res, entry, message, { tools: page, ...(next < TOOLS.length ? { nextCursor: String(next) } : {}) }, {}, requestId);
    }
    case 'tools/call':
      return callTool(ctx, known, req, res, entry, message, requestId);
    default:
      return respond(ctx, res, entry, message, rpcError(message.id, -32601, `Method not found: ${message.method}`), {}, requestId);
  }
}

function shownTool(ctx: SandboxContext, t: ToolDef): Record<string, unknown> {
  const text = (s: string, key: string) => (ctx.hostile ? (hostileValue(s, key) as string) : s);
  return {
    name: t.name,
    ...(ctx.strict ? {} : { title: text(t.title, 'title') }),
    description: text(t.description, 'description'),
    inputSchema: t.inputSchema,
    ...(t.annotations ? { annotations: t.annotations } : {}),
  };
}

type Entry = ReturnType<SandboxContext['log']['open']>;

/** A result or error object, or a full JSON-RPC error, as JSON or as a one-event SSE stream. */
function respond(ctx: SandboxContext, res: ServerResponse, entry: Entry, message: Message, resultOrError: unknown, headers: Record<string, string>, requestId: string): void {
  const full = (resultOrError as { jsonrpc?: string }).jsonrpc ? resultOrError : { jsonrpc: '2.0', id: message.id, result: resultOrError };
  const sse = ctx.strict || mcpOf(ctx).settings.answers === 'sse';
  entry.status = 200;
  if (sse) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-request-id': requestId, ...headers });
    res.end(`event: message\ndata: ${JSON.stringify(full)}\n\n`);
  } else {
    const payload = JSON.stringify(full);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)), 'x-request-id': requestId, ...headers });
    res.end(payload);
  }
  ctx.log.done(entry);
}

async function callTool(ctx: SandboxContext, session: Session, req: IncomingMessage, res: ServerResponse, entry: Entry, message: Message, requestId: string): Promise<void> {
  const name = String(message.params?.name ?? '');
  const args = (message.params?.arguments ?? {}) as Record<string, unknown>;
  const tool = TOOLS.find((t) => t.name === name);
  if (!tool) return respond(ctx, res, entry, message, rpcError(message.id, -32602, `Unknown tool: ${name}`), {}, requestId);
  const progressToken = (message.params?._meta as { progressToken?: unknown } | undefined)?.progressToken;
  const sse = ctx.strict || mcpOf(ctx).settings.answers === 'sse';
  const plan = ctx.faults.plan('POST', '/mcp', '/mcp');
  const cancel = new AbortController();
  session.running.set(String(message.id), cancel);
  res.on('close', () => cancel.abort());
  try {
    if (tool.long) {
      if (sse) res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-request-id': requestId });
      const steps = Math.max(1, Math.round((typeof args.seconds === 'number' ? args.seconds : 2) * 4));
      for (let i = 1; i <= steps; i++) {
        await new Promise((r) => setTimeout(r, 250));
        if (cancel.signal.aborted) {
          // Cancelled: no answer is owed (MCP "Cancellation").
          entry.status = 499;
          ctx.log.done(entry);
          if (!res.writableEnded) res.end();
          return;
        }
        if (sse && progressToken !== undefined) {
          const params = { progressToken, progress: i, total: steps, message: `checked ${i} of ${steps}` };
          res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params })}\n\n`);
        }
      }
    }
    const r = tool.rest!(args);
    const got = await callRest(ctx.baseUrl, header(req, 'authorization'), r);
    const result = toolResult(ctx, got.status, got.body);
    if (plan.lose) {
      // Executed, and the answer never reaches the client.
      entry.status = 200;
      entry.fault = 'lost';
      res.socket?.destroy();
      ctx.log.done(entry);
      return;
    }
    const full = { jsonrpc: '2.0', id: message.id, result };
    entry.status = 200;
    if (sse) {
      if (!res.headersSent) res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-request-id': requestId });
      res.end(`event: message\ndata: ${JSON.stringify(full)}\n\n`);
    } else {
      const payload = JSON.stringify(full);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)), 'x-request-id': requestId });
      res.end(payload);
    }
    ctx.log.done(entry);
  } finally {
    session.running.delete(String(message.id));
  }
}

/** A REST answer as a tool result: the envelope as text (and structured where the revision has it); a failure is a tool error holding the error envelope. */
function toolResult(ctx: SandboxContext, status: number, body: unknown): Record<string, unknown> {
  const json = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : { data: body };
  let text = JSON.stringify(json);
  if (ctx.hostile) text = hostileValue(text, 'text') as string;
  return {
    content: [{ type: 'text', text }],
    ...(ctx.strict ? {} : { structuredContent: json }),
    ...(status >= 400 ? { isError: true } : {}),
  };
}
