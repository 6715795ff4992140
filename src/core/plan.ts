import type { RequestSpec } from './request-spec.js';

// A command's plan (ARCHITECTURE.md "Plan, then execute"): the exact requests it will send, and
// what follows them. Planning checks everything the user typed and sends nothing but the reads that
// resolve server names; `--dry-run` prints the plan and stops there.

/** What happens after the requests: paging, waiting, a person's action, local work, a check before going on. */
export interface Step {
  kind: 'page' | 'wait' | 'confirm' | 'person' | 'transfer' | 'stream' | 'local' | 'fleet' | 'check';
  description: string;
}

export interface Plan {
  /** In order; a request whose URL depends on an earlier answer is listed with a placeholder. */
  requests: RequestSpec[];
  then: Step[];
  /**
   * Reads planning already sent (a command that must read before it knows its writes, as
   * `gsh config apply`): a dry run says they were sent and that nothing else was.
   */
  sent?: { requests: number; description: string };
}

/**
 * What one server reference turned out to be while planning (`--dry-run` shows it): a server's
 * name, a server's id, a name pattern, or nothing the service knows (README "Remembered servers").
 */
export interface ServerReference {
  /** As typed. */
  ref: string;
  is: 'name' | 'id' | 'pattern' | 'nothing';
  /** The servers it names: one, a pattern's matches, none. */
  servers: { id: string; name?: string }[];
  /** Known without asking: remembered from an earlier command, or an id as typed (`id:…`, a UUID). */
  known?: 'remembered' | 'id:' | 'uuid';
  /** For one that matched nothing: the names it may have meant. */
  suggestions?: string[];
}

/** A request as it would go on the wire, the credential redacted (`--dry-run`, `-o json`). */
export interface PlannedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: unknown;
}

export function step(kind: Step['kind'], description: string): Step {
  return { kind, description };
}
