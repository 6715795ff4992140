import { type Command, Option } from 'commander';
import { colorEnabled, colorWhen, outputStream } from '../core/terminal/io.js';
import { FORMAT_NAMES } from '../init/format/names.js';
import type { OperationUses } from './hand-written.js';
import { offline, offlineData } from './offline.js';

// `gsh config`: a server's configuration as code (README "Configuration as code"):
// export, lint, diff, apply, schema. The work is in src/config-code/ (ARCHITECTURE.md "Layers"),
// loaded only when one of these runs.

// The first of each list is the request a run on one server surely makes (reference, walk).
const READS = [
  'GET /servers/{server_id}/settings', 'GET /servers', 'GET /servers/{server_id}/properties', 'GET /servers/{server_id}/startup',
  'GET /servers/{server_id}/properties/configs', 'GET /servers/{server_id}/properties/configs/{config_type}',
  'GET /servers/{server_id}/hooks', 'GET /servers/{server_id}/subusers',
];

export const operations: OperationUses = {
  'config export': READS,
  'config lint': [],
  'config schema': [],
  'config diff': READS.filter((op) => op !== 'GET /servers/{server_id}/properties/configs'),
  'config apply': [
    'PATCH /servers/{server_id}/settings',
    ...READS.filter((op) => op !== 'GET /servers/{server_id}/properties/configs'),
    'PUT /servers/{server_id}/properties',
    'PATCH /servers/{server_id}/startup/variables/{env_variable}', 'PUT /servers/{server_id}/properties/configs/{config_type}',
    'POST /servers/{server_id}/hooks', 'PATCH /servers/{server_id}/hooks/{hook_id}', 'DELETE /servers/{server_id}/hooks/{hook_id}',
    'POST /servers/{server_id}/subusers', 'PUT /servers/{server_id}/subusers/{user_id}', 'DELETE /servers/{server_id}/subusers/{user_id}',
  ],
};

const KIND_NAMES = 'settings, properties, startup, configs, hooks, subusers';

const EXPORT_HELP = `
Writes DIR/<server name>.yaml for each server: its settings (description, startup-detection
message, stop command), server.properties, startup variables, application config files, webhooks
and subusers (--only narrows). A webhook's secret is never returned after its creation, so the file
names an environment variable for it (\${env:LOBBY_HOOK_1_SECRET}), never a value. A file that
exists is never replaced without --force (nothing is exported then); exit 11 when some server
could not be read.

Examples:
  gsh config export -s lobby --dir exported
  gsh config export -s 'lobby-*' --dir exported --only properties,hooks
  gsh config export -s lobby --dir servers --force   # replaces servers/lobby.yaml

API:
  GET /servers (names), then per server GET …/settings, …/properties, …/startup,
  …/properties/configs (and each config), …/hooks, …/subusers
`;

const LINT_HELP = `
Checks declaration files offline (no request, no credential): the JSON Schema of gsh config schema,
then what a schema cannot say: unknown sections and keys (with file:line and the nearest known
name), a value declared twice, a glob that can never match, settings.name without an id: pin, a
secret written as a value instead of \${env:NAME}. Formats as gsh init lint. Exit 0 clean, 1
problems found, 2 usage or I/O error.

Examples:
  gsh config lint servers/
  gsh config lint fleet.yaml --format github
`;

const DIFF_HELP = `
Reads only what the files declare, on the servers they manage (-s narrows), and compares only the
declared fields: properties and variables as text (true equals "true", 60 equals "60"), event and
permission lists as sets; a webhook's secret is write-only and shown as not compared. Nothing is
changed. Exit 0 in sync, 14 when a server differs, 11 when a server could not be read (it is named,
never taken as in sync).

Examples:
  gsh config diff servers/
  gsh config diff fleet.yaml -s 'lobby-*' --only properties -o json

API: the reads of the declared kinds only (GET …/settings, …/properties, …/startup, …/hooks, …)
`;

const APPLY_HELP = `
Reads again, computes the plan diff shows and makes exactly those writes, each with its own
Idempotency-Key and outcome: one PATCH for settings, one PUT for server.properties (a merge), one
PATCH per startup variable, one PUT per config file, and per webhook or subuser a create, update
or delete. A failed write skips what depends on it; other kinds and servers go on (-o json lists
every change as applied, failed, skipped, unknown or not_started; exit 11 then). Deletes only
items of a kind the file marks prune: true and --prune names, at most --max-deletes a run.
--replace URL deletes a webhook and creates it again with the file's secret (the only way to
change a secret). --dry-run reads, then prints the writes it would send. Ctrl-C stops starting
changes and names each applied or unknown one with its key; running apply again makes only what
is left. Nothing is restarted.

Examples:
  gsh config apply servers/ --dry-run
  gsh config apply servers/ --yes
  gsh config apply fleet.yaml --prune hooks --max-deletes 2 --yes -o json
`;

