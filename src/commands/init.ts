import { type Command, Option } from 'commander';
import { fleetFlags } from '../core/fleet/rollout.js';
import { colorEnabled, colorWhen, errorStream, outputStream } from '../core/terminal/io.js';
import { TIERS } from '../init/caps.js';
import { FORMAT_NAMES } from '../init/format/names.js';
import type { Runtime } from '../core/run/runtime.js';
import { readAll } from '../core/terminal/streams.js';
import { oneLine } from '../core/terminal/terminal-text.js';
import { offline, offlineData } from './offline.js';

// `gsh init`: hand-written commands for init manifests. `lint` and `schema` work offline; the
// online `validate`, `templates create|update` and `status` read manifest files and show the
// service's answers against them (init-online/). Each imports its implementation only when run.
// `templates` is created here with its two file-reading verbs; the registry builder then adds the
// generated `list`, `get` and `delete` under it (it skips verbs that exist).

const LINT_HELP = `
Checks init manifests against the contract without calling the API: the exact first line
#service-init, version 1, the 48 KB document limit (read as 48,000 bytes, the stricter reading),
unknown keys at every depth, each section's shape, the per-plan caps of --tier, decoded sizes of
content_base64, cron fields, checksums, event and permission names, hook URLs (https, no literal
private or loopback address), file modes, and the contract's known limitations (as warnings).
Every problem is reported in one pass with its field path (assets[0].size), line and column.

Inputs: files, directories (every *.yaml/*.yml under them whose first line is the header, or a
near miss of it such as "# service-init"; .git and node_modules are skipped) and - for stdin.

--tier: caps of the free or paid plan. Default paid: templates are validated at paid caps when
saved; a server re-validates at its real tier when it is created.

Formats: stylish (default on a terminal), compact (default when piped:
file:line:col: severity: message [path] (rule)), json ([{file, problems:[{severity, rule, path,
line, column, endLine, endColumn, message}]}], 1-based, endColumn just after the text), sarif
(2.1.0, for code scanning: paths relative to %SRCROOT%, each rule with its help inline; an
input that cannot be read makes the run unsuccessful), github (workflow annotations plus a
summary line; with $GITHUB_STEP_SUMMARY set, a Markdown job summary is appended to that file).

Exit codes: 0 no errors (warnings alone pass unless --max-warnings is exceeded), 1 problems
found, 2 usage or I/O error (an input that cannot be read).

Examples:
  $ gsh init lint server.yaml
  $ gsh init lint --tier free manifests/
  $ cat server.yaml | gsh init lint - --stdin-filename server.yaml
  $ gsh init lint --format sarif manifests/ > init-lint.sarif
  $ gsh init lint --format github --max-warnings 0 manifests/

pre-commit (.pre-commit-config.yaml):
  - repo: <this repository>
    rev: <tag>
    hooks:
      - id: gsh-init-lint
`;

const SCHEMA_HELP = `
Prints the manifest's JSON Schema (draft-07) from the same definition the linter uses, for
editors that read YAML through yaml-language-server. Caps are those of --tier (default paid).
Rules JSON Schema cannot express (the header line, the 48 KB limit, sums across entries) are
listed in its $comment and checked by gsh init lint.

Examples:
  $ gsh init schema > init.schema.json
  $ gsh init schema --tier free > init.free.schema.json

Then put this on line 2 of a manifest (line 1 stays #service-init):
  # yaml-language-server: $schema=./init.schema.json
`;

interface LintFlags {
  format?: string;
  tier?: string;
  quiet?: boolean;
  maxWarnings?: string;
  stdinFilename?: string;
  onlyManifests?: boolean;
}


const VALIDATE_HELP = `
Sends the file's text as the inline init of POST /init/validate, a dry run that provisions
nothing, and shows the service's field errors (init.-prefixed) against the file's lines. With
--template, the file is an overlay: its top-level keys replace the saved template's (a problem in
a section that only the template has is shown against the template). --tier picks the plan caps
(the service defaults to paid when it is left out).

Examples:
  $ gsh init validate service-init.yaml --tier free
  $ gsh init validate overlay.yaml --template tpl_123
  $ gsh init validate --template tpl_123 --tier free

API:
  POST /init/validate  (scope templates:read)
`;

