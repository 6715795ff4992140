import { ApiError, GshError, NetworkError } from '../core/errors.js';
import type { ApiClient, RequestSpec } from '../core/wire/http.js';
import { isRequest, isResponse, parseMessage, type RpcMessage, sseMessages } from './messages.js';

// The bridge's side toward the service (README "AI clients (MCP)"): Streamable HTTP to
// `{base_url}/mcp` (MCP specification, "Transports", revisions 2025-06-18 and 2025-03-26) through
// the request core, so proxies, TLS, stale connections, the http-to-non-loopback refusal, the
// credential (agent renewal before expiry and once after a 401) and --debug are gsh's own. Each
// message is one POST accepting JSON and SSE; the answer is read either way, and what the service
// sends before it on an SSE answer (progress, its own requests) is handed on at once. The
// session (Mcp-Session-Id, MCP-Protocol-Version) is this link's: a session the service forgot
// (404) is initialized again with the client's own initialize and the message sent once more,
// the GET stream is opened where the service offers it, and DELETE ends the session on close.

/** Requests that only read: retried as a GET is. Any other request (tools/call first) is sent at most once. */
const READS = new Set(['initialize', 'ping', 'tools/list', 'resources/list', 'resources/templates/list', 'resources/read', 'prompts/list', 'prompts/get', 'completion/complete', 'logging/setLevel']);

/** The service's answer read into memory at most (an SSE stream is read message by message). */
const MAX_JSON_ANSWER = 32 * 1024 * 1024;

/** The service ended an answer without the response it owed (the stream closed early, an empty body). */
export class NoAnswerError extends NetworkError {
  constructor(what: string) {
    super(`the service's answer to ${what} ended before its result`, 'GSH_MCP_NO_ANSWER', 'Try again; --debug shows the exchange.');
    this.name = 'NoAnswerError';
  }
}

export interface LinkOptions {
  client: ApiClient;
  /** What the service sends that is not the answer awaited: notifications, its own requests. */
  onMessage(message: RpcMessage): void;
  /** --debug lines. */
  trace?(line: string): void;
  /** How long an answer may take to begin and between its chunks (--tool-timeout: a tool answers when it is done). */
  answerTimeoutMs: number;
}

export interface Sent {
  answer: RpcMessage | undefined;
  /** x-request-id of each POST it took (a re-initialized session: more than one). */
  requestIds: string[];
}

export class ServiceLink {
  sessionId: string | undefined;
  protocolVersion: string | undefined;
  /** The client's initialize request and its initialized notification: replayed for a new session. */
  private initialize: RpcMessage | undefined;
  private initialized = false;
  private stream: AbortController | undefined;
  private reinitializing: Promise<void> | undefined;
  private ownIds = 0;
  private closed = false;

  constructor(private readonly opts: LinkOptions) {}

