import type { Operation } from '../operations/types.js';
import { KeyStore, type ApiKeyRecord, type Principal } from './auth.js';
import { Clock } from './clock.js';
import { FaultPlan } from './faults.js';
import { IdempotencyStore } from './idempotency.js';
import { Lifecycle } from './lifecycle.js';
import { RequestLog } from './log.js';
import { Prng } from './prng.js';
import { RateLimiter } from './rate-limit.js';
import type { RouteTable } from './route-table.js';
import { seedState, type SandboxState } from './state.js';
import type { EffectEntry, SandboxOptions } from './types.js';

// Everything one sandbox instance owns, handed to handlers. Two PRNG streams: demo data/ids and
// faults, so turning faults on does not change the ids a seed produces.

export class SandboxContext {
  readonly clock: Clock;
  readonly rng: Prng;
  readonly faultRng: Prng;
  readonly state: SandboxState;
  readonly keys = new KeyStore();
  /**
   * Which servers an account's credential reaches, beyond "every server of the account": rules
   * that extensions add (the agent flow's temporary accounts, agent/gate.ts), all of which must hold.
   */
  readonly reachRules: ((principal: Principal, serverId: string) => boolean)[] = [];
  readonly rate = new RateLimiter();
  readonly idempotency = new IdempotencyStore();
  readonly log = new RequestLog();
  /** Every change made, in order (types.ts EffectEntry). */
  readonly effects: EffectEntry[] = [];
  readonly faults: FaultPlan;
  readonly lifecycle: Lifecycle;
  readonly defaultRateLimit: number;
  /** Strict mode: answers keep only what the contract shows (strict.ts). */
  readonly strict: boolean;
  /** Hostile mode: what a person reads carries escape sequences and tricky characters (hostile.ts). */
  readonly hostile: boolean;
  /** Hostile states too (`hostile: { states: true }`): `state`, `status` and the console's `status` event carry HOSTILE. */
  readonly hostileStates: boolean;
  readonly demoKeys: { all: ApiKeyRecord; readOnly: ApiKeyRecord };
  /** Set once listening: `http://127.0.0.1:PORT`. */
  origin = '';
  /** The routes, as handlers ask about them (the server matches with the full router.ts). */
  router!: RouteTable;
  /** The wall clock of the rate-limit windows. */
  readonly now: () => number;
  operations: readonly Operation[] = [];

  constructor(opts: SandboxOptions, readOnlyScopes: readonly string[]) {
    const seed = opts.seed ?? 1;
    this.clock = new Clock(opts.timeScale !== undefined && opts.timeScale >= 0 ? opts.timeScale : 1, opts.manualTime === true);
    this.rng = new Prng(seed);
    this.faultRng = new Prng(seed * 7919 + 17);
    this.state = seedState(this.rng, Math.max(0, Math.trunc(opts.servers ?? 3)));
    this.faults = new FaultPlan(opts.faults, this.faultRng);
    this.defaultRateLimit = opts.rateLimit ?? 1000;
    this.strict = opts.strict === true;
    this.hostile = opts.hostile === true || (typeof opts.hostile === 'object' && opts.hostile !== null);
    this.hostileStates = typeof opts.hostile === 'object' && opts.hostile?.states === true;
    this.now = opts.now ?? Date.now;
    const yearFromNow = Date.now() + 365 * 86_400_000;
    this.demoKeys = {
      all: this.keys.create(['*'], { name: 'sandbox all scopes', rateLimit: this.defaultRateLimit, expiresAt: yearFromNow }),
      readOnly: this.keys.create([...readOnlyScopes], { name: 'sandbox read-only', rateLimit: this.defaultRateLimit, expiresAt: yearFromNow }),
    };
    this.lifecycle = new Lifecycle(this.state, this.clock, this.rng, (id) => `${this.origin}/__sandbox/ad?server_id=${encodeURIComponent(id)}`, {
      now: this.now,
      uptimePerSecond: opts.uptimeUnit === 'ms' ? 1000 : 1,
    });
  }

  get baseUrl(): string {
    return `${this.origin}/api/v2`;
  }

  /** doc_url base of error envelopes. */
  get docBase(): string {
    return `${this.baseUrl}/docs`;
  }
}
