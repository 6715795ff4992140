import type { Command } from 'commander';
import type { FromProgram } from './hand-written.js';
import { offlineData } from './offline.js';

// `gsh reference [--json]`: every leaf command with its operations, scope, permission, arguments
// and flags. Loads the whole tree, so it is imported only when run.

const HELP = `
JSON (--json, or -o json; --jq and -o yaml work too): an array with one entry per leaf command:
  {command, summary, operations: [{method, path}], scope, permission,
   arguments: [{name, required}], options: [{flags, required, choices}], example}
Paths are written as in the contract (/servers/{server_id}/files). A required --server may
also come from GSH_SERVER.

Examples:
  $ gsh reference | less
  $ gsh reference --jq '.[] | select(.scope == "servers:files:write") | .command'
`;

export function register(cmd: Command, program: FromProgram): void {
  cmd.addHelpText('after', HELP).action(async function (this: Command) {
    const [tree, { referenceEntries, formatReference }] = await Promise.all([program.docTree(), import('../docs/reference.js')]);
    await offlineData(this, 'print every command with its operations', async () => referenceEntries(tree), () => formatReference(tree));
  });
}
