import { describe, expect, it } from 'vitest';
import { backoffDelay, BACKOFF_CAP_MS, decideRetry, parseRetryAfter } from '../../../src/core/wire/retry.js';

// 01-general-contract.md, "Errors" → Retry rules.
describe('retry schedule (01-general-contract.md, Errors: retry rules)', () => {
  it('backs off 1, 2, 4, 8, 16 s and caps at 30 s, before jitter', () => {
    const mid = () => 0.5; // jitter factor 1.0
    expect([0, 1, 2, 3, 4, 5, 6].map((a) => backoffDelay(a, mid))).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  });

  it('jitters within ±25 % and never past the cap', () => {
    expect(backoffDelay(0, () => 0)).toBe(750);
    expect(backoffDelay(0, () => 0.999999)).toBe(1250);
    expect(backoffDelay(10, () => 0.999999)).toBe(BACKOFF_CAP_MS);
  });

  it('waits Retry-After on 429, for mutations too', () => {
    expect(decideRetry({ status: 429, attempt: 0, maxRetries: 3, retryAfterMs: 7000, idempotent: false })).toEqual({
      retry: true, delayMs: 7000, reason: 'rate limited',
    });
  });

  it('retries 5xx and dropped connections only when idempotent (GET or keyed)', () => {
    expect(decideRetry({ status: 503, attempt: 0, maxRetries: 3, idempotent: true, random: () => 0.5 })).toMatchObject({ retry: true, delayMs: 1000 });
    expect(decideRetry({ status: undefined, attempt: 1, maxRetries: 3, idempotent: true, random: () => 0.5 })).toMatchObject({ retry: true, delayMs: 2000 });
    expect(decideRetry({ status: 502, attempt: 0, maxRetries: 3, idempotent: false })).toEqual({ retry: false });
  });

  it('never retries other 4xx', () => {
    for (const status of [400, 401, 403, 404, 409, 412, 422]) {
      expect(decideRetry({ status, attempt: 0, maxRetries: 3, idempotent: true })).toEqual({ retry: false });
    }
  });

  it('retries only what may succeed on a retry: 408 like a 5xx, never 501', () => {
    expect(decideRetry({ status: 408, attempt: 0, maxRetries: 3, idempotent: true, random: () => 0.5 })).toMatchObject({ retry: true, delayMs: 1000 });
    expect(decideRetry({ status: 501, attempt: 0, maxRetries: 3, idempotent: true })).toEqual({ retry: false });
  });

  it('waits out a key whose first request is still in flight (01-general-contract.md "Limits": 409 idempotency_conflict while in flight), only with a key', () => {
    expect(decideRetry({ status: 409, attempt: 0, maxRetries: 4, idempotent: true, keyInFlight: true, random: () => 0.5 })).toMatchObject({ retry: true, delayMs: 1000 });
    expect(decideRetry({ status: 409, attempt: 0, maxRetries: 4, idempotent: true, keyInFlight: false }).retry).toBe(false);
    expect(decideRetry({ status: 409, attempt: 0, maxRetries: 4, idempotent: false, keyInFlight: true }).retry).toBe(false);
    expect(decideRetry({ status: 409, attempt: 4, maxRetries: 4, idempotent: true, keyInFlight: true }).retry).toBe(false);
  });

  it('stops after maxRetries', () => {
    expect(decideRetry({ status: 503, attempt: 3, maxRetries: 3, idempotent: true })).toEqual({ retry: false });
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});
