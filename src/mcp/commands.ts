import { Exit, GshError, UsageError } from '../core/errors.js';
import type { Runtime } from '../core/run/runtime.js';
import { readAll } from '../core/terminal/streams.js';
import { fromService, visible } from '../core/terminal/terminal-text.js';
import { VERSION } from '../core/version.js';
import type { RpcMessage } from './messages.js';
import { type BridgeFlags, checkFlags, initializeOwn, openBridge } from './start.js';

// `gsh mcp tools` and `gsh mcp call`: the bridge driven by gsh itself, for people and scripts.
// The same gate, approvals, timeout and audit as the proxy; the service's text reaches a terminal
// only through the terminal door (rt.out and rt.io.stdout wrap terminals).

/** The service's text (or a file's) as a terminal may show it: through the door's sanitiser; piped, byte-exact. */
function shown(text: string, tty: boolean): string {
  return tty ? visible(fromService(text)) : text;
}

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
    // Progress (the service's, and where to approve) goes to stderr as it comes.
    const progress = (m: RpcMessage) => {
      const message = m.method === 'notifications/progress' ? m.params?.message : undefined;
      if (typeof message === 'string') rt.note(message);
    };
    const opened = await openBridge(rt, checked, progress);
    try {
      await initializeOwn(opened, VERSION);
      const end = await opened.bridge.call({ jsonrpc: '2.0', id: 'gsh-call', method: 'tools/call', params: { name: tool, arguments: args, _meta: { progressToken: 'gsh-call' } } });
      const answer = end.answer;
      if (answer?.error) throw new GshError(answer.error.message.replace(/^gsh: /, ''), end.exitCode === Exit.ok ? Exit.error : end.exitCode);
      const result = answer?.result ?? {};
      if (rt.format !== 'table') {
        await rt.out.show(result);
        return end.exitCode;
      }
      const text = ((result.content as { type?: string; text?: string }[] | undefined) ?? []).filter((c) => c.type === 'text').map((c) => c.text ?? '').join('\n');
      if (result.isError === true) {
        rt.io.stderr.write(`error: ${shown(text.replace(/^gsh: /, ''), rt.io.stderrTTY)}\n`);
        return end.exitCode === Exit.ok ? Exit.error : end.exitCode;
      }
      rt.io.stdout.write(`${shown(text, rt.io.stdoutTTY)}\n`);
      return end.exitCode;
    } finally {
      await opened.link.close();
    }
  });
}

/** `gsh mcp log [--tail N]`: the audit lines as written (stdout wraps terminals: the door). */
export async function mcpLog(rt: Runtime, opts: { logFile?: string; tail?: string }): Promise<number | void> {
  const { auditPath } = await import('./audit.js');
  const tail = opts.tail === undefined ? undefined : Number(opts.tail);
  if (tail !== undefined && (!Number.isInteger(tail) || tail < 1)) throw new UsageError('--tail takes a whole number of lines, 1 or more');
  const file = auditPath(rt.env, opts.logFile);
  return rt.submit({ requests: [], then: [{ kind: 'local', description: `read ${file}` }] }, async () => {
    const { readFileSync } = await import('node:fs');
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      if ((err as { code?: string }).code !== 'ENOENT') throw new GshError(`cannot read ${file}: ${(err as Error).message}`);
      rt.note(`No tool call logged yet (${file} does not exist).`);
      return;
    }
    const all = text.split('\n').filter(Boolean);
    const lines = tail === undefined ? all : all.slice(-tail);
    // As written, one line each; a format or --jq reads them as one array.
    if (rt.format === 'table' && rt.globals.jq === undefined) for (const line of lines) rt.io.stdout.write(`${shown(line, rt.io.stdoutTTY)}\n`);
    else await rt.out.show(lines.map(readLine));
  });
}

/** One audit line; a line that is not JSON (a torn write) is shown as it is. */
function readLine(line: string): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return { unreadable: line };
  }
}

