import { describe, expect, it } from 'vitest';
import { MutationRecord, OutcomeTracker, proofOfStatus, recordMutation, RunOutcomes, settleOutcome, trackOutcomes } from '../../../src/core/outcome.js';

// What a mutation's attempts prove together (ARCHITECTURE.md "Requests": outcome of a mutation;
// 01-general-contract.md "Errors": no 5xx is said to come before the work starts).
describe('a mutation outcome across attempts', () => {
  const ending = (...proofs: Parameters<MutationRecord['attempt']>[0][]) => {
    const r = new MutationRecord('k');
    for (const p of proofs) r.attempt(p);
    return r.outcome;
  };

  it('an answer lost on any attempt keeps it unknown, whatever the later attempts got', () => {
    expect(ending('maybe', proofOfStatus(429), proofOfStatus(429))).toBe('unknown');
    expect(ending('maybe', proofOfStatus(409))).toBe('unknown');
    expect(ending(proofOfStatus(502), proofOfStatus(429))).toBe('unknown');
  });

  it('answers that prove nothing happened: not_applied', () => {
    expect(ending(proofOfStatus(429), proofOfStatus(429))).toBe('not_applied');
    expect(ending(proofOfStatus(501))).toBe('not_applied');
    expect(ending('nothing', proofOfStatus(400))).toBe('not_applied');
  });

  it('a 2xx on any attempt: applied', () => {
    expect(ending('maybe', proofOfStatus(202))).toBe('applied');
  });

  it('an attempt on the wire is unknown until its answer is in', () => {
    const r = new MutationRecord('k');
    r.inFlight = true;
    expect(r.outcome).toBe('unknown');
  });

  it('a failure outside a request takes what the work sent, or not_applied for a change never sent', async () => {
    const tracker = new OutcomeTracker();
    await trackOutcomes(tracker, async () => void recordMutation('k1').attempt('acted'));
    const err: { outcome?: 'applied' | 'not_applied' | 'unknown'; idempotencyKey?: string } = {};
    settleOutcome(err, tracker, true);
    expect(err).toEqual({ outcome: 'applied', idempotencyKey: 'k1' });
    const none: typeof err = {};
    settleOutcome(none, new OutcomeTracker(), true);
    expect(none).toEqual({ outcome: 'not_applied' });
    const read: typeof err = {};
    settleOutcome(read, new OutcomeTracker(), false);
    expect(read).toEqual({});
  });

  it("a run's tracker takes its clients' mutations while its work runs; nested work keeps its own", async () => {
    const run = new RunOutcomes();
    const own = new OutcomeTracker();
    const nested = new OutcomeTracker();
    recordMutation('before', run);
    await run.track(own, async () => {
      recordMutation('k1', run);
      await trackOutcomes(nested, async () => void recordMutation('say', run));
      await Promise.resolve();
      recordMutation('k2', run);
    });
    recordMutation('after', run);
    expect(own.mutations.map((m) => m.idempotencyKey)).toEqual(['k1', 'k2']);
    expect(nested.mutations.map((m) => m.idempotencyKey)).toEqual(['say']);
    expect(run.current).toBeUndefined();
  });
});
