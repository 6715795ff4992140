import { describe, expect, it } from 'vitest';
import { parseMessage, sseMessages } from '../../../src/mcp/messages.js';
import { Policy } from '../../../src/mcp/policy.js';

// The bridge's pure parts: an SSE answer read message by message however its bytes are cut (the
// MCP specification's Streamable HTTP, over the WHATWG event-stream format), and the gate.

async function read(chunks: string[]): Promise<unknown[]> {
  async function* body() {
    for (const c of chunks) yield new TextEncoder().encode(c);
  }
  const out: unknown[] = [];
  for await (const m of sseMessages(body())) out.push(m);
  return out;
}

describe('sseMessages', () => {
  const a = { jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } };
  const b = { jsonrpc: '2.0', id: 3, result: { ok: true } };
  const stream = `: a comment\n\nid: 1\nevent: message\ndata: ${JSON.stringify(a)}\n\ndata: ${JSON.stringify(b)}\n\n`;

  it('reads every message, skipping comments and ids', async () => {
    expect(await read([stream])).toEqual([a, b]);
  });

  it('whatever the chunk boundaries, CRLF included (a CR at a chunk\'s end waits for its LF)', async () => {
    const crlf = stream.replace(/\n/g, '\r\n');
    for (const text of [stream, crlf]) {
      for (let cut = 1; cut < text.length; cut += 7) expect(await read([text.slice(0, cut), text.slice(cut)])).toEqual([a, b]);
      expect(await read([...text])).toEqual([a, b]);
    }
  });

  it('data on several lines is one message; an event of another name, or not JSON-RPC, is none', async () => {
    expect(await read([`data: {"jsonrpc":"2.0",\ndata: "id":1,"result":{}}\n\n`])).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
    expect(await read([`event: ping\ndata: ${JSON.stringify(a)}\n\ndata: {"x":1}\n\ndata: nope\n\n`])).toEqual([]);
  });

  it('parseMessage takes one JSON-RPC 2.0 object only', () => {
    expect(parseMessage('[{"jsonrpc":"2.0","id":1,"method":"ping"}]')).toBeUndefined();
    expect(parseMessage('{"id":1,"method":"ping"}')).toBeUndefined();
    expect(parseMessage('{"jsonrpc":"2.0","id":1,"method":"ping"}')).toEqual({ jsonrpc: '2.0', id: 1, method: 'ping' });
  });
});

describe('the gate', () => {
  const read = { name: 'get_x', annotations: { readOnlyHint: true } };
  const write = { name: 'set_x', annotations: { readOnlyHint: false } };
  const bare = { name: 'do_x' };
  const destructive = { name: 'rm_x', annotations: { destructiveHint: true } };

  it('--read-only fails closed: no annotations, or no readOnlyHint: true, is a write', () => {
    const p = new Policy({ readOnly: true, allowDestructive: true });
    expect([read, write, bare, destructive].map((t) => p.tool(t, false).allowed)).toEqual([true, false, false, false]);
  });

  it('destructive: refused, confirmed where the client can ask, allowed with --allow-destructive', () => {
    expect(new Policy({}).tool(destructive, false).allowed).toBe(false);
    expect(new Policy({}).tool(destructive, true)).toEqual({ allowed: true, confirm: 'destructive' });
    expect(new Policy({ allowDestructive: true }).tool(destructive, false)).toEqual({ allowed: true });
    expect(new Policy({}).tool(bare, false).allowed).toBe(true);
  });

  it('globs and --servers', () => {
    const p = new Policy({ tools: ['get_*', 'set_?'], excludeTools: ['set_x'] }, new Set(['ab12']));
    expect([read, write, bare].map((t) => p.tool(t, false).allowed)).toEqual([true, false, false]);
    expect(p.call({ server_id: 'ab12' }).allowed).toBe(true);
    expect(p.call({ server_id: 'cd34' }).allowed).toBe(false);
    expect(p.call({ server_id: 7 }).allowed).toBe(false);
    expect(p.call({}).allowed).toBe(true);
  });
});
