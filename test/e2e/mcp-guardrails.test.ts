import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type E2E, setup } from './helpers.js';
import { callsReceived, listAll, proxy } from './mcp-helpers.js';

// The bridge's gate (issue 52 "Guardrails, the same for listing and calling"; DESIGN.md "MCP
// bridge"): what a flag hides from tools/list, tools/call refuses, and a refused call never
// reaches the service. A tool without annotations is a write (fail closed). Bad flags stop
// start-up with exit 2.

let t: E2E;
beforeAll(async () => {
  t = await setup({ servers: 4 });
});
afterAll(async () => {
  await t.close();
});

const servers = () => [...t.sandbox.state.servers.values()].sort((a, b) => a.name.localeCompare(b.name));

async function gated(args: string[], call: { name: string; arguments: Record<string, unknown> }) {
  const p = proxy(t, args);
  try {
    await p.initialize();
    const names = (await listAll(p)).map((x) => x.name);
    const before = callsReceived(t, call.name).length;
    const answer = await p.request('tools/call', call);
    return { names, answer, reached: callsReceived(t, call.name).length - before };
  } finally {
    await p.close();
  }
}

describe('the gate on list and call alike', () => {
  it('--read-only keeps only readOnlyHint tools; the unannotated rename_server is a write, refused unsent', async () => {
    const s = servers()[0]!;
    const r = await gated(['--read-only'], { name: 'rename_server', arguments: { server_id: s.id, name: 'x' } });
    expect(r.names).toEqual(['list_servers', 'get_server', 'list_files', 'read_file', 'list_backups', 'get_balance', 'check_server_health']);
    expect(r.answer.result.isError).toBe(true);
    expect(r.answer.result.content[0].text).toMatch(/--read-only: rename_server may change something \(it has no annotations, so gsh counts it as a write\)/);
    expect(r.reached).toBe(0);
    expect(s.name).not.toBe('x');
  });

  it('the destructive gate: delete_server hidden and refused without --allow-destructive', async () => {
    const s = servers()[1]!;
    const r = await gated([], { name: 'delete_server', arguments: { server_id: s.id } });
    expect(r.names).not.toContain('delete_server');
    expect(r.names).toContain('rename_server');
    expect(r.answer.result.content[0].text).toMatch(/delete_server is destructive .*--allow-destructive/);
    expect(r.reached).toBe(0);
    expect(t.sandbox.state.servers.has(s.id)).toBe(true);
  });

  it('--tools and --exclude-tools globs', async () => {
    const r = await gated(['--tools', 'list_*,get_*', '--exclude-tools', 'list_files'], { name: 'list_files', arguments: { server_id: servers()[0]!.id } });
    expect(r.names).toEqual(['list_servers', 'get_server', 'list_backups', 'get_balance']);
    expect(r.answer.result.content[0].text).toMatch(/excluded by --exclude-tools list_files/);
    expect(r.reached).toBe(0);
  });

  it('--servers (names resolved by gsh) refuses a call on another server, allows one inside', async () => {
    const [inside, outside] = servers();
    const r = await gated(['--servers', inside!.name], { name: 'get_server', arguments: { server_id: outside!.id } });
    expect(r.answer.result.content[0].text).toMatch(/outside --servers/);
    expect(r.reached).toBe(0);
    const ok = await gated(['--servers', inside!.name], { name: 'get_server', arguments: { server_id: inside!.id } });
    expect(ok.answer.result.isError).toBeFalsy();
    expect(ok.reached).toBe(1);
  });

  it('a confirming client (elicitation) sees destructive tools listed and is asked; declining refuses unsent', async () => {
    const s = servers()[2]!;
    const p = proxy(t);
    try {
      await p.initialize({ elicitation: {} });
      expect((await listAll(p)).map((x) => x.name)).toContain('delete_server');
      const answer = p.request('tools/call', { name: 'delete_server', arguments: { server_id: s.id } });
      let ask: any;
      for (let i = 0; i < 200 && !ask; i++) {
        ask = p.messages().find((m) => m.method === 'elicitation/create');
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(ask.params.message).toContain('delete_server');
      p.ctx.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: ask.id, result: { action: 'decline' } })}\n`);
      const r = await answer;
      expect(r.result.content[0].text).toMatch(/did not confirm/);
      expect(callsReceived(t, 'delete_server')).toHaveLength(0);
      expect(t.sandbox.state.servers.has(s.id)).toBe(true);
    } finally {
      await p.close();
    }
  });
});

describe('confirmed through elicitation', () => {
  it('accepting runs the destructive call once', async () => {
    const s = servers()[3]!;
    const p = proxy(t);
    try {
      await p.initialize({ elicitation: {} });
      const answer = p.request('tools/call', { name: 'write_file', arguments: { server_id: s.id, path: '/confirmed.txt', content: 'yes' } });
      let ask: any;
      for (let i = 0; i < 200 && !ask; i++) {
        ask = p.messages().find((m) => m.method === 'elicitation/create');
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(ask.params.requestedSchema.properties.confirm.type).toBe('boolean');
      p.ctx.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: { confirm: true } } })}\n`);
      const r = await answer;
      expect(r.result.isError, JSON.stringify(r)).toBeFalsy();
      expect(callsReceived(t, 'write_file')).toHaveLength(1);
    } finally {
      await p.close();
    }
  });
});

describe('bad flags stop start-up', () => {
  it.each([
    [['--tool-timeout', 'soon'], /--tool-timeout takes a duration/],
    [['--tools', 'a,,b'], /--tools has an empty glob/],
    [['--exclude-tools', 'bad glob!'], /not a tool glob/],
    [['--servers', '-'], /standard input is the client's/],
    [['--servers', 'nomatch-*'], /nomatch-\*/],
  ])('%j', async (args, words) => {
    const before = t.sandbox.log.filter((e) => e.path === '/mcp').length;
    const r = await t.gsh(['mcp', 'proxy', ...args]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(words);
    expect(t.sandbox.log.filter((e) => e.path === '/mcp').length).toBe(before);
  });
});
