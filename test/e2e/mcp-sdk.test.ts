import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mcpOf } from '../../src/sandbox/mcp/endpoint.js';
import { type E2E, GSH, setup } from './helpers.js';
import { callsReceived } from './mcp-helpers.js';

// Issue 52, "Tested with a real client nobody here wrote": the official MCP TypeScript SDK's
// Client and StdioClientTransport start the real binary (`node bin/gsh.js mcp proxy`, built by
// `npm run build`) as an AI client does, with nothing but the config dir in its environment: the
// credential comes from the profile `gsh auth login` saved, never from argv or the client's
// configuration. It lists every tool (following pagination) and calls a read and a write tool,
// with JSON and with SSE answers; the write acts once. Every client is closed (its process ends).

let t: E2E;
const clients: Client[] = [];
beforeAll(async () => {
  t = await setup({ servers: 3 });
  const login = await t.gsh(['auth', 'login'], { env: { GSH_API_KEY: undefined }, input: `${t.sandbox.keys.all}\n` });
  expect(login.exitCode, login.stderr).toBe(0);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await t.close();
});

async function connect(args: string[] = []): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [GSH, 'mcp', 'proxy', ...args],
    // What a desktop client passes: its own few variables (HOME, PATH…), none of gsh's but the config dir.
    env: { HOME: process.env.HOME ?? '', PATH: process.env.PATH ?? '', GSH_CONFIG_DIR: t.configDir },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'sdk-e2e', version: '1.0.0' });
  clients.push(client);
  await client.connect(transport);
  return { client, transport };
}

describe.each(['json', 'sse'] as const)('the SDK client through gsh mcp proxy, %s answers', (answers) => {
  it('lists every tool over the pages, calls a read and a write tool; the write acts once', async () => {
    mcpOf(t.sandbox.extensions.context).settings.answers = answers;
    const { client } = await connect(['--allow-destructive']);
    expect(client.getServerVersion()?.name).toBe('gsh-sandbox');
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.listTools(cursor ? { cursor } : {});
      names.push(...page.tools.map((x) => x.name));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(names).toHaveLength(13);
    const id = [...t.sandbox.state.servers.keys()].sort()[0]!;
    const read = await client.callTool({ name: 'get_server', arguments: { server_id: id } });
    expect(read.isError).toBeFalsy();
    const before = t.sandbox.effects.length;
    const calls = callsReceived(t, 'rename_server').length;
    const write = await client.callTool({ name: 'rename_server', arguments: { server_id: id, name: `sdk-${answers}` } });
    expect(write.isError, JSON.stringify(write)).toBeFalsy();
    expect(t.sandbox.state.servers.get(id)!.name).toBe(`sdk-${answers}`);
    expect(t.sandbox.effects.slice(before)).toHaveLength(1);
    expect(callsReceived(t, 'rename_server').length - calls).toBe(1);
    // The request carried the profile's key: nothing secret was handed to the process.
    expect(t.sandbox.log.filter((e) => e.path === '/mcp').at(-1)!.keyId).toBe('key_1');
  });
});

describe('the SDK client and the guardrails', () => {
  it('--read-only: the list holds only read-only tools and a write call is refused, unsent', async () => {
    mcpOf(t.sandbox.extensions.context).settings.answers = 'json';
    const { client } = await connect(['--read-only']);
    const { tools } = await client.listTools();
    expect(tools.every((x) => x.annotations?.readOnlyHint === true)).toBe(true);
    const calls = callsReceived(t, 'rename_server').length;
    const r = await client.callTool({ name: 'rename_server', arguments: { server_id: 'x', name: 'y' } });
    expect(r.isError).toBe(true);
    expect((r.content as { text: string }[])[0]!.text).toMatch(/--read-only/);
    expect(callsReceived(t, 'rename_server').length).toBe(calls);
  });
});

describe('the bridge process', () => {
  it('ends on SIGTERM with 143, after ending its session (DELETE)', async () => {
    const child = spawn(process.execPath, [GSH, 'mcp', 'proxy'], { env: { HOME: process.env.HOME ?? '', PATH: process.env.PATH ?? '', GSH_CONFIG_DIR: t.configDir }, stdio: ['pipe', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } })}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    for (let i = 0; i < 200 && !out.includes('"id":1'); i++) await new Promise((r) => setTimeout(r, 25));
    const deletes = t.sandbox.log.filter((e) => e.path === '/mcp' && e.method === 'DELETE').length;
    await new Promise((r) => setTimeout(r, 200));
    child.kill('SIGTERM');
    expect(await exited).toBe(143);
    expect(t.sandbox.log.filter((e) => e.path === '/mcp' && e.method === 'DELETE').length).toBe(deletes + 1);
  });
});

describe('gsh mcp doctor', () => {
  it('starts the bridge from an empty environment, initializes, lists the tools', async () => {
    const r = await t.gsh(['mcp', 'doctor'], { env: { GSH_API_KEY: undefined, GSH_BASE_URL: undefined } });
    expect(r.exitCode, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/^ok {3}initialized in \d+ ms: gsh-sandbox 1\.0\.0, protocol 2025-06-18$/m);
    expect(r.stdout).toMatch(/^ok {3}11 tools offered/m);
  });

  it('names what is wrong: no credential where the client starts it', async () => {
    const r = await t.gsh(['mcp', 'doctor'], { env: { GSH_CONFIG_DIR: `${t.configDir}-none` } });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/^FAIL initialize: .*gsh auth login/m);
    expect(r.stderr).toMatch(/GSH_API_KEY is set here, but an AI client does not pass it on/);
  });
});
