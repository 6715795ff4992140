import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realClock } from '../../src/core/run/context.js';
import { mcpOf } from '../../src/sandbox/mcp/endpoint.js';
import { agent, asProfile, until } from '../agent/helpers.js';
import { type E2E, setup } from './helpers.js';
import { callsReceived, listAll, proxy } from './mcp-helpers.js';

// The bridge with people in the loop (issue 52; 01-general-contract.md "Agent registration
// flow": Approvals, and the one-hour agent token): an approval waited for within --tool-timeout
// with progress saying where to approve, then the identical call once; a rejection; an agent
// token renewed unseen; progress and cancellation passed through; --tool-timeout; the audit log.

let t: E2E;
let logDir: string;
beforeAll(async () => {
  t = await setup({ servers: 5 });
  agent(t).configure({ claimIntervalS: 0.2, approvalIntervalS: 0.2 });
  logDir = mkdtempSync(join(tmpdir(), 'gsh-mcp-audit-'));
});
afterAll(async () => {
  await t.close();
  rmSync(logDir, { recursive: true, force: true });
});

async function loginAgent(profile: string): Promise<void> {
  const login = t.gsh(['auth', 'login', '--agent', '--email', 'demo@example.com'], { env: asProfile(profile), clock: realClock });
  let exited = false;
  void login.finally(() => (exited = true));
  const claim = await until(() => exited || [...agent(t).claims.values()].find((c) => c.userCode && !c.completed && !c.spent), 20_000);
  if (claim !== true) agent(t).completeClaim(claim.userCode);
  expect((await login).exitCode).toBe(0);
}

const servers = () => [...t.sandbox.state.servers.values()].sort((a, b) => a.name.localeCompare(b.name));
const settings = () => mcpOf(t.sandbox.extensions.context).settings;

