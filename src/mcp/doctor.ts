import type { Runtime } from '../core/run/runtime.js';
import { Exit } from '../core/errors.js';
import { fromService, visible } from '../core/terminal/terminal-text.js';
import { VERSION } from '../core/version.js';
import type { ServerEntry } from './install.js';
import { parseMessage, type RpcMessage } from './messages.js';

// `gsh mcp doctor`: starts the bridge as the AI client would (the entry a client's file holds, or
// the one `install` would write) from an empty environment (a desktop client passes almost
// none: no GSH_API_KEY, no shell PATH), initializes, lists every tool, and names the first thing
// that is wrong with the next step. Exit 0 when all is well, 1 otherwise.

/** What a client launched from the desktop still has: the home directory and the system's own. */
const KEPT = ['HOME', 'USERPROFILE', 'APPDATA', 'LOCALAPPDATA', 'SystemRoot', 'TMPDIR', 'TEMP', 'TMP'];

const STEP_TIMEOUT_MS = 15_000;

export async function doctor(rt: Runtime, entry: ServerEntry, where: string): Promise<number> {
  const { spawn } = await import('node:child_process');
  const out = (ok: boolean, line: string) => rt.io.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${line}\n`);
  const env: Record<string, string> = {};
  for (const k of KEPT) if (rt.env[k] !== undefined) env[k] = rt.env[k]!;
  Object.assign(env, entry.env ?? {});
  out(true, `the bridge: ${[entry.command, ...entry.args].join(' ')} (${where})`);
  if (rt.env.GSH_API_KEY || rt.env.GSH_TOKEN) {
    rt.note(`${rt.env.GSH_API_KEY ? 'GSH_API_KEY' : 'GSH_TOKEN'} is set here, but an AI client does not pass it on: the bridge uses gsh's store (gsh auth login).`);
  }
  const child = spawn(entry.command, entry.args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const messages: RpcMessage[] = [];
  let buffered = '';
  const waiters = new Set<() => void>();
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    buffered += d;
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const m = parseMessage(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
      if (m) messages.push(m);
    }
    for (const w of waiters) w();
  });
  let exited: number | null | undefined;
  const failedToStart = new Promise<string>((resolve) => child.once('error', (err) => resolve(err.message)));
  child.once('exit', (code) => {
    exited = code;
    for (const w of waiters) w();
  });
  const ask = async (id: number, method: string, params: Record<string, unknown>): Promise<RpcMessage | string> => {
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    const started = Date.now();
    for (;;) {
      const found = messages.find((m) => m.id === id);
      if (found) return found;
      if (exited !== undefined) return `the bridge exited (code ${exited}) before answering ${method}`;
      if (Date.now() - started > STEP_TIMEOUT_MS) return `no answer to ${method} within ${STEP_TIMEOUT_MS / 1000} s`;
      await Promise.race([new Promise<void>((r) => (waiters.add(r), setTimeout(r, 200))), failedToStart]);
    }
  };
  const explain = (problem: string) => {
    out(false, problem);
    const said = stderr.trim();
    if (said) rt.io.stdout.write(`     the bridge said: ${visible(fromService(said.split('\n').slice(-3).join(' / ')))}\n`);
    return Exit.error;
  };
  try {
    const started = Date.now();
    const init = await Promise.race([ask(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'gsh-doctor', version: VERSION } }), failedToStart.then((m) => `cannot start it: ${m}`)]);
    if (typeof init === 'string') return explain(init);
    if (init.error) return explain(`initialize: ${init.error.message}`);
    const info = init.result?.serverInfo as { name?: string; version?: string } | undefined;
    out(true, `initialized in ${Date.now() - started} ms: ${visible(fromService(`${info?.name ?? 'the service'} ${info?.version ?? ''}`.trim()))}, protocol ${String(init.result?.protocolVersion)}`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    let count = 0;
    let cursor: unknown;
    for (let id = 2; id < 1000; id++) {
      const page = await ask(id, 'tools/list', cursor === undefined ? {} : { cursor });
      if (typeof page === 'string') return explain(page);
      if (page.error) return explain(`tools/list: ${page.error.message}`);
      count += ((page.result?.tools as unknown[] | undefined) ?? []).length;
      cursor = page.result?.nextCursor;
      if (cursor === undefined) break;
    }
    if (count === 0) return explain('the bridge offers no tool: the guardrail flags hide them all, or the credential reaches none');
    out(true, `${count} tools offered (after the guardrails)`);
    return Exit.ok;
  } finally {
    child.stdin.end();
    const ended = new Promise<void>((r) => (exited !== undefined ? r() : child.once('exit', () => r())));
    const timer = setTimeout(() => child.kill('SIGTERM'), 5000);
    await ended;
    clearTimeout(timer);
  }
}