  /**
   * Sends one message; resolves with the response when it is a request. A session the service
   * forgot is initialized again and the message sent once more (a 404 proves it was not run).
   */
  async send(message: RpcMessage, signal?: AbortSignal): Promise<Sent> {
    const requestIds: string[] = [];
    if (message.method === 'initialize') this.initialize = message;
    try {
      return { answer: await this.post(message, requestIds, signal), requestIds };
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 404 && this.sessionId !== undefined && message.method !== 'initialize')) throw err;
      this.opts.trace?.(`! the service forgot MCP session ${this.sessionId} (404): initializing a new one and sending ${message.method ?? 'the message'} again`);
      await this.renew(requestIds);
      return { answer: await this.post(message, requestIds, signal), requestIds };
    }
  }

  /** Marks the session initialized (the client's notification went through) and opens the GET stream. */
  opened(): void {
    this.initialized = true;
    this.openStream();
  }

  /** Ends the GET stream and the session (DELETE); a service that offers no DELETE (405) is fine. */
  async close(): Promise<void> {
    this.closed = true;
    this.stream?.abort();
    if (this.sessionId === undefined) return;
    try {
      await this.opts.client.request({ method: 'DELETE', path: '/mcp', headers: this.headers(), resend: 'safe', afterInterrupt: true });
    } catch (err) {
      if (!(err instanceof GshError)) throw err;
      this.opts.trace?.(`! ending the MCP session: ${err.message}`);
    }
  }

  private renew(requestIds: string[]): Promise<void> {
    this.reinitializing ??= (async () => {
      const init = this.initialize;
      if (!init) throw new GshError('the service forgot the MCP session before it was initialized');
      this.stream?.abort();
      this.sessionId = undefined;
      const answer = await this.post({ ...init, id: `gsh-reinitialize-${++this.ownIds}` }, requestIds);
      if (answer?.error) throw new GshError(`the service refused to initialize a new MCP session: ${answer.error.message}`);
      if (this.initialized) {
        await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' }, requestIds);
        this.openStream();
      }
    })().finally(() => (this.reinitializing = undefined));
    return this.reinitializing;
  }

  private headers(): Record<string, string> {
    return {
      ...(this.sessionId !== undefined ? { 'mcp-session-id': this.sessionId } : {}),
      ...(this.protocolVersion !== undefined ? { 'mcp-protocol-version': this.protocolVersion } : {}),
    };
  }

  private async post(message: RpcMessage, requestIds: string[], signal?: AbortSignal): Promise<RpcMessage | undefined> {
    const awaited = isRequest(message);
    let answer: RpcMessage | undefined;
    const take = (m: RpcMessage) => {
      if (awaited && isResponse(m) && m.id === message.id) answer = m;
      else this.opts.onMessage(m);
    };
    const spec: RequestSpec = {
      method: 'POST',
      path: '/mcp',
      body: message,
      headers: { accept: 'application/json, text/event-stream', ...this.headers() },
      resend: awaited && READS.has(message.method!) ? 'safe' : 'never',
      idleTimeoutMs: this.opts.answerTimeoutMs,
      ...(signal ? { signal } : {}),
      sink: async (body, headers) => {
        if (message.method === 'initialize' && headers['mcp-session-id']) this.sessionId = headers['mcp-session-id'];
        if ((headers['content-type'] ?? '').includes('text/event-stream')) {
          for await (const m of sseMessages(body)) {
            take(m);
            // The response ends the exchange (the service should close the stream after it).
            if (answer) return;
          }
          return;
        }
        const text = await readText(body);
        if (text.trim() === '') return;
        const parsed = text.trim().startsWith('[') ? (JSON.parse(text) as unknown[]).map((m) => parseMessage(JSON.stringify(m))) : [parseMessage(text)];
        for (const m of parsed) if (m) take(m);
      },
    };
    const res = await this.opts.client.request(spec);
    if (res.requestId) requestIds.push(res.requestId);
    if (awaited && !answer) throw new NoAnswerError(message.method!);
    if (message.method === 'initialize' && typeof answer?.result?.protocolVersion === 'string') this.protocolVersion = answer.result.protocolVersion;
    return answer;
  }

  /** The GET stream where the service offers one (405: it does not); what comes on it goes to the client. */
  private openStream(): void {
    if (this.closed || this.sessionId === undefined) return;
    const abort = new AbortController();
    this.stream = abort;
    void this.opts.client.request({
      method: 'GET',
      path: '/mcp',
      headers: { accept: 'text/event-stream', ...this.headers() },
      signal: abort.signal,
      // The service's own stream may stay quiet as long as the session lasts.
      idleTimeoutMs: 0,
      sink: async (body) => {
        for await (const m of sseMessages(body)) this.opts.onMessage(m);
      },
    }).catch((err: unknown) => {
      if (abort.signal.aborted) return;
      const offered = !(err instanceof ApiError && (err.status === 405 || err.status === 404));
      if (offered) this.opts.trace?.(`! the MCP GET stream ended: ${(err as Error).message}`);
    });
  }
}

async function readText(body: AsyncIterable<Uint8Array>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_JSON_ANSWER) throw new GshError(`the service's MCP answer is larger than ${MAX_JSON_ANSWER / 1024 / 1024} MiB`);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
}
