import { GshError, UsageError } from '../core/errors.js';
import { parseDuration } from '../core/flags/duration.js';
import type { Runtime } from '../core/run/runtime.js';
import { Audit, auditPath } from './audit.js';
import { Bridge } from './bridge.js';
import { ServiceLink } from './link.js';
import type { RpcMessage } from './messages.js';
import { globList, Policy } from './policy.js';

// What every `gsh mcp` command that talks to the service starts with: the bridge's flags checked
// (a bad one stops start-up with exit 2, before any request), the run's client (the credential
// from gsh's store, never argv), --servers resolved to ids with gsh's selection grammar, the
// link, the gate and the audit log.

export interface BridgeFlags {
  readOnly?: boolean;
  allowDestructive?: boolean;
  tools?: string[];
  excludeTools?: string[];
  servers?: string[];
  toolTimeout?: string;
  logFile?: string;
}

export interface CheckedFlags {
  flags: BridgeFlags;
  tools: string[] | undefined;
  excludeTools: string[] | undefined;
  servers: string[] | undefined;
  toolTimeoutMs: number;
}

export const DEFAULT_TOOL_TIMEOUT = '10m';

/** Every flag checked; nothing is sent. */
export function checkFlags(flags: BridgeFlags): CheckedFlags {
  const toolTimeoutMs = parseDuration(flags.toolTimeout ?? DEFAULT_TOOL_TIMEOUT, '--tool-timeout');
  if (toolTimeoutMs <= 0) throw new UsageError('--tool-timeout must be longer than 0');
  const servers = flags.servers?.flatMap((v) => v.split(',')).map((v) => v.trim());
  if (servers && (servers.length === 0 || servers.some((s) => s === ''))) throw new UsageError('--servers has an empty server reference', 'Give ids, names or globs separated by commas, e.g. --servers "lobby-*,survival".');
  if (servers?.includes('-')) throw new UsageError('--servers - (read from standard input) is not possible here: the bridge\'s standard input is the client\'s', 'Name the servers on the line.');
  if (flags.logFile !== undefined && flags.logFile.trim() === '') throw new UsageError('--log-file needs a file name');
  return { flags, tools: globList('--tools', flags.tools), excludeTools: globList('--exclude-tools', flags.excludeTools), servers, toolTimeoutMs };
}

/** The command that logs this credential in again (the next step after a 401). */
export function loginLine(rt: Runtime): string {
  const auth = rt.auth;
  if (!auth || /environment/.test(auth.source)) return '`gsh auth login` (or set a valid GSH_API_KEY)';
  const profile = auth.profile === 'default' ? '' : ` --profile ${auth.profile}`;
  return /agent/.test(auth.source) ? `\`gsh auth login --agent${profile}\`` : `\`gsh auth login${profile}\``;
}

export interface Opened {
  bridge: Bridge;
  link: ServiceLink;
}

/** The bridge on this run's client; `write` carries messages to the client. */
export async function openBridge(rt: Runtime, checked: CheckedFlags, write: (m: RpcMessage) => void): Promise<Opened> {
  const client = await rt.client();
  let servers: Set<string> | undefined;
  if (checked.servers) {
    const [{ targetRefs, resolveTargets }, { StdinText }] = await Promise.all([import('../core/fleet/targets.js'), import('../core/flags/fields.js')]);
    // No GSH_SERVER: the selection is what the line says. Standard input is the client's (refused above).
    const targets = await resolveTargets(client, targetRefs(checked.servers, undefined, {}), new StdinText(undefined), rt.references);
    if (targets.length === 0) throw new UsageError(`--servers ${checked.servers.join(',')} names no server`);
    servers = new Set(targets.map((t) => t.id));
  }
  const policy = new Policy({ readOnly: checked.flags.readOnly === true, allowDestructive: checked.flags.allowDestructive === true, ...(checked.tools ? { tools: checked.tools } : {}), ...(checked.excludeTools ? { excludeTools: checked.excludeTools } : {}) }, servers);
  let bridge: Bridge | undefined;
  const trace = rt.globals.debug ? (line: string) => rt.note(line) : undefined;
  // An answer may take as long as its tool (the bridge itself ends a call at --tool-timeout).
  const link = new ServiceLink({ client, onMessage: (m) => bridge?.fromService(m), answerTimeoutMs: checked.toolTimeoutMs + 5000, ...(trace ? { trace } : {}) });
  bridge = new Bridge({
    link,
    policy,
    toolTimeoutMs: checked.toolTimeoutMs,
    audit: new Audit(auditPath(rt.env, checked.flags.logFile), checked.flags.logFile !== undefined),
    profile: rt.auth?.profile && !/environment/.test(rt.auth.source) ? rt.auth.profile : (rt.auth?.source ?? 'unknown'),
    loginLine: loginLine(rt),
    rt,
    write,
  });
  return { bridge, link };
}

/** Initializes a session of gsh's own (`mcp tools`, `mcp call`, `mcp doctor`): the service's answer to initialize. */
export async function initializeOwn(opened: Opened, version: string): Promise<Record<string, unknown>> {
  const { answer } = await opened.link.send({
    jsonrpc: '2.0', id: 'gsh-initialize', method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'gsh', version } },
  });
  if (!answer?.result) throw new GshError(`the service refused to initialize an MCP session: ${answer?.error?.message ?? 'no answer'}`);
  await opened.link.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return answer.result;
}
