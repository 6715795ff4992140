import { type Command, Option } from 'commander';
import { colorEnabled, colorWhen, outputStream } from '../core/terminal/io.js';
import { FORMAT_NAMES } from '../init/format/names.js';
import type { OperationUses } from './hand-written.js';
import { offline, offlineData } from './offline.js';
import { KINDS } from '../config-code/kinds/index.js';
import { fleetFlags, type RolloutFlags } from '../core/fleet/rollout.js';

// `gsh config`: a server's configuration as code (README "Configuration as code"):
// export, lint, diff, adopt, apply, schema. The work is in src/config-code/ (ARCHITECTURE.md "Layers"),
// loaded only when one of these runs.

// Kinds, their names and their operations come from the one list (config-code/kinds/index.ts).
const LIST_SERVERS = 'GET /servers';
const reads = (exportOnly: boolean) => [...new Set(KINDS.flatMap((k) => (exportOnly ? k.reads : k.reads.slice(0, 1))))];
const KIND_NAMES = KINDS.map((k) => k.name).join(', ');
const PRUNABLE = KINDS.filter((k) => k.prunable).map((k) => k.name);
const covered = KINDS.filter((k) => !k.account).map((k) => k.summary);
// The account's kinds (Kind.account): declared in a file of their own, run once, not per server.
const ACCOUNT = KINDS.filter((k) => k.account).map((k) => k.name);
const ACCOUNT_HELP = ACCOUNT.length ? `
The account's own kinds (${ACCOUNT.join(', ')}) are declared in a file of their own (version: 1
and ${ACCOUNT[0]}:, no server:) and compared and applied once a run, not per server; with -s they
run only when --only names them.
` : '';

// The first of each list is the request a run on one server surely makes (reference, walk).
export const operations: OperationUses = {
  'config export': [KINDS[0]!.reads[0]!, LIST_SERVERS, ...reads(true).slice(1)],
  'config lint': [],
  'config schema': [],
  'config diff': [KINDS[0]!.reads[0]!, LIST_SERVERS, ...reads(false).slice(1)],
  'config adopt': [KINDS[0]!.reads[0]!, LIST_SERVERS, ...reads(false).slice(1)],
  'config apply': [KINDS[0]!.writes[0]!, ...[KINDS[0]!.reads[0]!, LIST_SERVERS, ...reads(false).slice(1)], ...KINDS.flatMap((k) => k.writes).slice(1)],
};

const EXPORT_HELP = `
Writes DIR/<server name>.yaml for each server: its ${covered.slice(0, -1).join(', ')} and ${covered.at(-1)}
(--only narrows). A secret is never returned after its creation, so the file names an environment
variable for it (\${env:LOBBY_HOOK_1_SECRET}), never a value. A file that exists is never replaced
without --force (nothing is exported then); exit 11 when some server could not be read.${ACCOUNT.length ? `
--only ${ACCOUNT.join(',')} (alone, without -s) writes the account's DIR/account.yaml instead,
with the files it names beside it (each init template's manifest).` : ''}

Examples:
  gsh config export -s lobby --dir exported
  gsh config export -s 'lobby-*' --dir exported --only ${KINDS.slice(1, 2).map((k) => k.name).join(',')}
  gsh config export -s lobby --dir servers --force   # replaces servers/lobby.yaml
${ACCOUNT.map((k) => `  gsh config export --only ${k} --dir servers
`).join('')}
API:
  GET /servers (names), then per server ${reads(true).map((op) => op.replace(/^GET \/servers\/\{server_id\}/, '…')).join(', ')}
`;

const LINT_HELP = `
Checks declaration files offline (no request, no credential): the JSON Schema of gsh config schema,
then what a schema cannot say: unknown sections and keys (with file:line and the nearest known
name), a value declared twice, a glob that can never match, a rename without an id: pin, a
secret written as a value instead of \${env:NAME}. Formats as gsh init lint. Exit 0 clean, 1
problems found, 2 usage or I/O error.

Examples:
  gsh config lint servers/
  gsh config lint fleet.yaml --format github
`;

const DIFF_HELP = `
Reads only what the files declare, on the servers they manage (-s narrows), and compares only the
declared fields: ${KINDS.map((k) => k.compared).join('; ')}. Nothing is changed. Exit 0 in sync,
14 when a server differs, 11 when a server could not be read (it is named, never taken as in
sync). A difference that is a clamp gsh saw (the service stored another value than apply sent)
is named as one, with what to do instead.
${ACCOUNT_HELP}
A saved plan: --out PLAN also writes the exact writes and the live values they were computed
from (a secret only as its \${env:NAME} placeholder: the plan can be a CI artefact); gsh config
apply --plan PLAN reads those values again and makes exactly those writes, or refuses a stale plan
(exit 6, code stale_plan) naming what changed, before any write.

Examples:
  gsh config diff servers/
  gsh config diff servers/ --out plan.json; gsh config apply --plan plan.json --yes
  gsh config diff fleet.yaml -s 'lobby-*' --only ${KINDS[1]!.name} -o json

API: the reads of the declared kinds only (${reads(false).map((op) => op.replace(/\/servers\/\{server_id\}/, '…')).join(', ')})
`;

const APPLY_HELP = `
Reads again, computes the plan diff shows and makes exactly those writes, each with its own
Idempotency-Key and outcome: ${KINDS.map((k) => k.written).join(', ')}. A failed write skips what
depends on it; other kinds and servers go on (-o json lists every change as applied, clamped,
failed, skipped, unknown or not_started; exit 11 when any is not applied). Deletes only items of
a kind the file marks prune: true and --prune names, at most --max-deletes a run. --replace ID
deletes an item and creates it again with the file's values (a webhook's secret: the only way to
change one). Without --yes it asks on a terminal and refuses elsewhere, before any request.
--dry-run reads, then prints the writes it would send (exit 14 while any is pending, 0 when
none). Ctrl-C stops starting changes and names each applied or unknown one with its key; running
apply again makes only what is left. Nothing is restarted.
${ACCOUNT_HELP}
Examples:
  gsh config apply servers/ --dry-run
  gsh config apply servers/ --yes
  gsh config diff servers/ --out plan.json; gsh config apply --plan plan.json --yes
  gsh config apply fleet.yaml --prune ${PRUNABLE[0]} --max-deletes 2 --yes -o json
