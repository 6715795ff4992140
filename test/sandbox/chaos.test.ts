import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '../../src/sandbox/index.js';
import { type E2E, setup } from '../e2e/helpers.js';

// Exactly once under chaos (01-general-contract.md "Idempotency" and "Errors" retry rules): 201
// mutations of three kinds through gateway 5xx (30 %), lost responses (25 %) and 429s (10 %). Every
// command exits 0, and the sandbox's log shows exactly one effect for each: one processed,
// successful, non-replayed request with its unique body. The fast clock makes the backoff cheap.

const KINDS = 3;
const PER_KIND = 67;
let t: E2E;
let server: string;
beforeAll(async () => {
  t = await setup({ servers: 2, clock: 0.005 }); // backoff pauses last 0.5 % of their length
  server = [...t.sandbox.state.servers.keys()][0]!;
});
afterAll(() => t.close());

/** Processed by the API (answered, or answered and the answer lost) and not a replay. */
const isEffect = (e: RequestLogEntry) => e.method !== 'GET' && e.status !== null && e.status < 300 && !e.replayed && (e.fault === undefined || e.fault === 'lost');

function argvFor(kind: number, n: number): string[] {
  if (kind === 0) return ['settings', 'update', '-s', server, '--description', `chaos ${n}`];
  if (kind === 1) return ['console', 'send', '-s', server, `say chaos ${n}`];
  return ['subdomains', 'create', '-s', server, '-f', `name=chaos-${n}`];
}

function markOf(e: RequestLogEntry): string | undefined {
  const body = e.body as Record<string, unknown> | undefined;
  const v = body?.description ?? body?.command ?? body?.name;
  return typeof v === 'string' ? /chaos[ -](\d+)/.exec(v)?.[0] : undefined;
}

describe('chaos: exactly one effect per mutation', () => {
  it(`${KINDS * PER_KIND} mutations under 5xx, lost responses and 429s`, async () => {
    t.sandbox.setFaults({ gateway5xx: 0.3, lostResponse: 0.25, rateLimit429: 0.1 });
    const mark = t.sandbox.log.length;
    const jobs = Array.from({ length: KINDS * PER_KIND }, (_v, i) => argvFor(i % KINDS, i));
    const exits: number[] = [];
    try {
      let next = 0;
      await Promise.all(Array.from({ length: 8 }, async () => {
        while (next < jobs.length) {
          const argv = jobs[next++]!;
          const r = await t.gsh([...argv, '--retries', '20']);
          if (r.exitCode !== 0) console.error(argv.join(' '), r.exitCode, r.stderr);
          exits.push(r.exitCode);
        }
      }));
    } finally {
      t.sandbox.setFaults({ gateway5xx: 0, lostResponse: 0, rateLimit429: 0 });
    }
    expect(exits.filter((x) => x !== 0)).toEqual([]);
    const log = t.sandbox.log.slice(mark);
    const effects = new Map<string, number>();
    for (const e of log.filter(isEffect)) {
      const m = markOf(e);
      if (m) effects.set(m, (effects.get(m) ?? 0) + 1);
    }
    expect(effects.size).toBe(jobs.length);
    expect([...effects.values()].filter((n) => n !== 1)).toEqual([]);
    // The faults really happened.
    expect(log.filter((e) => e.fault === 'lost').length).toBeGreaterThan(20);
    expect(log.filter((e) => e.fault !== undefined && e.fault !== 'lost').length).toBeGreaterThan(20);
  }, 90_000);
});
