import type { Outcome } from './outcome.js';

// Errors and exit codes (ARCHITECTURE.md "Exit codes"). Every failure the CLI reports is a
// GshError; anything else reaching the top level is a bug and is reported as such, still without a
// stack trace unless --debug.

export const Exit = {
  ok: 0,
  error: 1,
  usage: 2,
  auth: 3,
  permission: 4,
  notFound: 5,
  conflict: 6,
  personMustAct: 7,
  rateLimited: 8,
  unavailable: 9,
  timedOut: 10,
  /** A command on several servers: some targets failed (the others succeeded). */
  someFailed: 11,
  /** A wait that cannot tell: the followed record shows no field gsh knows how to read. */
  cannotTell: 12,
  /** --ready: the server crashed or stopped before its console said it was ready. */
  notReady: 13,
  /** `gsh config diff`: the servers differ from what the files declare. */
  drift: 14,
  interrupted: 130,
  /** SIGTERM (128 + 15). */
  terminated: 143,
} as const;

export type ExitCode = (typeof Exit)[keyof typeof Exit];

export class GshError extends Error {
  /** gsh's own code for this error where a script may act on it (`stale_plan`); an ApiError's is the service's. */
  code?: string;
  /** Set when a mutation was sent (core/outcome.ts): whether it acted, and the key that replays it. */
  outcome?: Outcome;
  idempotencyKey?: string;
  /** The step that failed after the mutation was accepted (`wait`). */
  step?: string;
  /** The `gsh wait …` command that picks up work this failure left under way. */
  resume?: string;
  /**
   * Where a `gsh wait` would stop the same way again (a backup whose records show no state), the
   * line to run instead: it ends with the work done (core/fleet/follow.ts backupDownloadLine).
   */
  forward?: string;
  constructor(
    message: string,
    readonly exitCode: number = Exit.error,
    /** A next step for the user, printed under the message. */
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'GshError';
  }
}

export class UsageError extends GshError {
  constructor(message: string, hint?: string) {
    super(message, Exit.usage, hint);
    this.name = 'UsageError';
  }
}

export interface FieldError {
  field: string;
  message: string;
}

/** The contract's error envelope: `{error:{code, message, doc_url, errors?, action_url?}, request_id}`. */
export interface ApiErrorBody {
  code: string;
  message: string;
  doc_url?: string;
  errors?: FieldError[];
  action_url?: string;
  payment?: Record<string, unknown>;
  approval?: { status_url?: string; [k: string]: unknown };
  claim?: Record<string, unknown>;
  [k: string]: unknown;
}

export class ApiError extends GshError {
  /** The response body exactly as the service sent it (parsed JSON, or text), for `gsh api`. */
  responseBody: unknown;
  override readonly code: string;
  readonly requestId: string | undefined;
  readonly fieldErrors: FieldError[];
  readonly actionUrl: string | undefined;
  /** The response's WWW-Authenticate header (a 401 names the protected-resource document there). */
  wwwAuthenticate: string | undefined;
  /** A 5xx the service stored for the Idempotency-Key and replayed: retrying with that key cannot help. */
  storedFailure = false;
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
    requestId: string | undefined,
    /** Seconds, from Retry-After, when the server sent one. */
    readonly retryAfter?: number,
  ) {
    super(body.message || `HTTP ${status}`, exitCodeForApi(status, body.code));
    this.name = 'ApiError';
    this.code = body.code;
    this.requestId = requestId;
    this.fieldErrors = Array.isArray(body.errors) ? body.errors : [];
    this.actionUrl = typeof body.action_url === 'string' ? body.action_url : undefined;
  }
}

/** Codes that mean a person has to do something in a browser before this can go on. */
const PERSON_MUST_ACT = new Set([
  'approval_required', 'approval_pending', 'ad_required', 'insufficient_funds',
  'interaction_required', 'login_required', 'authorization_pending', 'expired_token',
  'free_plan_restricted', 'integration_not_connected',
]);

