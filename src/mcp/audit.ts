import { join } from 'node:path';
import { appendToFile, createFile, makePrivateDir, describeProblem } from '../core/disk/disk.js';
import { GshError } from '../core/errors.js';
import { redactBody } from '../core/redact.js';

// The bridge's audit log (README "AI clients (MCP)"): one JSON line per tool call, written through
// the disk door to --log-file or `mcp-audit.jsonl` in the state directory. A line holds the time,
// profile, tool, outcome, duration and the service's request ids, and the arguments with every
// field the registry marks secret (and every secret-looking name redaction knows) masked; never a
// credential, which the bridge never sees in a call.

export interface AuditLine {
  time: string;
  profile: string;
  tool: string;
  /** ok, tool_error, refused, lost, timed_out, cancelled, error, approval_rejected… */
  outcome: string;
  duration_ms: number;
  request_ids: string[];
  arguments: unknown;
  /** gsh's words for a failure (no secret: they never hold one). */
  message?: string;
}

/** Where the audit lines go by default: GSH_STATE_DIR, XDG_STATE_HOME/gsh, GSH_CONFIG_DIR, ~/.local/state/gsh. */
export function stateDir(env: NodeJS.ProcessEnv): string {
  if (env.GSH_STATE_DIR) return env.GSH_STATE_DIR;
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, 'gsh');
  if (env.GSH_CONFIG_DIR) return env.GSH_CONFIG_DIR;
  if (process.platform === 'win32') return join(env.LOCALAPPDATA || join(env.USERPROFILE ?? '.', 'AppData', 'Local'), 'gsh');
  return join(env.HOME ?? '.', '.local', 'state', 'gsh');
}

export const AUDIT_FILE = 'mcp-audit.jsonl';

export function auditPath(env: NodeJS.ProcessEnv, logFile: string | undefined): string {
  return logFile ?? join(stateDir(env), AUDIT_FILE);
}

let secretNames: Promise<ReadonlySet<string>> | undefined;

/** Every field name the registry marks `secret` (loaded once, on the first call). */
function registrySecrets(): Promise<ReadonlySet<string>> {
  secretNames ??= import('../operations/index.js').then(async ({ loadAllFamilies }) => {
    const names = new Set<string>();
    for (const family of await loadAllFamilies()) {
      for (const op of family.operations) for (const f of [...(op.body ?? []), ...(op.query ?? [])]) if (f.secret) names.add(f.name);
    }
    return names;
  });
  return secretNames;
}

/** The arguments as the audit keeps them: registry secrets and secret-looking names masked, at any depth. */
export async function redactArguments(args: unknown): Promise<unknown> {
  const secrets = await registrySecrets();
  const mask = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(mask);
    if (v === null || typeof v !== 'object') return v;
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, secrets.has(k) ? '[redacted]' : mask(x)]));
  };
  return redactBody(mask(args));
}

export class Audit {
  private ready = false;
  constructor(readonly file: string, private readonly explicit: boolean) {}

  async write(line: Omit<AuditLine, 'arguments'> & { arguments: unknown }): Promise<void> {
    const text = `${JSON.stringify({ ...line, arguments: await redactArguments(line.arguments) })}\n`;
    if (!this.ready) {
      this.prepare();
      this.ready = true;
    }
    appendToFile(this.file, text);
  }

  /** The state directory is checked as gsh's own (0700, the user's); a --log-file's directory is the user's choice. */
  private prepare(): void {
    if (!this.explicit) {
      const dir = this.file.slice(0, this.file.length - AUDIT_FILE.length - 1);
      const problem = makePrivateDir(dir);
      if (problem) throw new GshError(`cannot keep the MCP audit log: ${describeProblem(problem)}`);
    }
    try {
      createFile(this.file, '');
    } catch (err) {
      if ((err as { code?: string }).code !== 'EEXIST') throw err;
    }
  }
}
