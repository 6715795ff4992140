import { UsageError } from '../core/errors.js';

// The bridge's guardrails (README "AI clients (MCP)"), one gate applied identically to tools/list
// and tools/call: what a list hides, a call is refused, before any request. --read-only keeps
// only tools whose annotations say readOnlyHint: true (no annotations: a write, failing closed,
// unlike a read-only switch that trusts the absence of a hint); destructiveHint: true tools need
// --allow-destructive, or the client's confirmation through elicitation; --tools and
// --exclude-tools are globs on names; --servers limits the server_id argument to the servers the
// selection named (resolved by gsh before the bridge starts).

export interface ToolInfo {
  name: string;
  annotations?: { readOnlyHint?: unknown; destructiveHint?: unknown; [k: string]: unknown };
}

export interface PolicyFlags {
  readOnly?: boolean;
  allowDestructive?: boolean;
  /** Globs (comma-separated on the line). */
  tools?: readonly string[];
  excludeTools?: readonly string[];
}

export type Verdict =
  | { allowed: true; confirm?: 'destructive' }
  | { allowed: false; reason: string; next: string };

/** Tool names: letters, digits, `_`, `-`, `.`, `/` (the MCP specification's advice), so a glob is * and ? over those. */
function globToRegExp(glob: string): RegExp {
  if (!/^[A-Za-z0-9_.\-/*?]+$/.test(glob)) {
    throw new UsageError(`not a tool glob: "${glob}"`, 'Tool globs use letters, digits, _ - . / and the wildcards * and ?, e.g. --tools "list_*,get_*".');
  }
  return new RegExp(`^${glob.replace(/[.\-/]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
}

/** `a,b` given once or repeated → the globs, checked (an empty one is a usage error). */
export function globList(flag: string, values: readonly string[] | string | undefined): string[] | undefined {
  if (values === undefined) return undefined;
  const list = [values].flat().flatMap((v) => v.split(',')).map((v) => v.trim());
  if (list.length === 0 || list.some((v) => v === '')) throw new UsageError(`${flag} has an empty glob`, `Give tool names or globs separated by commas, e.g. ${flag} "list_*,get_server".`);
  for (const g of list) globToRegExp(g);
  return list;
}

export class Policy {
  private readonly include: RegExp[] | undefined;
  private readonly exclude: RegExp[];

  constructor(
    readonly flags: PolicyFlags,
    /** Server ids --servers allows (undefined: every server). */
    readonly servers?: ReadonlySet<string>,
  ) {
    this.include = flags.tools?.map(globToRegExp);
    this.exclude = (flags.excludeTools ?? []).map(globToRegExp);
  }

  /**
   * Whether a tool may be listed and called. `confirms`: the client confirms destructive calls
   * through elicitation, so they are listed and each call asks.
   */
  tool(tool: ToolInfo, confirms: boolean): Verdict {
    const { name } = tool;
    if (this.include && !this.include.some((r) => r.test(name))) return { allowed: false, reason: `${name} is not among --tools ${this.flags.tools!.join(',')}`, next: `add it to --tools in the bridge's command line` };
    if (this.exclude.some((r) => r.test(name))) return { allowed: false, reason: `${name} is excluded by --exclude-tools ${this.flags.excludeTools!.join(',')}`, next: 'remove it from --exclude-tools in the bridge\'s command line' };
    const hints = tool.annotations;
    if (this.flags.readOnly && hints?.readOnlyHint !== true) {
      const why = hints === undefined ? 'it has no annotations, so gsh counts it as a write' : 'its annotations do not say readOnlyHint: true';
      return { allowed: false, reason: `--read-only: ${name} may change something (${why})`, next: 'run the bridge without --read-only to allow writes' };
    }
    // A read-only tool cannot destroy; otherwise the hint decides (MCP's default for a write is destructive, but gsh follows the tool's own word).
    if (hints?.destructiveHint === true && hints.readOnlyHint !== true && !this.flags.allowDestructive) {
      if (confirms) return { allowed: true, confirm: 'destructive' };
      return { allowed: false, reason: `${name} is destructive (destructiveHint: true)`, next: 'start the bridge with --allow-destructive to allow it' };
    }
    return { allowed: true };
  }

  /** Whether a call's server_id argument is within --servers. */
  call(args: Record<string, unknown> | undefined): Verdict {
    if (!this.servers) return { allowed: true };
    const id = args?.server_id;
    if (id === undefined) return { allowed: true };
    if (typeof id === 'string' && this.servers.has(id)) return { allowed: true };
    return { allowed: false, reason: `server ${JSON.stringify(id)} is outside --servers (${[...this.servers].join(', ')})`, next: 'add it to --servers in the bridge\'s command line' };
  }
}
