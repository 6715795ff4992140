import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { mcpOf } from '../../src/sandbox/mcp/endpoint.js';
import { HOSTILE } from '../../src/sandbox/hostile.js';
import { call } from './helpers.js';

// The sandbox's MCP server (01-general-contract.md "What the service does", item 6: Streamable
// HTTP, the same bearer as REST), driven by the official MCP SDK's own HTTP client so that it is
// checked against an implementation nobody here wrote, in both answer modes and in strict mode.

const opened: Sandbox[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

async function connect(opts: { strict?: boolean; hostile?: boolean; answers?: 'json' | 'sse'; key?: string } = {}) {
  const sb = await startSandbox({ strict: opts.strict === true, hostile: opts.hostile === true });
  opened.push(sb);
  mcpOf(sb.extensions.context).settings.answers = opts.answers ?? 'json';
  const transport = new StreamableHTTPClientTransport(new URL(`${sb.baseUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${opts.key ?? sb.keys.all}` } } });
  const client = new Client({ name: 'sandbox-test', version: '1.0.0' });
  await client.connect(transport);
  return { sb, client, transport };
}

async function allTools(client: Client) {
  const tools = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
    pages++;
  } while (cursor);
  return { tools, pages };
}

describe.each(['json', 'sse'] as const)('the sandbox MCP server, %s answers', (answers) => {
  it('lists its tools over pages, with annotations and one tool without', async () => {
    const { client } = await connect({ answers });
    const { tools, pages } = await allTools(client);
    expect(pages).toBeGreaterThan(1);
    expect(tools.map((t) => t.name)).toContain('delete_server');
    expect(tools.find((t) => t.name === 'rename_server')!.annotations).toBeUndefined();
    expect(tools.find((t) => t.name === 'list_servers')!.annotations?.readOnlyHint).toBe(true);
    expect(tools.find((t) => t.name === 'delete_server')!.annotations?.destructiveHint).toBe(true);
    await client.close();
  });

  it('a tool acts on the sandbox state through its REST request, once', async () => {
    const { sb, client } = await connect({ answers });
    const id = [...sb.state.servers.keys()][0]!;
    const got = await client.callTool({ name: 'get_server', arguments: { server_id: id } });
    expect(got.isError).toBeFalsy();
    expect(JSON.parse((got.content as { text: string }[])[0]!.text).data.id).toBe(id);
    const renamed = await client.callTool({ name: 'rename_server', arguments: { server_id: id, name: 'renamed-by-mcp' } });
    expect(renamed.isError, JSON.stringify(renamed)).toBeFalsy();
    expect(sb.state.servers.get(id)!.name).toBe('renamed-by-mcp');
    expect(sb.effects.filter((e) => e.route === '/servers/{server_id}/settings')).toHaveLength(1);
    await client.close();
  });

  it('a failed REST request is a tool error holding the error envelope', async () => {
    const { client } = await connect({ answers });
    const r = await client.callTool({ name: 'get_server', arguments: { server_id: 'nosuch00' } });
    expect(r.isError).toBe(true);
    expect(JSON.parse((r.content as { text: string }[])[0]!.text).error.code).toBe('not_found');
    await client.close();
  });
});

describe('the sandbox MCP server: progress, sessions, credentials, modes', () => {
  it('the long tool reports progress on an SSE answer', async () => {
    const { sb, client } = await connect({ answers: 'sse' });
    const seen: number[] = [];
    const r = await client.callTool({ name: 'check_server_health', arguments: { server_id: [...sb.state.servers.keys()][0]!, seconds: 0.5 } }, undefined, {
      onprogress: (p) => seen.push(p.progress),
    });
    expect(r.isError).toBeFalsy();
    expect(seen).toEqual([1, 2]);
    await client.close();
  });

  it('a forgotten session is 404; no bearer is 401 with WWW-Authenticate; GET needs a session; DELETE ends one', async () => {
    const { sb, client, transport } = await connect();
    const session = transport.sessionId!;
    expect(session).toMatch(/^[0-9a-f]{32}$/);
    const headers = { accept: 'application/json, text/event-stream', 'mcp-session-id': session, 'content-type': 'application/json' };
    const ping = { jsonrpc: '2.0', id: 9, method: 'ping' };
    expect((await call(sb, 'POST', '/mcp', { body: ping, headers })).status).toBe(200);
    const anon = await call(sb, 'POST', '/mcp', { body: ping, headers, key: null });
    expect(anon.status).toBe(401);
    expect(anon.headers.get('www-authenticate')).toContain('resource_metadata');
    expect((await call(sb, 'POST', '/mcp', { body: ping, headers: { ...headers, accept: 'application/json' } })).status).toBe(406);
    mcpOf(sb.extensions.context).forgetSessions();
    expect((await call(sb, 'POST', '/mcp', { body: ping, headers })).status).toBe(404);
    await client.close();
  });

  it('a session unused longer than its lifetime is forgotten (404)', async () => {
    const { sb, client, transport } = await connect();
    mcpOf(sb.extensions.context).settings.sessionTtlMs = 50;
    await new Promise((r) => setTimeout(r, 120));
    const headers = { accept: 'application/json, text/event-stream', 'mcp-session-id': transport.sessionId!, 'content-type': 'application/json' };
    expect((await call(sb, 'POST', '/mcp', { body: { jsonrpc: '2.0', id: 1, method: 'ping' }, headers })).status).toBe(404);
    await client.close();
  });

  it('strict: 2025-03-26 only, every answer SSE, no titles or structured content, no GET stream', async () => {
    const { sb, client, transport } = await connect({ strict: true });
    expect(transport.protocolVersion).toBe('2025-03-26');
    const { tools } = await allTools(client);
    expect(tools.every((t) => t.title === undefined)).toBe(true);
    const r = await client.callTool({ name: 'get_balance', arguments: {} });
    expect(r.structuredContent).toBeUndefined();
    const get = await call(sb, 'GET', '/mcp', { headers: { accept: 'text/event-stream', 'mcp-session-id': transport.sessionId! } });
    expect(get.status).toBe(405);
    await client.close();
  });

  it('hostile: titles, descriptions and result text carry the hostile payload; names keep their bytes', async () => {
    const { client } = await connect({ hostile: true });
    const { tools } = await allTools(client);
    expect(tools.every((t) => /^[a-z_]+$/.test(t.name))).toBe(true);
    expect(tools.every((t) => t.description!.includes(HOSTILE.slice(0, 8)))).toBe(true);
    await client.close();
  });
});