/** The proxy's command line for a client's entry: the guardrail flags as given, --profile and --base-url when given (no secret). */
export function proxyArgs(rt: Runtime, flags: BridgeFlags): string[] {
  const { resolve } = process.getBuiltinModule('node:path');
  checkFlags(flags);
  const args: string[] = [];
  if (rt.globals.profile) args.push('--profile', rt.globals.profile);
  if (rt.globals.baseUrl) args.push('--base-url', rt.globals.baseUrl);
  args.push('mcp', 'proxy');
  if (flags.readOnly) args.push('--read-only');
  if (flags.allowDestructive) args.push('--allow-destructive');
  if (flags.tools) args.push('--tools', flags.tools.join(','));
  if (flags.excludeTools) args.push('--exclude-tools', flags.excludeTools.join(','));
  if (flags.servers) args.push('--servers', flags.servers.join(','));
  if (flags.toolTimeout) args.push('--tool-timeout', flags.toolTimeout);
  if (flags.logFile) args.push('--log-file', resolve(flags.logFile));
  return args;
}

export interface InstallFlags extends BridgeFlags {
  client?: string;
  configFile?: string;
  print?: boolean;
  name?: string;
}

async function target(rt: Runtime, opts: InstallFlags) {
  const install = await import('./install.js');
  if (!opts.client || !(install.CLIENTS as readonly string[]).includes(opts.client)) {
    throw new UsageError(opts.client ? `unknown client "${opts.client}"` : 'which client? --client is required', `One of: ${install.CLIENTS.join(', ')}.`);
  }
  const client = opts.client as import('./install.js').ClientName;
  const where = install.clientConfig(client, rt.env, process.cwd());
  const { resolve } = process.getBuiltinModule('node:path');
  const file = opts.configFile !== undefined ? resolve(opts.configFile) : where.file;
  const name = opts.name ?? 'gsh';
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name)) throw new UsageError(`--name "${name}" is not a server name a client accepts`, 'Letters, digits, _ . - (at most 64).');
  return { install, client, file, key: where.key, name };
}

export async function mcpInstall(rt: Runtime, opts: InstallFlags): Promise<number | void> {
  const { install, client, file, key, name } = await target(rt, opts);
  const entry = install.bridgeEntry(client, proxyArgs(rt, opts), rt.env);
  if (opts.print) {
    rt.io.stdout.write(`${JSON.stringify({ [key]: { [name]: entry } }, null, 2)}\n`);
    return;
  }
  const change = install.withEntry(file, key, name, entry, rt.globals.yes === true);
  return rt.submit({ requests: [], then: [{ kind: 'local', description: change.text === undefined ? change.what : `write ${file}: ${change.what}` }] }, async () => {
    install.apply(change);
    rt.note(change.text === undefined ? change.what : `${change.what[0]!.toUpperCase()}${change.what.slice(1)}. Restart the client to load it; \`gsh mcp doctor --client ${client}${opts.configFile ? ` --config-file ${file}` : ''}\` checks it.`);
  });
}

export async function mcpUninstall(rt: Runtime, opts: InstallFlags): Promise<number | void> {
  const { install, file, key, name } = await target(rt, opts);
  const change = install.withoutEntry(file, key, name);
  if (opts.print) {
    rt.io.stdout.write(change.text ?? '');
    return;
  }
  return rt.submit({ requests: [], then: [{ kind: 'local', description: change.text === undefined ? change.what : `write ${file}: ${change.what}` }] }, async () => {
    install.apply(change);
    rt.note(`${change.what[0]!.toUpperCase()}${change.what.slice(1)}.`);
  });
}

export async function mcpDoctor(rt: Runtime, opts: InstallFlags): Promise<number | void> {
  const [{ doctor }, install] = await Promise.all([import('./doctor.js'), import('./install.js')]);
  if (opts.client === undefined) {
    const entry = install.bridgeEntry('claude-desktop', proxyArgs(rt, opts), rt.env);
    return rt.submit({ requests: [], then: [{ kind: 'local', description: `start ${[entry.command, ...entry.args].join(' ')} from an empty environment; initialize; tools/list` }] }, () => doctor(rt, entry, 'as gsh mcp install would write it'));
  }
  const { file, key, name } = await target(rt, opts);
  return rt.submit({ requests: [], then: [{ kind: 'local', description: `start the "${name}" entry of ${file} from an empty environment; initialize; tools/list` }] }, async () => {
    const entry = (install.readConfig(file)[key] as Record<string, import('./install.js').ServerEntry> | undefined)?.[name];
    if (!entry || typeof entry.command !== 'string' || !Array.isArray(entry.args)) {
      rt.io.stdout.write(`FAIL ${file} has no "${name}" entry to start\n`);
      rt.note(`Add it: gsh mcp install --client ${opts.client}${opts.configFile ? ` --config-file ${file}` : ''}`);
      return Exit.error;
    }
    return doctor(rt, entry, file);
  });
}
