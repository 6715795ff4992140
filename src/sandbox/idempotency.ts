import { ApiFailure, fail } from './envelope.js';
import type { HandlerResult } from './envelope.js';

// 01-general-contract.md "Limits": idempotency key and replay window. Keys are scoped per
// credential. A success or 5xx response is stored for 24 hours and replayed with
// `Idempotency-Replayed: true`; a client-error (4xx) response releases the key. Reusing a key with
// a different method/path/query/body, or while the first request is in flight (six-minute lease),
// gives 409 idempotency_conflict.

export const REPLAY_WINDOW_MS = 24 * 60 * 60 * 1000;
export const IN_FLIGHT_LEASE_MS = 6 * 60 * 1000;

/** Printable ASCII, 1 to 200 characters (else 400 bad_request). */
export function validateIdempotencyKey(key: string): void {
  if (key.length === 0 || key.length > 200 || !/^[\x20-\x7e]+$/.test(key)) {
    throw fail.badRequest('Idempotency-Key must be 1 to 200 printable ASCII characters');
  }
}

interface Entry {
  fingerprint: string;
  inFlightUntil?: number;
  response?: HandlerResult;
  expiresAt: number;
}

export type Claim =
  | { kind: 'new'; finish: (result: HandlerResult) => void }
  | { kind: 'replay'; result: HandlerResult };

export class IdempotencyStore {
  private readonly entries = new Map<string, Entry>();

  /** `fingerprint` covers method, path, query and body. Throws 409 idempotency_conflict. */
  claim(scope: string, key: string, fingerprint: string, now = Date.now()): Claim {
    const id = `${scope}\u0000${key}`;
    const existing = this.entries.get(id);
    const live =
      existing &&
      (existing.response ? existing.expiresAt > now : (existing.inFlightUntil ?? 0) > now);
    if (existing && live) {
      if (existing.fingerprint !== fingerprint) {
        throw new ApiFailure(409, 'idempotency_conflict', 'Idempotency-Key was already used with a different request');
      }
      if (!existing.response) {
        throw new ApiFailure(409, 'idempotency_conflict', 'A request with this Idempotency-Key is still in flight');
      }
      return { kind: 'replay', result: existing.response };
    }
    const entry: Entry = { fingerprint, inFlightUntil: now + IN_FLIGHT_LEASE_MS, expiresAt: now + REPLAY_WINDOW_MS };
    this.entries.set(id, entry);
    return {
      kind: 'new',
      finish: (result) => {
        if (this.entries.get(id) !== entry) return;
        if (result.status >= 400 && result.status < 500) {
          this.entries.delete(id);
          return;
        }
        entry.response = result;
        delete entry.inFlightUntil;
        entry.expiresAt = Date.now() + REPLAY_WINDOW_MS;
      },
    };
  }

  get size(): number {
    return this.entries.size;
  }
}