const STATUS_HELP = `
Shows the server's latest provisioning job: phases content, files, env, registrations, run,
finalize. content, files and env are hard (a failure fails the job); registrations and run are
soft (warnings, and the job ends partial). --wait follows the job to its end: completed and
partial exit 0 (partial prints its warnings), failed and timed_out exit 1.

Example:
  $ gsh init status -s lobby --wait

API:
  GET /servers/{server_id}/init  (scope servers:read)
`;

const TEMPLATE_FILE_HELP = (verb: 'create' | 'update') => `
The manifest file is linted locally at the paid caps (the caps templates are saved at) and
nothing is sent while it has errors; --no-lint sends it anyway and shows the service's answer
against the file's lines.${verb === 'update' ? ' A manifest replaces the stored one entirely.' : ''}

Example:
  $ ${verb === 'create' ? 'gsh init templates create service-init.yaml --name paper-lobby --description "Paper lobby"' : 'gsh init templates update tpl_123 service-init.yaml --description "Paper lobby, 1.21"'}

API:
  ${verb === 'create' ? 'POST /init/templates' : 'PATCH /init/templates/{template_id}'}  (scope templates:write)
`;

/** Runs an online command with the runtime, closing its client afterwards (loaded only then, so `lint` starts fast). */
/** -s repeated: every value kept (core/flags/fields.ts collect, without loading it for `init lint`). */
function collectServers(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

async function online(cmd: Command, run: (rt: Runtime) => Promise<number | void>): Promise<void> {
  const { withRuntime } = await import('../core/run/runtime.js');
  await withRuntime(cmd, run);
}

/** Verbs that read a manifest file take the place of the generated commands for the same operations. */
export const replaces = ['init templates create', 'init templates update', 'init validate', 'init status'];

export function register(cmd: Command): void {
  cmd
    .command('lint')
    .description('Check init manifests offline: every rule of the contract, at free or paid caps')
    .argument('[inputs...]', 'manifest files, directories, or - for stdin')
    .addOption(new Option('--format <name>', 'report format (default: stylish on a terminal, else compact)').choices(FORMAT_NAMES))
    .addOption(new Option('--tier <tier>', 'plan caps to check against (default: paid, the tier templates are saved at)').choices(TIERS))
    .option('--quiet', 'report errors only')
    .option('--max-warnings <n>', 'exit 1 when there are more than n warnings')
    .option('--stdin-filename <name>', 'the name stdin (-) has in reports')
    .option('--only-manifests', 'skip files that are not manifests (as for directories); the pre-commit hook sets it')
    .addHelpText('after', LINT_HELP)
    .action(async function (this: Command, inputs: string[]) {
      const color = colorWhen(this.optsWithGlobals<{ color?: string | false }>().color);
      await offline(this, `lint ${inputs.length ? inputs.join(' ') : 'the manifests in .'} locally`, async (ctx) => {
        const { runLint } = await import('../init/run-lint.js');
        const isTTY = ctx.stdout.isTTY === true;
        return runLint({ inputs, ...this.opts<LintFlags>() }, {
          stdout: (text) => outputStream(ctx.stdout, colorEnabled(ctx.env, isTTY, color)).write(text),
          stderr: (text) => errorStream(ctx.stderr, colorEnabled(ctx.env, ctx.stderr.isTTY === true, color)).write(text),
          isTTY,
          color: colorEnabled(ctx.env, isTTY, color),
          readStdin: () => readAll(ctx.stdin),
          stepSummary: ctx.env['GITHUB_STEP_SUMMARY'] || undefined,
          // Files come from pull requests: their text reaches a terminal or a CI log through the door.
          text: oneLine,
        });
      });
    });

  cmd
    .command('rules')
    .description('Explain the lint rules: id, severity, what each checks and how to fix it')
    .argument('[rule...]', 'rule ids as reports name them (default: every rule)')
    .addHelpText('after', `
The text the reports point at: SARIF carries each rule's help inline, and the GitHub job summary
and stylish report name rule ids that this prints.

Examples:
  $ gsh init rules
  $ gsh init rules hook-https header
`)
    .action(async function (this: Command, wanted: string[]) {
      const { RULE_IDS, RULES } = await import('../init/rules.js');
      const unknown = wanted.filter((id) => !(RULE_IDS as readonly string[]).includes(id));
      if (unknown.length) {
        const { UsageError } = await import('../core/errors.js');
        throw new UsageError(`unknown rule ${unknown.join(', ')}`, 'gsh init rules lists every rule.');
      }
      await offline(this, 'print the lint rules', (ctx) => {
        for (const id of RULE_IDS.filter((r) => wanted.length === 0 || wanted.includes(r))) {
          outputStream(ctx.stdout).write(`${id} (${RULES[id].severity})\n  ${RULES[id].summary}\n  ${RULES[id].help}\n\n`);
        }
      });
    });

  cmd
    .command('schema')
    .description('Print the manifest JSON Schema (draft-07) for editors')
    .addOption(new Option('--tier <tier>', 'plan caps to put in the schema (default: paid)').choices(TIERS))
    .addHelpText('after', SCHEMA_HELP)
    .action(async function (this: Command) {
      const { schemaFor } = await import('../init/run-schema.js');
      const schema = schemaFor(this.opts<{ tier?: string }>());
      await offlineData(this, 'print the manifest JSON Schema', async () => schema, (data) => `${JSON.stringify(data, null, 2)}\n`);
    });

  cmd
    .command('validate')
    .description('Validate a manifest with the service (dry run), optionally over a saved template and at a tier')
    .argument('[file]', 'manifest file, or - for stdin')
    .option('--template <id>', 'saved template the file is merged onto (its top-level keys replace the template\'s)')
    .addOption(new Option('--tier <tier>', 'plan caps to validate at (default: the service\'s, paid)').choices(TIERS))
    .addHelpText('after', VALIDATE_HELP)
    .action(async function (this: Command, file: string | undefined) {
      const { runValidate } = await import('./init-online/validate.js');
      await online(this, (rt) => runValidate(rt, file, this.opts()));
    });

  const templates = cmd.command('templates').description('Saved init templates: create and update from a file, list, get, delete');
  templates.helpCommand(false);
  templates
    .command('create')
    .description('Save a manifest file as a template (name unique per account), linted locally at paid caps first')
    .argument('[file]', 'manifest file, or - for stdin (the service requires a manifest)')
    .requiredOption('--name <name>', 'template name, unique per account')
    .option('--description <text>', 'what the template sets up')
    .option('--no-lint', 'send without linting locally first')
    .option('--if-absent', 'create only if no template has this name; otherwise print it and exit 0')
    .addHelpText('after', TEMPLATE_FILE_HELP('create'))
    .action(async function (this: Command, file: string | undefined) {
      const { runTemplateCreate } = await import('./init-online/templates.js');
      await online(this, (rt) => runTemplateCreate(rt, file, this.opts()));
    });
  templates
    .command('update')
    .description('Change a template\'s name, description or manifest (a manifest file replaces the stored one)')
    .argument('<template-id>', 'init template id from init templates list')
    .argument('[file]', 'manifest file replacing the stored one, or - for stdin')
    .option('--name <name>', 'new name, unique per account')
    .option('--description <text>', 'new description')
    .option('--no-lint', 'send without linting locally first')
    .addHelpText('after', TEMPLATE_FILE_HELP('update'))
    .action(async function (this: Command, id: string, file: string | undefined) {
      const { runTemplateUpdate } = await import('./init-online/templates.js');
      await online(this, (rt) => runTemplateUpdate(rt, id, file, this.opts()));
    });

  fleetFlags(cmd
    .command('status')
    .description('Latest provisioning job of a server: phases, progress and warnings')
    .option('-s, --server <id|name>', 'server id or name (default: $GSH_SERVER); for several: repeat it, commas, a name glob, or - for stdin', collectServers)
    .option('--all-servers', 'every server the key can reach')
    .option('--wait', 'follow the job until it finishes (failed or timed_out exit 1)')
    .addHelpText('after', STATUS_HELP)
    .action(async function (this: Command) {
      const { runStatus } = await import('./init-online/status.js');
      const o = this.opts<{ server?: string[]; allServers?: boolean; failFast?: boolean; wait?: boolean }>();
      await online(this, (rt) => runStatus(rt, o, o.wait === true));
    }));
}
