import { type Command, Option } from 'commander';
import { withRuntime } from '../core/run/runtime.js';
import type { OperationUses } from './hand-written.js';

// `gsh mcp` (README "AI clients (MCP)"): the service's MCP server in any AI client through gsh's
// login and guardrails. The bridge is src/mcp/ (README "AI clients (MCP)"), loaded only here.

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/** The guardrail flags: the same on every command that lists or calls tools, and written by install. */
function guardrails(cmd: Command): Command {
  return cmd
    .option('--read-only', 'Only tools whose annotations say readOnlyHint: true (a tool without annotations counts as a write)')
    .option('--allow-destructive', 'Allow tools marked destructiveHint: true (otherwise refused, or confirmed by the person where the client can ask)')
    .option('--tools <globs>', 'Only tools whose names match these globs (comma-separated or repeated)', collect)
    .option('--exclude-tools <globs>', 'Never tools whose names match these globs (comma-separated or repeated)', collect)
    .option('--servers <sel>', 'Refuse calls whose server_id is outside these servers (ids, names, globs; as -s takes them)', collect)
    .option('--tool-timeout <dur>', 'End a tool call (approval wait included) after this long, with an error naming it (default 10m)')
    .option('--log-file <file>', 'Write the audit log (one JSON line per tool call) here instead of the state directory');
}

type Flags = import('../mcp/start.js').BridgeFlags;

export function register(cmd: Command): void {
  guardrails(cmd.command('proxy'))
    .description('Relay an AI client\'s MCP session (stdio) to the service\'s /mcp, with gsh\'s login and guardrails')
    .addHelpText('after', `
One process per client session: JSON-RPC on standard input and output, Streamable HTTP to
{base_url}/mcp through gsh's request core. The credential comes from gsh's store (--profile);
nothing secret goes in the client's configuration. gsh mcp install writes the entry for you.

Examples:
  gsh mcp proxy --read-only
  gsh --profile ci mcp proxy --allow-destructive --servers "lobby-*"`)
    .action(async function (this: Command) {
      await withRuntime(this, async (rt) => {
        const { checkFlags } = await import('../mcp/start.js');
        const checked = checkFlags(this.opts<Flags>());
        const { runProxy } = await import('../mcp/proxy.js');
        return rt.submit({ requests: [{ method: 'POST', path: '/mcp', body: { jsonrpc: '2.0', method: '(the client\'s messages, one POST each)' } }], then: [] }, () => runProxy(rt, checked));
      });
    });

  guardrails(cmd.command('tools'))
    .description('List the tools the bridge would offer (names, titles, annotations), after the guardrails')
    .addHelpText('after', `
Every page of tools/list, with what the guardrail flags hide left out. -o json prints them whole.

Examples:
  gsh mcp tools
  gsh mcp tools --read-only -o json`)
    .action(async function (this: Command) {
      await withRuntime(this, async (rt) => {
        const { mcpTools } = await import('../mcp/commands.js');
        return mcpTools(rt, this.opts<Flags>());
      });
    });

  guardrails(cmd.command('call'))
    .description('Call one tool through the bridge and print its result (exit 4 refused, 5 no such tool, 7 a person must act)')
    .argument('<tool>', 'The tool\'s name (gsh mcp tools lists them)')
    .addOption(new Option('--args <json>', 'The arguments as one JSON object, or - to read them from standard input'))
    .addHelpText('after', `
The same gate, approvals, timeout and audit line as the proxy. A tool error exits 1 (or 4, 5, 7
by its code); -o json prints the tool result whole.

Examples:
  gsh mcp call list_servers
  gsh mcp call list_servers --args '{"limit":5}' -o json`)
    .action(async function (this: Command, tool: string) {
      await withRuntime(this, async (rt) => {
        const { mcpCall } = await import('../mcp/commands.js');
        return mcpCall(rt, tool, this.opts<Flags & { args?: string }>());
      });
    });
  cmd.command('log')
    .description('Print the audit log of tool calls (one JSON line each: time, profile, tool, outcome, duration, request ids; -o json or --jq: an array)')
    .option('--tail <n>', 'Only the last N lines')
    .option('--log-file <file>', 'Read this file instead of the state directory\'s')
    .addHelpText('after', `
Examples:
  gsh mcp log --tail 20
  gsh mcp log --jq '.[] | select(.outcome != "ok")'`)
    .action(async function (this: Command) {
      await withRuntime(this, async (rt) => {
        const { mcpLog } = await import('../mcp/commands.js');
        return mcpLog(rt, this.opts());
      });
    });

  const clientOption = () => new Option('--client <client>', 'The AI client').choices(['claude-desktop', 'claude-code', 'cursor', 'vscode']);
  guardrails(cmd.command('install'))
    .description('Add gsh\'s bridge to an AI client\'s configuration (absolute paths, no secret, other entries kept)')
    .addOption(clientOption().makeOptionMandatory())
    .option('--config-file <file>', 'The client\'s configuration file (default: where that client keeps it)')
    .option('--name <name>', 'The entry\'s name (default gsh)')
    .option('--print', 'Print the entry instead of writing it')
    .addHelpText('after', `
The guardrail flags given here go into the entry's command line; --profile too. A different entry
of the same name is replaced only with --yes.

Examples:
  gsh mcp install --client claude-desktop --read-only
  gsh --profile ci mcp install --client cursor --allow-destructive --servers "lobby-*"
  gsh mcp install --client vscode --print`)
    .action(async function (this: Command) {
      await withRuntime(this, async (rt) => {
        const { mcpInstall } = await import('../mcp/commands.js');
        return mcpInstall(rt, this.opts());
      });
    });

  cmd.command('uninstall')
    .description('Remove gsh\'s bridge from an AI client\'s configuration (other entries kept)')
    .addOption(clientOption().makeOptionMandatory())
    .option('--config-file <file>', 'The client\'s configuration file (default: where that client keeps it)')
    .option('--name <name>', 'The entry\'s name (default gsh)')
    .option('--print', 'Print the file as it would be instead of writing it')
    .addHelpText('after', `
Example:
  gsh mcp uninstall --client claude-desktop`)
    .action(async function (this: Command) {
      await withRuntime(this, async (rt) => {
        const { mcpUninstall } = await import('../mcp/commands.js');
        return mcpUninstall(rt, this.opts());
      });
    });

  guardrails(cmd.command('doctor'))
    .description('Start the bridge as a client would (empty environment), initialize, list the tools, and say what is wrong')
    .addOption(clientOption())
    .option('--config-file <file>', 'With --client: the client\'s configuration file')
    .option('--name <name>', 'With --client: the entry\'s name (default gsh)')
    .addHelpText('after', `
Without --client, checks the entry gsh mcp install would write with these flags; with it, the
entry the client's file holds. Exit 0 when the bridge answers and offers tools, 1 otherwise.

Examples:
  gsh mcp doctor
  gsh mcp doctor --client claude-desktop`)
    .action(async function (this: Command) {
      await withRuntime(this, async (rt) => {
        const { mcpDoctor } = await import('../mcp/commands.js');
        return mcpDoctor(rt, this.opts());
      });
    });
}

export const operations: OperationUses = {
  'mcp proxy': [], 'mcp tools': [], 'mcp call': [], 'mcp log': [], 'mcp install': [], 'mcp uninstall': [], 'mcp doctor': [],
};
