import { needsServer } from '../../operations/leaves.js';
import type { Operation } from '../../operations/types.js';
import { collect } from '../../core/flags/fields.js';
import type { Feature } from '../feature.js';
import { fleetFlags, ROLLOUT_FLAG_NAMES } from '../../core/fleet/rollout.js';

// The server a command acts on: `-s` (repeated, commas, globs, - for stdin), `--all-servers`,
// `GSH_SERVER`, or the last argument where the server is the command's object (`serverArgument`).
// One plain reference is planned here (the runner resolves it); several go to the fleet runner
// (run.ts, ARCHITECTURE.md "Many servers at once").

/** The server argument of commands whose object is the server (`gsh servers get lobby`). */
export function serverArgument(op: Operation, args: readonly string[]): string | undefined {
  return op.serverArgument ? args[(op.params ?? []).length] : undefined;
}

export const servers: Feature = {
  name: 'servers',
  reserves: () => ['server', 'all-servers', 'parallel', ...ROLLOUT_FLAG_NAMES],
  flags({ cmd, leaf: { op } }) {
    if (op.serverArgument) cmd.argument('[server]', 'server id or name, instead of -s');
    if (!needsServer(op)) return;
    cmd.option('-s, --server <id|name>', 'server id or name (default: $GSH_SERVER); for several: repeat it, commas, a name glob, or - for stdin', collect);
    cmd.option('--all-servers', 'run on every server the key can reach');
    cmd.option('--parallel <n>', 'with several servers: how many run at once (default 4, at most 32)');
    fleetFlags(cmd);
  },
  async targets(d) {
    const { op } = d.leaf;
    if (!needsServer(op)) return;
    if (d.target) {
      d.serverRef = d.target.id;
      return;
    }
    // The one server reference of a single-server run (several go through the fleet runner).
    const { singleRef, targetRefs } = await import('../../core/fleet/targets.js');
    const ref = singleRef(targetRefs(d.local.server as string[] | undefined, serverArgument(op, d.args), d.rt.env));
    if (ref === undefined) throw new Error('several servers reached the single-server plan');
    d.serverRef = ref;
  },
};