`;

const ADOPT_HELP = `
The other way round from apply: a live change is taken into the files instead of reverted. Reads
what the files declare (only reads are sent), and writes the live value of each declared key that
differs into the file that declared it, so that gsh config diff is 0 for it afterwards. Keys the
files do not declare are not added (gsh config export writes what a server has). Comments, key
order and layout are kept: only the value's own text changes, and the file is replaced
atomically. In a fleet file the value goes into the most specific entry the server took it
from; when another server takes it from that entry too and has another value, the key is left
and both are named (declare it per server). A secret, a key declared as \${env:NAME} and a
value a kind cannot take back are left and named. Exit 0 when every difference was taken in
(or none), 11 when some were left or a server could not be read, 2 for usage. Without --yes it
asks on a terminal and refuses elsewhere before any request; --dry-run prints each file's
key, old -> new, and writes nothing.

Examples:
  gsh config adopt servers/ --dry-run
  gsh config adopt servers/ --yes
  gsh config adopt fleet.yaml -s 'lobby-*' --only ${KINDS[1]!.name} --yes

API: the reads of gsh config diff (${reads(false).map((op) => op.replace(/\/servers\/\{server_id\}/, '…')).join(', ')}); no write
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
    .option('--out <plan>', 'also write the exact writes and the live values they come from to PLAN (secrets as placeholders), for apply --plan')
    .option('--prune <kinds>', `with --out: the plan deletes live items of these kinds the file does not list (${PRUNABLE.join(', ')})`)
    .option('--parallel <n>', 'servers read at once (1 to 32, default 4), sharing the rate limit')
    .addHelpText('after', DIFF_HELP)
    .action(async function (this: Command, paths: string[]) {
      await online(this, async (rt) => (await import('../config-code/run.js')).runDiff(rt, { paths, ...this.opts<SelectFlags & { out?: string; prune?: string }>() }));
    });

  cmd
    .command('adopt')
    .description('Write the live values of drifted declared keys into the files (comments and layout kept); reads only')
    .argument('<paths...>', 'declaration files or directories')
    .option('-s, --server <id|name|glob>', 'narrow to these of the servers the files manage (repeat or comma-separate)', collect)
    .option('--only <kinds>', `kinds to adopt, comma-separated (${KIND_NAMES})`)
    .option('--parallel <n>', 'servers read at once (1 to 32, default 4), sharing the rate limit')
    .addHelpText('after', ADOPT_HELP)
    .action(async function (this: Command, paths: string[]) {
      await online(this, async (rt) => (await import('../config-code/adopt.js')).runAdopt(rt, { paths, ...this.opts<SelectFlags>() }));
    });

  fleetFlags(cmd
    .command('apply')
    .description('Make the servers as the files declare: exactly the writes diff shows, each with its key and outcome')
    .argument('[paths...]', 'declaration files or directories (none with --plan)')
    .option('--plan <plan>', 'make exactly the writes of a plan saved by diff --out, after reading again what they depend on (exit 6 when stale)')
    .option('-s, --server <id|name|glob>', 'narrow to these of the servers the files manage (repeat or comma-separate)', collect)
    .option('--only <kinds>', `kinds to apply, comma-separated (${KIND_NAMES})`)
    .option('--prune <kinds>', `delete live items of these kinds the file does not list (where it marks prune: true): ${PRUNABLE.join(', ')}`)
    .option('--max-deletes <n>', 'refuse a run that would delete more than n items (default 5)')
    .option('--replace <id>', 'delete and create again this item (a webhook by URL), sending the file\'s secret (repeatable)', collect)
    .option('--parallel <n>', 'servers written at once (1 to 32, default 4), sharing the rate limit'))
    .addHelpText('after', APPLY_HELP)
    .action(async function (this: Command, paths: string[]) {
      await online(this, async (rt) => (await import('../config-code/run.js')).runApply(rt, { paths, ...this.opts<SelectFlags & RolloutFlags & { prune?: string; maxDeletes?: string; replace?: string[]; plan?: string }>() }));
    });
}
