import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpOf } from '../../src/sandbox/mcp/endpoint.js';
import { type E2E, setup, STRICT } from './helpers.js';
import { callsReceived, listAll, proxy } from './mcp-helpers.js';

// `gsh mcp proxy` in this process against the sandbox's /mcp (issue 52; 01-general-contract.md
// "What the service does", item 6; the MCP specification's Streamable HTTP transport): the relay,
// both answer types, sessions, the guardrails, failures as answers, a lost write.

let t: E2E;
beforeAll(async () => {
  t = await setup({ servers: 4 });
});
afterAll(async () => {
  await t.close();
});

const firstServer = () => [...t.sandbox.state.servers.values()].sort((a, b) => a.name.localeCompare(b.name))[0]!;
const settings = () => mcpOf(t.sandbox.extensions.context).settings;

describe.each(['json', 'sse'] as const)('the relay, %s answers', (answers) => {
  it('lists every tool over the pages and calls a read and a write tool; the write acts once', async () => {
    settings().answers = answers;
    const p = proxy(t, ['--allow-destructive']);
    try {
      const init = await p.initialize();
      // The strict sandbox speaks only the older revision (and answers every request as SSE).
      expect(init.result.protocolVersion).toBe(STRICT ? '2025-03-26' : '2025-06-18');
      const tools = await listAll(p);
      expect(tools.length).toBe(13);
      const s = firstServer();
      const got = await p.request('tools/call', { name: 'get_server', arguments: { server_id: s.id } });
      expect(JSON.parse(got.result.content[0].text).data.id).toBe(s.id);
      const before = t.sandbox.effects.length;
      const renamed = await p.request('tools/call', { name: 'rename_server', arguments: { server_id: s.id, name: `renamed-${answers}` } });
      expect(renamed.result.isError, JSON.stringify(renamed)).toBeFalsy();
      expect(t.sandbox.effects.slice(before).filter((e) => e.route === '/servers/{server_id}/settings')).toHaveLength(1);
      // The service's GET stream was opened where it is offered (the strict sandbox offers none: 405).
      expect(t.sandbox.log.filter((e) => e.path === '/mcp' && e.method === 'GET').at(-1)?.status).toBe(STRICT ? 405 : 200);
      // Every POST after initialize named the session and the protocol version.
      const posts = t.sandbox.log.filter((e) => e.path === '/mcp' && e.method === 'POST').slice(-4);
      expect(posts.every((e) => e.status === 200)).toBe(true);
    } finally {
      expect(await p.close()).toBe(0);
    }
    // The session was ended on exit (the strict sandbox offers no DELETE: 405, which is fine).
    expect(t.sandbox.log.filter((e) => e.path === '/mcp' && e.method === 'DELETE').at(-1)?.status).toBe(STRICT ? 405 : 200);
  });
});

describe('sessions and credentials', () => {
  it('a session the service forgot is initialized again and the call sent once more, unseen by the client', async () => {
    settings().answers = 'json';
    const p = proxy(t);
    try {
      await p.initialize();
      await listAll(p);
      mcpOf(t.sandbox.extensions.context).forgetSessions();
      const s = firstServer();
      const got = await p.request('tools/call', { name: 'get_server', arguments: { server_id: s.id } });
      expect(got.result.isError).toBeFalsy();
      const mcp = t.sandbox.log.filter((e) => e.path === '/mcp' && e.method === 'POST').slice(-4);
      expect(mcp.map((e) => [(e.body as any).method, e.status])).toEqual([
        ['tools/call', 404], ['initialize', 200], ['notifications/initialized', 202], ['tools/call', 200],
      ]);
    } finally {
      await p.close();
    }
  });

  it('a revoked key: the call is an error within 5 s naming gsh auth login', async () => {
    const key = t.sandbox.createKey(['*']);
    const p = proxy(t, [], { GSH_API_KEY: key });
    try {
      await p.initialize();
      await listAll(p);
      t.sandbox.revokeKey(key);
      const started = Date.now();
      const r = await p.request('tools/call', { name: 'list_servers', arguments: {} });
      expect(Date.now() - started).toBeLessThan(5000);
      const text = r.result?.content?.[0]?.text ?? r.error?.message;
      expect(text).toMatch(/HTTP 401/);
      expect(text).toContain('gsh auth login');
    } finally {
      await p.close();
    }
  });

  it('not logged in: the bridge still starts and answers initialize with the way to log in', async () => {
    const p = proxy(t, [], { GSH_API_KEY: undefined, GSH_BASE_URL: undefined });
    try {
      const r = await p.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } });
      expect(r.error.message).toMatch(/gsh auth login/);
    } finally {
      await p.close();
    }
  });
});

describe('a lost answer', () => {
  it('a write whose answer is lost runs once and the client hears it may have been applied', async () => {
    settings().answers = 'json';
    const p = proxy(t);
    try {
      await p.initialize();
      await listAll(p);
      const s = firstServer();
      const effects = t.sandbox.effects.length;
      t.sandbox.inject({ kind: 'lost', path: '/mcp' });
      const r = await p.request('tools/call', { name: 'send_command', arguments: { server_id: s.id, command: 'say hi' } });
      expect(r.result.isError).toBe(true);
      expect(r.result.content[0].text).toMatch(/may have been applied/);
      expect(callsReceived(t, 'send_command')).toHaveLength(1);
      expect(t.sandbox.effects.slice(effects).filter((e) => e.route === '/servers/{server_id}/commands')).toHaveLength(1);
    } finally {
      await p.close();
    }
  });
});
