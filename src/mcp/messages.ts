// JSON-RPC 2.0 messages as MCP carries them, and the reading of an SSE stream (the MCP
// specification, "Transports": Streamable HTTP, revisions 2025-06-18 and 2025-03-26).

export type RpcId = string | number;

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

export interface RpcMessage {
  jsonrpc: '2.0';
  id?: RpcId | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: RpcError;
}

/** A request: a method and an id (a notification has no id; a response has no method). */
export const isRequest = (m: RpcMessage): boolean => m.method !== undefined && m.id !== undefined && m.id !== null;
export const isNotification = (m: RpcMessage): boolean => m.method !== undefined && (m.id === undefined || m.id === null);
export const isResponse = (m: RpcMessage): boolean => m.method === undefined && m.id !== undefined && ('result' in m || 'error' in m);

/** JSON-RPC's own error codes, and the one MCP uses for a request it cannot serve. */
export const RPC = { parse: -32700, invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602, internal: -32603, server: -32000 } as const;

export function errorAnswer(id: RpcId | null | undefined, code: number, message: string, data?: unknown): RpcMessage {
  return { jsonrpc: '2.0', id: id ?? null, error: { code, message, ...(data === undefined ? {} : { data }) } };
}

/** A message parsed from text, or undefined when it is not one JSON-RPC 2.0 object. */
export function parseMessage(text: string): RpcMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value) || (value as { jsonrpc?: unknown }).jsonrpc !== '2.0') return undefined;
  return value as RpcMessage;
}

/**
 * The JSON-RPC messages of an SSE stream, as they come: each event's `data` lines joined (an
 * event named other than `message` is not one; a comment or a field gsh does not read is skipped).
 */
export async function* sseMessages(body: AsyncIterable<Uint8Array>): AsyncGenerator<RpcMessage> {
  const decoder = new TextDecoder();
  let buffered = '';
  let data: string[] = [];
  let event = 'message';
  for await (const chunk of body) {
    buffered += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buffered.search(/\r\n|\r|\n/)) >= 0) {
      // A CR that ends the chunk may be the first half of a CRLF: wait for the next chunk.
      if (buffered[nl] === '\r' && nl === buffered.length - 1) break;
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + (buffered.startsWith('\r\n', nl) ? 2 : 1));
      if (line === '') {
        const text = data.join('\n');
        const isMessage = event === 'message';
        data = [];
        event = 'message';
        if (!isMessage || text === '') continue;
        const message = parseMessage(text);
        if (message) yield message;
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') data.push(value);
      else if (field === 'event') event = value;
    }
  }
}
