import type { Prng } from './prng.js';
import type { Faults, FaultTag, Injection } from './types.js';

// Fault injection for tests: probabilistic faults driven by a seeded PRNG, plus deterministic
// one-shot injections that match by method and path and are consumed in order.

export const NO_FAULTS: Faults = { gateway5xx: 0, lostResponse: 0, rateLimit429: 0, latencyMs: 0 };

export interface PlannedFault {
  /** Answer (or drop) before processing. */
  before?: { tag: Exclude<FaultTag, 'lost' | 'cut'>; retryAfter: number };
  /** The handler fails with 500 after the idempotency claim (stored and replayed like any 5xx). */
  failInHandler?: boolean;
  /** Execute, then destroy the connection without answering. */
  lose: boolean;
  latencyMs: number;
}

interface Pending extends Injection {
  remaining: number;
}

export class FaultPlan {
  faults: Faults;
  private readonly injections: Pending[] = [];

  constructor(initial: Partial<Faults> | undefined, private readonly rng: Prng) {
    this.faults = { ...NO_FAULTS, ...sanitize(initial ?? {}) };
  }

  set(f: Partial<Faults>): void {
    this.faults = { ...this.faults, ...sanitize(f) };
  }

  inject(i: Injection): void {
    this.injections.push({ ...i, remaining: Math.max(1, Math.trunc(i.count ?? 1)) });
  }

  clearInjections(): void {
    this.injections.length = 0;
  }

  get pendingInjections(): number {
    return this.injections.reduce((n, i) => n + i.remaining, 0);
  }

  /** Whether this signed download is to be cut halfway (a 'cut' injection, consumed). */
  takeCut(method: string, path: string): boolean {
    const found = this.injections.find((i) => i.kind === 'cut' && matches(i, method, path, undefined));
    if (!found) return false;
    found.remaining -= 1;
    if (found.remaining <= 0) this.injections.splice(this.injections.indexOf(found), 1);
    return true;
  }

  /** Decides the fate of one API request (never a 'cut': those are the node's). `route` is the matched template, if any. */
  plan(method: string, path: string, route: string | undefined): PlannedFault {
    const out: PlannedFault = { lose: false, latencyMs: this.faults.latencyMs };
    const take = (pred: (i: Pending) => boolean): Pending | undefined => {
      const found = this.injections.find((i) => pred(i) && matches(i, method, path, route));
      if (found) {
        found.remaining -= 1;
        if (found.remaining <= 0) this.injections.splice(this.injections.indexOf(found), 1);
      }
      return found;
    };
    if (take((i) => i.kind === 500)) {
      out.failInHandler = true;
      return out;
    }
    const pre = take((i) => i.kind !== 'lost' && i.kind !== 'cut');
    if (pre) {
      out.before = { tag: String(pre.kind) as Exclude<FaultTag, 'lost' | 'cut'>, retryAfter: pre.retryAfter ?? 1 };
      return out;
    }
    if (take((i) => i.kind === 'lost')) {
      out.lose = true;
      return out;
    }
    const { gateway5xx, rateLimit429, lostResponse } = this.faults;
    if (gateway5xx > 0 && this.rng.next() < gateway5xx) {
      out.before = { tag: this.rng.pick(['502', '503', '504'] as const), retryAfter: 1 };
    } else if (rateLimit429 > 0 && this.rng.next() < rateLimit429) {
      out.before = { tag: '429', retryAfter: 1 };
    } else if (lostResponse > 0 && this.rng.next() < lostResponse) {
      out.lose = true;
    }
    return out;
  }
}

function matches(i: Injection, method: string, path: string, route: string | undefined): boolean {
  if (i.method && i.method.toUpperCase() !== method) return false;
  if (i.path === undefined) return true;
  if (i.path instanceof RegExp) {
    i.path.lastIndex = 0;
    return i.path.test(path);
  }
  return i.path === path || (route !== undefined && i.path === route);
}

function sanitize(f: Partial<Faults>): Partial<Faults> {
  const out: Partial<Faults> = {};
  const prob = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 0);
  if (f.gateway5xx !== undefined) out.gateway5xx = prob(f.gateway5xx);
  if (f.lostResponse !== undefined) out.lostResponse = prob(f.lostResponse);
  if (f.rateLimit429 !== undefined) out.rateLimit429 = prob(f.rateLimit429);
  if (f.latencyMs !== undefined) {
    out.latencyMs = typeof f.latencyMs === 'number' && Number.isFinite(f.latencyMs) ? Math.max(0, f.latencyMs) : 0;
  }
  return out;
}
