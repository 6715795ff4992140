// The contract's retry rules (01-general-contract.md, "Errors" → Retry rules): 429 waits
// Retry-After; 5xx, timeouts and dropped connections back off exponentially with jitter
// (1, 2, 4 … seconds, capped at 30); other 4xx never retry. Only what may succeed on a retry is
// retried: 408 (the request timed out) like a 5xx, never 501 (not implemented stays so). One 4xx
// is a wait, not a refusal: 409 `idempotency_conflict` while the first request with the same key
// is still in flight (01-general-contract.md "Limits": a renewable lease, "while in flight, gives
// 409"), which a replay run right after an interrupt meets; it backs off like a 5xx and then gets
// the first request's answer. gsh's own keys are new for every request, so only a replay or a key
// the user gave can meet it.

export const BACKOFF_CAP_MS = 30_000;
/**
 * A refused connection backs off at a fifth of the pace (0.2, 0.4, 0.8, 1.6 s): a restarting
 * service is still caught, and a wrong base URL fails within 5 s instead of 15.
 */
const REFUSED_SCALE = 0.2;

/** Delay before retry number `attempt` (0-based): base 1 s doubling, capped, with ±25 % jitter. */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(1000 * 2 ** attempt, BACKOFF_CAP_MS);
  const jittered = base * (0.75 + random() * 0.5);
  return Math.round(Math.min(jittered, BACKOFF_CAP_MS));
}

/** Retry-After is delta-seconds or an HTTP date; returns ms, or undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export type RetryDecision = { retry: false } | { retry: true; delayMs: number; reason: string };

/**
 * Whether a response status (or a network failure, status undefined) is retried. Mutations are
 * retried only when they carry an Idempotency-Key, which every mutation gsh sends does.
 */
export function decideRetry(opts: {
  status: number | undefined;
  attempt: number;
  maxRetries: number;
  retryAfterMs?: number;
  idempotent: boolean;
  random?: () => number;
  /** Nothing listens there (ECONNREFUSED): retried on a short schedule, so a wrong URL fails fast. */
  refused?: boolean;
  /** A 409 idempotency_conflict: the key's first request may still be in flight. */
  keyInFlight?: boolean;
}): RetryDecision {
  const { status, attempt, maxRetries, idempotent } = opts;
  if (attempt >= maxRetries) return { retry: false };
  if (status === 429) {
    return { retry: true, delayMs: opts.retryAfterMs ?? backoffDelay(attempt, opts.random), reason: 'rate limited' };
  }
  if (!idempotent) return { retry: false };
  if (status === undefined && opts.refused) {
    return { retry: true, delayMs: Math.round(backoffDelay(attempt, opts.random) * REFUSED_SCALE), reason: 'connection refused' };
  }
  if (status === undefined) return { retry: true, delayMs: backoffDelay(attempt, opts.random), reason: 'connection failed' };
  if (status === 409 && opts.keyInFlight) return { retry: true, delayMs: backoffDelay(attempt, opts.random), reason: 'the first request with this Idempotency-Key may still be in flight' };
  if ((status >= 500 && status !== 501) || status === 408) return { retry: true, delayMs: backoffDelay(attempt, opts.random), reason: `HTTP ${status}` };
  return { retry: false };
}