const SCHEMA_HELP = `
Prints the declaration files' JSON Schema (draft-07), the definition gsh config lint checks, for
editors that read YAML through yaml-language-server.

Example:
  gsh config schema > gsh-config.schema.json
`;

interface SelectFlags {
  server?: string[];
  only?: string;
  parallel?: string;
}

const collect = (v: string, prev: string[] = []) => [...prev, v];

async function online(cmd: Command, fn: (rt: import('../core/run/runtime.js').Runtime) => Promise<number | void>): Promise<void> {
  const { withRuntime } = await import('../core/run/runtime.js');
  await withRuntime(cmd, fn);
}

export function register(cmd: Command): void {
  cmd
    .command('export')
    .description('Write each server\'s declarable configuration to DIR/<server name>.yaml (secrets as ${env:…} placeholders)')
    .option('-s, --server <id|name|glob>', 'servers to export (repeat or comma-separate; default: $GSH_SERVER)', collect)
    .option('--dir <dir>', 'directory the files are written to (default: .)')
    .option('--only <kinds>', `kinds to export, comma-separated (${KIND_NAMES})`)
    .option('--force', 'replace files that exist')
    .option('--parallel <n>', 'servers read at once (1 to 32, default 4), sharing the rate limit')
    .addHelpText('after', EXPORT_HELP)
    .action(async function (this: Command) {
      await online(this, async (rt) => (await import('../config-code/export.js')).runExport(rt, this.opts()));
    });

  cmd
    .command('lint')
    .description('Check declaration files offline: schema, unknown keys with did-you-mean, values declared twice, globs that never match')
    .argument('<paths...>', 'declaration files or directories')
    .addOption(new Option('--format <name>', 'report format (default: stylish on a terminal, else compact)').choices(FORMAT_NAMES))
    .addHelpText('after', LINT_HELP)
    .action(async function (this: Command, paths: string[]) {
      const color = colorWhen(this.optsWithGlobals<{ color?: string | false }>().color);
      await offline(this, `lint ${paths.join(' ')} locally`, async (ctx) => {
        const { runConfigLint } = await import('../config-code/lint.js');
        const isTTY = ctx.stdout.isTTY === true;
        const colored = colorEnabled(ctx.env, isTTY, color);
        return runConfigLint(paths, this.opts(), { stdout: (t) => outputStream(ctx.stdout, colored).write(t), isTTY, color: colored });
      });
    });

  cmd
    .command('schema')
    .description('Print the JSON Schema of declaration files (for editors)')
    .addHelpText('after', SCHEMA_HELP)
    .action(async function (this: Command) {
      await offlineData(this, 'print the declaration JSON Schema', async () => (await import('../config-code/schema.js')).configJsonSchema(), (d) => `${JSON.stringify(d, null, 2)}\n`);
    });

  cmd
    .command('diff')
    .description('Compare the servers with the files (reads only); exit 0 in sync, 14 drift, 11 a server not read')
    .argument('<paths...>', 'declaration files or directories')
    .option('-s, --server <id|name|glob>', 'narrow to these of the servers the files manage (repeat or comma-separate)', collect)
    .option('--only <kinds>', `kinds to compare, comma-separated (${KIND_NAMES})`)
    .option('--parallel <n>', 'servers read at once (1 to 32, default 4), sharing the rate limit')
    .addHelpText('after', DIFF_HELP)
    .action(async function (this: Command, paths: string[]) {
      await online(this, async (rt) => (await import('../config-code/run.js')).runDiff(rt, { paths, ...this.opts<SelectFlags>() }));
    });

  cmd
    .command('apply')
    .description('Make the servers as the files declare: exactly the writes diff shows, each with its key and outcome')
    .argument('<paths...>', 'declaration files or directories')
    .option('-s, --server <id|name|glob>', 'narrow to these of the servers the files manage (repeat or comma-separate)', collect)
    .option('--only <kinds>', `kinds to apply, comma-separated (${KIND_NAMES})`)
    .option('--prune <kinds>', 'delete live hooks or subusers the file does not list (where it marks prune: true)')
    .option('--max-deletes <n>', 'refuse a run that would delete more than n items (default 5)')
    .option('--replace <url>', 'delete and create again this webhook, sending the file\'s secret (repeatable)', collect)
    .option('--parallel <n>', 'servers written at once (1 to 32, default 4), sharing the rate limit')
    .addHelpText('after', APPLY_HELP)
    .action(async function (this: Command, paths: string[]) {
      await online(this, async (rt) => (await import('../config-code/run.js')).runApply(rt, { paths, ...this.opts<SelectFlags & { prune?: string; maxDeletes?: string; replace?: string[] }>() }));
    });
}
