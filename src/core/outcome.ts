import { AsyncLocalStorage } from 'node:async_hooks';

// Whether a mutation acted (ARCHITECTURE.md "Requests": outcome of a mutation). Each attempt says
// what its answer proves; the request's outcome is what all its attempts prove together, so a lost
// answer followed by a 502 still reads "may have been applied" instead of the last error alone.
// 01-general-contract.md "Limits": a keyed request replays its first outcome for 24 hours.

export type Outcome = 'applied' | 'not_applied' | 'unknown';

/** The contract's idempotency replay window, in hours (01-general-contract.md "Limits"). */
export const REPLAY_WINDOW_HOURS = 24;

/**
 * What one attempt proves:
 * - `acted`: the service answered 2xx/3xx (the answer may still have been cut afterwards);
 * - `nothing`: an answer that proves nothing happened (4xx, 429, 501), or the request never left;
 * - `maybe`: sent, then no answer (lost, reset, timed out), or a 5xx the contract does not call
 *   pre-processing (none is: 500/502/503/504 may all come after the work started).
 */
export type AttemptProof = 'acted' | 'nothing' | 'maybe';

/** What an answer's status proves about a mutation attempt. */
export function proofOfStatus(status: number): AttemptProof {
  if (status < 400) return 'acted';
  if (status === 501) return 'nothing';
  return status >= 500 ? 'maybe' : 'nothing';
}

/** One mutation across its attempts. */
export class MutationRecord {
  private readonly proofs: AttemptProof[] = [];
  /** An attempt is on the wire now (its answer not in). */
  inFlight = false;

  constructor(readonly idempotencyKey: string) {}

  attempt(proof: AttemptProof): void {
    this.proofs.push(proof);
  }

  /** applied when any answer proved it; unknown when any attempt may have acted (or one is on the wire); else not_applied. */
  get outcome(): Outcome {
    if (this.proofs.includes('acted')) return 'applied';
    return this.inFlight || this.proofs.includes('maybe') ? 'unknown' : 'not_applied';
  }
}

/**
 * The mutations sent inside one unit of work (a command, or one fleet target): the request core
 * records into the tracker of the work it runs in, so a fleet can say, for a target interrupted
 * mid-way, whether its change was sent, accepted or not started.
 */
export class OutcomeTracker {
  readonly mutations: MutationRecord[] = [];

  /** The mutation that decides the work's outcome: the last one sent. */
  get last(): MutationRecord | undefined {
    return this.mutations[this.mutations.length - 1];
  }
}

const current = new AsyncLocalStorage<OutcomeTracker>();

/**
 * Runs `fn` with `tracker` receiving every mutation the request core sends inside it, whichever
 * run's client sends it: work nested in a run and running beside other such work (a fleet's
 * targets, an announcement's says).
 */
export function trackOutcomes<T>(tracker: OutcomeTracker, fn: () => Promise<T>): Promise<T> {
  return current.run(tracker, fn);
}

/**
 * The tracker of a run's own work (what core/run/submit.ts executes), kept by the run and read by the
 * run's clients, not in the AsyncLocalStorage: once one is entered, Node runs promise hooks on
 * every promise the process makes afterwards, about 3 ms of a `gsh servers list` (issue 39).
 * Inside trackOutcomes() its tracker wins, as it did when both were in the storage.
 */
export class RunOutcomes {
  private tracker: OutcomeTracker | undefined;

  /** Runs `fn` with `tracker` receiving the mutations this run's clients send inside it. */
  async track<T>(tracker: OutcomeTracker, fn: () => Promise<T>): Promise<T> {
    const outer = this.tracker;
    this.tracker = tracker;
    try {
      return await fn();
    } finally {
      this.tracker = outer;
    }
  }

  /** The tracker a mutation sent now belongs to: the nested work's, else the run's. */
  get current(): OutcomeTracker | undefined {
    return current.getStore() ?? this.tracker;
  }
}

/** A record for a new mutation, kept by the work's tracker when there is one (`run`: the sending client's run). */
export function recordMutation(idempotencyKey: string, run?: RunOutcomes): MutationRecord {
  const record = new MutationRecord(idempotencyKey);
  (run ? run.current : current.getStore())?.mutations.push(record);
  return record;
}

/**
 * The outcome of a command that failed: what its error says, else what it sent (an error outside
 * a request, after a change went out), else nothing happened when it was to change something
 * (it failed before sending the change: a lookup, a plan check).
 */
export function settleOutcome(err: { outcome?: Outcome; idempotencyKey?: string }, tracker: OutcomeTracker, mutates: boolean): void {
  if (err.outcome !== undefined) return;
  const last = tracker.last;
  if (last) {
    err.outcome = last.outcome;
    err.idempotencyKey = last.idempotencyKey;
  } else if (mutates) {
    err.outcome = 'not_applied';
  }
}