describe('approvals', () => {
  it('an approval given 3 s into a delete_server call completes it: progress says where, one deletion', async () => {
    await loginAgent('approver');
    settings().answers = 'sse';
    const s = servers().at(-1)!;
    const p = proxy(t, ['--allow-destructive', '--tool-timeout', '60s'], asProfile('approver'));
    try {
      await p.initialize();
      await listAll(p);
      const started = Date.now();
      const answer = p.request('tools/call', { name: 'delete_server', arguments: { server_id: s.id }, _meta: { progressToken: 'del-1' } }, 30_000);
      await new Promise((r) => setTimeout(r, 3000));
      expect(agent(t).decide(undefined, 'approved')).toBeTruthy();
      const r = await answer;
      expect(r.result.isError, JSON.stringify(r)).toBeFalsy();
      expect(Date.now() - started).toBeGreaterThanOrEqual(3000);
      const progress = p.messages().filter((m) => m.method === 'notifications/progress' && m.params.progressToken === 'del-1');
      expect(progress[0].params.message).toMatch(/approval at http:\/\/127\.0\.0\.1:\d+\/__sandbox\/agent\/approvals\//);
      expect(progress.map((m) => m.params.progress)).toEqual([...progress.map((m) => m.params.progress)].sort((a, b) => a - b));
      expect(t.sandbox.effects.filter((e) => e.method === 'DELETE' && e.path === `/servers/${s.id}`)).toHaveLength(1);
      expect(t.sandbox.state.servers.has(s.id)).toBe(false);
      expect(callsReceived(t, 'delete_server')).toHaveLength(2);
    } finally {
      await p.close();
    }
  });

  it('a rejection is an error saying so; nothing deleted', async () => {
    await loginAgent('rejected');
    settings().answers = 'json';
    const s = servers().at(-1)!;
    const p = proxy(t, ['--allow-destructive'], asProfile('rejected'));
    try {
      await p.initialize();
      const answer = p.request('tools/call', { name: 'delete_server', arguments: { server_id: s.id } }, 30_000);
      await until(() => [...agent(t).approvals.values()].some((a) => a.status === 'pending'));
      agent(t).decide(undefined, 'rejected');
      const r = await answer;
      expect(r.result.isError).toBe(true);
      expect(r.result.content[0].text).toMatch(/rejected/);
      expect(t.sandbox.state.servers.has(s.id)).toBe(true);
    } finally {
      await p.close();
    }
  });
});

describe('an agent token that expires', () => {
  it('is renewed before expiry without the client seeing anything', async () => {
    agent(t).configure({ tokenLifetimeS: 1 });
    try {
      await loginAgent('short');
      const p = proxy(t, [], asProfile('short'));
      try {
        await p.initialize();
        await listAll(p);
        for (let i = 0; i < 3; i++) {
          await new Promise((r) => setTimeout(r, 1100));
          const r = await p.request('tools/call', { name: 'list_servers', arguments: {} });
          expect(r.result.isError, JSON.stringify(r)).toBeFalsy();
        }
      } finally {
        await p.close();
      }
      expect(t.sandbox.log.filter((e) => e.path === '/mcp' && e.status === 401)).toHaveLength(0);
    } finally {
      agent(t).configure({ tokenLifetimeS: 3600 });
    }
  });
});

describe('an agent token revoked elsewhere', () => {
  it('is renewed once after the 401 and the request sent again: the client sees the answer', async () => {
    await loginAgent('after401');
    const p = proxy(t, [], asProfile('after401'));
    try {
      await p.initialize();
      await listAll(p);
      const data = JSON.parse(readFileSync(join(t.configDir, 'config.json'), 'utf8'));
      agent(t).tokens.get(data.profiles.after401.agent.access_token)!.revoked = true;
      const r = await p.request('tools/call', { name: 'list_servers', arguments: {} });
      expect(r.result.isError, JSON.stringify(r)).toBeFalsy();
      expect(t.sandbox.log.filter((e) => e.path === '/mcp').slice(-2).map((e) => e.status)).toEqual([401, 200]);
    } finally {
      await p.close();
    }
  });
});

describe('progress, cancellation, --tool-timeout', () => {
  it('progress from the service reaches the client', async () => {
    settings().answers = 'sse';
    const p = proxy(t);
    try {
      await p.initialize();
      const r = await p.request('tools/call', { name: 'check_server_health', arguments: { server_id: servers()[0]!.id, seconds: 0.5 }, _meta: { progressToken: 7 } });
      expect(r.result.isError).toBeFalsy();
      expect(p.messages().filter((m) => m.method === 'notifications/progress' && m.params.progressToken === 7).map((m) => m.params.progress)).toEqual([1, 2]);
    } finally {
      await p.close();
    }
  });

  it('--tool-timeout ends a long call with an error naming it, and the service is told to cancel', async () => {
    settings().answers = 'sse';
    const p = proxy(t, ['--tool-timeout', '1s']);
    try {
      await p.initialize();
      const started = Date.now();
      const r = await p.request('tools/call', { name: 'check_server_health', arguments: { server_id: servers()[0]!.id, seconds: 5 } });
      expect(Date.now() - started).toBeLessThan(3000);
      expect(r.result.isError).toBe(true);
      expect(r.result.content[0].text).toMatch(/ran past --tool-timeout 1s/);
      await until(() => t.sandbox.log.some((e) => (e.body as any)?.method === 'notifications/cancelled'));
    } finally {
      await p.close();
    }
  });

  it.each(['json', 'sse'] as const)('a tool that answers later than --request-timeout is waited for (--tool-timeout bounds it), %s', async (answers) => {
    settings().answers = answers;
    const r = await t.gsh(['--request-timeout', '1s', 'mcp', 'call', 'check_server_health', '--args', JSON.stringify({ server_id: servers()[0]!.id, seconds: 2 })]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).data.id).toBe(servers()[0]!.id);
  });

  it('a cancellation from the client passes through and owes no answer', async () => {
    settings().answers = 'sse';
    const p = proxy(t);
    try {
      await p.initialize();
      const cancelledBefore = t.sandbox.log.filter((e) => (e.body as any)?.method === 'notifications/cancelled').length;
      const callsBefore = callsReceived(t, 'check_server_health').length;
      // initialize was request 1: this call is request 2.
      void p.request('tools/call', { name: 'check_server_health', arguments: { server_id: servers()[0]!.id, seconds: 5 } }).catch(() => {});
      await until(() => callsReceived(t, 'check_server_health').slice(callsBefore).some((e) => e.status === null));
      p.notify('notifications/cancelled', { requestId: 2, reason: 'test' });
      await until(() => t.sandbox.log.filter((e) => (e.body as any)?.method === 'notifications/cancelled').length > cancelledBefore);
      await new Promise((r) => setTimeout(r, 300));
      expect(p.messages().find((m) => m.id === 2 && !('method' in m))).toBeUndefined();
    } finally {
      await p.close();
    }
  });
});

describe('the audit log', () => {
  it('holds one line per call, with arguments redacted and no secret', async () => {
    settings().answers = 'json';
    const file = join(logDir, 'audit.jsonl');
    const p = proxy(t, ['--log-file', file, '--read-only']);
    try {
      await p.initialize();
      await p.request('tools/call', { name: 'get_server', arguments: { server_id: servers()[0]!.id, secret: 'hunter2', token: 'tok_abc' } });
      await p.request('tools/call', { name: 'rename_server', arguments: { server_id: servers()[0]!.id, name: 'n' } });
      await p.request('tools/call', { name: 'list_servers', arguments: {} });
    } finally {
      await p.close();
    }
    const text = readFileSync(file, 'utf8');
    const lines = text.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.tool, l.outcome])).toEqual([['get_server', 'ok'], ['rename_server', 'refused'], ['list_servers', 'ok']]);
    expect(lines[0].arguments).toEqual({ server_id: servers()[0]!.id, secret: '[redacted]', token: '[redacted]' });
    expect(lines[0].request_ids[0]).toMatch(/^req_/);
    expect(lines[1].request_ids).toEqual([]);
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain(t.sandbox.keys.all);
    expect(lines.every((l) => typeof l.duration_ms === 'number' && l.profile)).toBe(true);
    const shown = await t.gsh(['mcp', 'log', '--log-file', file, '--tail', '2']);
    expect(shown.exitCode).toBe(0);
    expect(shown.stdout.split('\n').map((l) => JSON.parse(l).tool)).toEqual(['rename_server', 'list_servers']);
  });
});
