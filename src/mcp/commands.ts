import { Exit, GshError, UsageError } from '../core/errors.js';
import type { Runtime } from '../core/run/runtime.js';
import { readAll } from '../core/terminal/streams.js';
import { VERSION } from '../core/version.js';
import type { RpcMessage } from './messages.js';
import { type BridgeFlags, checkFlags, initializeOwn, openBridge } from './start.js';

// `gsh mcp tools` and `gsh mcp call`: the bridge driven by gsh itself, for people and scripts.
// The same gate, approvals, timeout and audit as the proxy; the service's text reaches a terminal
// only through the terminal door (rt.out and rt.io.stdout wrap terminals).

const MCP_REQUEST = [{ method: 'POST' as const, path: '/mcp', body: { jsonrpc: '2.0', method: 'initialize, then tools/list' } }];

export async function mcpTools(rt: Runtime, flags: BridgeFlags): Promise<number | void> {
  const checked = checkFlags(flags);
  return rt.submit({ requests: MCP_REQUEST, then: [] }, async () => {
    const opened = await openBridge(rt, checked, () => {});
    try {
      await initializeOwn(opened, VERSION);
      const tools = await opened.bridge.allTools();
      const rows = tools.map((t) => {
        const a = (t.annotations ?? {}) as Record<string, unknown>;
        const tool = t as { title?: string; description?: string };
        return rt.format === 'table'
          ? { name: t.name, title: tool.title ?? a.title ?? '', read_only: a.readOnlyHint === true ? 'yes' : 'no', destructive: a.destructiveHint === true ? 'yes' : t.annotations ? 'no' : '?', description: (tool.description ?? '').split('\n')[0] }
          : t;
      });
      await rt.out.show(rows, { columns: ['name', 'title', 'read_only', 'destructive', 'description'], idField: 'name' });
    } finally {
      await opened.link.close();
    }
  });
}

async function argumentsOf(rt: Runtime, given: string | undefined): Promise<Record<string, unknown>> {
  if (given === undefined) return {};
  const text = given === '-' ? (await readAll(rt.io.stdin)).toString('utf8') : given;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--args is not JSON: ${(err as Error).message}`, `Give one JSON object, e.g. --args '{"server_id":"ab12cd34"}'.`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError('--args must be one JSON object', `e.g. --args '{"server_id":"ab12cd34"}'`);
  return value as Record<string, unknown>;
}

export async function mcpCall(rt: Runtime, tool: string, flags: BridgeFlags & { args?: string }): Promise<number | void> {
  const checked = checkFlags(flags);
  const args = await argumentsOf(rt, flags.args);
  return rt.submit({ requests: [{ method: 'POST', path: '/mcp', body: { jsonrpc: '2.0', method: 'tools/call', params: { name: tool, arguments: args } } }], then: [] }, async () => {
    const notes: RpcMessage[] = [];
    const opened = await openBridge(rt, checked, (m) => notes.push(m));
    try {
      await initializeOwn(opened, VERSION);
      const end = await opened.bridge.call({ jsonrpc: '2.0', id: 'gsh-call', method: 'tools/call', params: { name: tool, arguments: args, _meta: { progressToken: 'gsh-call' } } });
      for (const n of notes) {
        const message = n.method === 'notifications/progress' ? n.params?.message : undefined;
        if (typeof message === 'string') rt.note(message);
      }
      const answer = end.answer;
      if (answer?.error) throw new GshError(answer.error.message.replace(/^gsh: /, ''), end.exitCode === Exit.ok ? Exit.error : end.exitCode);
      const result = answer?.result ?? {};
      if (rt.format !== 'table') {
        await rt.out.show(result);
        return end.exitCode;
      }
      const text = ((result.content as { type?: string; text?: string }[] | undefined) ?? []).filter((c) => c.type === 'text').map((c) => c.text ?? '').join('\n');
      if (result.isError === true) {
        rt.io.stderr.write(`error: ${text.replace(/^gsh: /, '')}\n`);
        return end.exitCode === Exit.ok ? Exit.error : end.exitCode;
      }
      rt.io.stdout.write(`${text}\n`);
      return end.exitCode;
    } finally {
      await opened.link.close();
    }
  });
}
