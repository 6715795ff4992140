import type { Command } from 'commander';
import { colorEnabled } from '../core/io.js';

// `gsh init`: hand-written commands for init manifests. `lint` and `schema` work offline and
// import their implementation only when run; the registry adds the online template commands.

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
(2.1.0, for code scanning), github (workflow annotations plus a summary line).

Exit codes: 0 no errors (warnings alone pass unless --max-warnings is exceeded), 1 problems
found, 2 usage or I/O error.

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

function readStdin(): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    process.stdin.on('data', (chunk: Buffer) => chunks.push(chunk));
    process.stdin.on('end', () => resolve(Buffer.concat(chunks)));
    process.stdin.on('error', reject);
  });
}

export function register(cmd: Command): void {
  cmd
    .command('lint')
    .description('Check init manifests offline: every rule of the contract, at free or paid caps')
    .argument('[inputs...]', 'manifest files, directories, or - for stdin')
    .option('--format <name>', 'stylish, compact, json, sarif or github (default: stylish on a terminal, else compact)')
    .option('--tier <tier>', 'plan caps to check against: free or paid (default: paid, the tier templates are saved at)')
    .option('--quiet', 'report errors only')
    .option('--max-warnings <n>', 'exit 1 when there are more than n warnings')
    .option('--stdin-filename <name>', 'the name stdin (-) has in reports')
    .option('--only-manifests', 'skip files that are not manifests (as for directories); the pre-commit hook sets it')
    .addHelpText('after', LINT_HELP)
    .action(async function (this: Command, inputs: string[]) {
      const { runLint } = await import('../init/run-lint.js');
      const isTTY = process.stdout.isTTY === true;
      const noColor = this.optsWithGlobals<{ color?: boolean }>().color === false;
      process.exitCode = await runLint({ inputs, ...this.opts<LintFlags>() }, {
        stdout: (text) => process.stdout.write(text),
        stderr: (text) => process.stderr.write(text),
        isTTY,
        color: colorEnabled(process.env, isTTY, noColor),
        readStdin,
      });
    });

  cmd
    .command('schema')
    .description('Print the manifest JSON Schema (draft-07) for editors')
    .option('--tier <tier>', 'plan caps to put in the schema: free or paid (default: paid)')
    .addHelpText('after', SCHEMA_HELP)
    .action(async function (this: Command) {
      const { runSchema } = await import('../init/run-schema.js');
      process.exitCode = runSchema(this.opts<{ tier?: string }>(), { stdout: (text) => process.stdout.write(text) });
    });
}