export function exitCodeForApi(status: number, code: string | undefined): number {
  // approval_rejected, approval_expired…: how an approval gsh waited for ended (person-must-act.ts).
  if (code && (PERSON_MUST_ACT.has(code) || code.startsWith('approval_'))) return Exit.personMustAct;
  if (status === 401) return Exit.auth;
  if (status === 403) return Exit.permission;
  if (status === 404) return Exit.notFound;
  if (status === 409) return Exit.conflict;
  if (status === 429) return Exit.rateLimited;
  if (status >= 500) return Exit.unavailable;
  if (status === 402) return Exit.personMustAct;
  return Exit.error;
}

/** A network-level failure (refused, reset, timed out) that outlived its retries. */
/**
 * An answer that is not the API's. When it answered a mutation with 2xx, the change was applied
 * and the answer is what is missing: its ending gives the replay line, as a cut answer's does.
 */
export class NotTheApiError extends GshError {
  constructor(message: string, hint: string, readonly status: number) {
    super(message, Exit.error, hint);
    this.name = 'NotTheApiError';
  }
}

export class NetworkError extends GshError {
  constructor(message: string, readonly causeCode?: string, hint = 'Check the base URL and your connection; --debug shows each attempt.') {
    super(message, Exit.unavailable, hint);
    this.name = 'NetworkError';
  }
}

/**
 * A wait that stopped (--timeout ran out, or an interrupt) while the work goes on: it says what
 * is still under way and the `gsh wait` command that resumes it.
 */
export class WaitStoppedError extends GshError {
  constructor(message: string, exitCode: number, override readonly resume: string, readonly underWay: Record<string, string>) {
    super(message, exitCode, `Still under way: ${Object.entries(underWay).map(([k, v]) => `${k} ${v}`).join(', ')}. Resume with:\n  ${resume}`);
    this.name = 'WaitStoppedError';
  }
}

/**
 * A mutation whose answer never came (the connection dropped or timed out after it was sent, on
 * every retry): it may have been applied. Its Idempotency-Key replays it safely for 24 hours
 * (01-general-contract.md "Idempotency"), so the error names it; the top level turns it into
 * the exact command to run.
 */
export class OutcomeUnknownError extends NetworkError {
  constructor(cause: NetworkError, idempotencyKey: string) {
    super(`${cause.message}; the request may have been applied`, cause.causeCode, `Replay it safely within 24 hours with --idempotency-key ${idempotencyKey}: the service answers with the first outcome instead of acting twice.`);
    this.name = 'OutcomeUnknownError';
    this.outcome = 'unknown';
    this.idempotencyKey = idempotencyKey;
  }
}

/**
 * The error an ending reports and annotates (outcome, key, step): an interrupt's is a copy, as the
 * interrupt's reason is one object shared by every request and pause it stops.
 */
export function ownError(err: unknown): unknown {
  return err instanceof InterruptedError && err.shared ? new InterruptedError(err.signal) : err;
}

/**
 * A step after the service accepted the change (`--wait`'s wait, `--to`'s download) failed or was
 * interrupted: the change was applied, so the error says so with its key, names the step, and
 * resumes with `resume` (the `gsh wait`, the replay) instead of reading as a plain failure.
 */
export function failedAfterApplied(caught: unknown, key: string | undefined, step: string, resume: (err: GshError, key: string) => string | undefined): unknown {
  const err = ownError(caught);
  if (!(err instanceof GshError) || key === undefined) return err;
  err.outcome = 'applied';
  err.idempotencyKey = key;
  err.step = step;
  err.resume ??= resume(err, key);
  return err;
}

/** Ctrl-C (exit 130) or SIGTERM (143) stopped the run; requests under way were cancelled. */
export class InterruptedError extends GshError {
  constructor(
    readonly signal: 'SIGINT' | 'SIGTERM',
    /** The interrupt's own reason, seen by every request it stops (see ownError). */
    readonly shared = false,
  ) {
    super(signal === 'SIGINT' ? 'interrupted' : 'terminated (SIGTERM)', signal === 'SIGINT' ? Exit.interrupted : Exit.terminated);
    this.name = 'InterruptedError';
  }
}
