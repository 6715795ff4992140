// Per-key, per-minute limit (01-general-contract.md "Limits"): fixed one-minute windows per key.
// Headers X-RateLimit-Limit / -Remaining / -Reset (unix seconds of the window's end) go on every
// authenticated response; over the limit: 429 rate_limit_exceeded with Retry-After.

export interface RateDecision {
  allowed: boolean;
  headers: Record<string, string>;
  retryAfter: number;
}

export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  take(principalId: string, limit: number, now = Date.now()): RateDecision {
    const start = Math.floor(now / 60_000) * 60_000;
    let w = this.windows.get(principalId);
    if (!w || w.start !== start) {
      w = { start, count: 0 };
      this.windows.set(principalId, w);
    }
    const allowed = w.count < limit;
    if (allowed) w.count += 1;
    const reset = Math.ceil((start + 60_000) / 1000);
    return {
      allowed,
      retryAfter: Math.max(1, reset - Math.floor(now / 1000)),
      headers: {
        'X-RateLimit-Limit': String(limit),
        'X-RateLimit-Remaining': String(Math.max(0, limit - w.count)),
        'X-RateLimit-Reset': String(reset),
      },
    };
  }
}
