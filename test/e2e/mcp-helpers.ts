import type { Clock } from '../../src/core/run/context.js';
import { run } from '../../src/program.js';
import { testContext, type TestContext } from '../helpers/context.js';
import { type E2E, runEnv } from './helpers.js';

// `gsh mcp proxy` in this process (ARCHITECTURE.md "Tests": in-process first): its standard input
// held open, each JSON-RPC line written as the client would, its standard output read as lines.

export interface ProxySession {
  ctx: TestContext;
  /** Sends a request and resolves with its answer (the message with its id). */
  request(method: string, params?: Record<string, unknown>, timeoutMs?: number): Promise<any>;
  notify(method: string, params?: Record<string, unknown>): void;
  /** Every message the proxy wrote so far. */
  messages(): any[];
  /** initialize + notifications/initialized. */
  initialize(capabilities?: Record<string, unknown>): Promise<any>;
  /** Ends standard input; resolves with the exit code. */
  close(): Promise<number>;
  /** Resolves with the exit code when the proxy ends on its own. */
  readonly exited: Promise<number>;
  readonly stderr: () => string;
}

export function proxy(t: E2E, args: string[] = [], env: Record<string, string | undefined> = {}, clock?: Clock): ProxySession {
  const ctx = testContext({ env: runEnv(t.env(env)), stdinOpen: true, ...(clock ? { clock } : {}) });
  const exited = run(['mcp', 'proxy', ...args], ctx);
  let next = 0;
  const messages = () => ctx.stdout.text().split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const request = async (method: string, params?: Record<string, unknown>, timeoutMs = 20_000) => {
    const id = ++next;
    ctx.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) })}\n`);
    const end = Date.now() + timeoutMs;
    for (;;) {
      const found = messages().find((m) => m.id === id && !('method' in m));
      if (found) return found;
      if (Date.now() > end) throw new Error(`no answer to ${method} in ${timeoutMs} ms; stderr: ${ctx.stderr.text()}; stdout: ${ctx.stdout.text()}`);
      const done = await Promise.race([exited.then(() => true), new Promise((r) => setTimeout(() => r(false), 20))]);
      if (done && !messages().find((m) => m.id === id)) throw new Error(`the proxy ended; stderr: ${ctx.stderr.text()}`);
    }
  };
  const notify = (method: string, params?: Record<string, unknown>) => ctx.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method, ...(params ? { params } : {}) })}\n`);
  return {
    ctx,
    request,
    notify,
    messages,
    initialize: async (capabilities = {}) => {
      const answer = await request('initialize', { protocolVersion: '2025-06-18', capabilities, clientInfo: { name: 'test', version: '1' } });
      notify('notifications/initialized');
      return answer;
    },
    close: async () => {
      ctx.stdin.end();
      return exited;
    },
    exited,
    stderr: () => ctx.stderr.text(),
  };
}

/** Every tool of every page, as the proxy lists them. */
export async function listAll(p: ProxySession): Promise<any[]> {
  const tools: any[] = [];
  let cursor: string | undefined;
  do {
    const page = await p.request('tools/list', cursor ? { cursor } : {});
    if (page.error) throw new Error(JSON.stringify(page.error));
    tools.push(...page.result.tools);
    cursor = page.result.nextCursor;
  } while (cursor);
  return tools;
}

/** The tools/call requests the service received (by tool name, or all). */
export const callsReceived = (t: E2E, name?: string) =>
  t.sandbox.log.filter((e) => e.path === '/mcp' && (e.body as any)?.method === 'tools/call' && (name === undefined || (e.body as any).params?.name === name));
