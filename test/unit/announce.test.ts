import { describe, expect, it } from 'vitest';
import { budgetProblem, planOf, timelineLoad } from '../../src/leaf/announce-checks.js';
import { type Announcement, parseCountdown, withAnnouncement } from '../../src/leaf/announce.js';

// Issue 36 item 2 (checks before announcing) and issue 37 (the dry-run's countdown offsets), on the
// pure parts: the timeline as the plan prints it, its requests against a key's budget
// (01-general-contract.md "Limits": X-RateLimit-Limit, -Remaining, -Reset), a record's plan.

function announcement(countdown: string, targets = 1): Announcement {
  const points = parseCountdown(countdown);
  const ts = Array.from({ length: targets }, (_, i) => ({ id: `s${i}`, label: `s${i}` }));
  return {
    points,
    sends: points.map((p) => ts.map((t) => ({ method: 'POST' as const, path: `/servers/${t.id}/commands`, body: { command: `say in ${p.left}` } }))),
    targets: ts,
    parallel: 4,
    verb: 'restart',
  };
}

describe('the countdown as the plan shows it', () => {
  it('each point says its own time after the start and after the previous point', () => {
    const plan = withAnnouncement({ requests: [], then: [] }, announcement('10m,5m,1m,10s'));
    expect(plan.then.slice(0, 5).map((s) => s.description.replace(/: send .*/, ''))).toEqual([
      'T-10m (at once)',
      'T-5m (5m after the start, 5m after the previous one)',
      'T-1m (9m after the start, 4m after the previous one)',
      'T-10s (9m50s after the start, 50s after the previous one)',
      'T-0 (10m after the start, 10s after the last announcement)',
    ]);
  });
});

describe('the timeline against the rate limit', () => {
  const at = (s: number) => s * 1000;
  const now = at(1_000_000);

  it('counts every say, and at T-0 the action, the --ready token and the first status read', () => {
    const load = timelineLoad(announcement('30s,10s', 3), { ready: true, readsSettings: false, waits: true });
    expect(load).toEqual([
      { at: 0, requests: 3, what: 'T-30s' },
      { at: 20_000, requests: 3, what: 'T-10s' },
      { at: 30_000, requests: 3 * 2 + 1, what: 'T-0' },
    ]);
  });

  it('refuses what the current window cannot hold, or any minute beyond the limit; passes what fits', () => {
    const load = timelineLoad(announcement('30s,20s,10s', 2), { ready: false, readsSettings: false, waits: false });
    // 8 requests within 30 s.
    expect(budgetProblem(load, { limit: 5, remaining: 5, reset: (now + at(60)) / 1000 }, now)).toMatch(/needs 8 requests in the next 60 s .* has 5 left/);
    expect(budgetProblem(load, { limit: 5, remaining: 5, reset: (now + at(1)) / 1000 }, now)).toMatch(/needs 8 requests within one minute .* allows 5 a minute/);
    expect(budgetProblem(load, { limit: 8, remaining: 8, reset: (now + at(60)) / 1000 }, now)).toBeUndefined();
    // Two points a minute apart on one server: never more than 2 in a minute.
    const slow = timelineLoad(announcement('2m,1m'), { ready: false, readsSettings: false, waits: false });
    expect(budgetProblem(slow, { limit: 2, remaining: 1, reset: (now + at(30)) / 1000 }, now)).toBeUndefined();
    expect(budgetProblem(slow, { limit: 2, remaining: 0, reset: (now + at(30)) / 1000 }, now)).toMatch(/has 0 left/);
  });
});

describe('a server record\'s plan (not shown by the contract: read where it is, unknown otherwise)', () => {
  it.each([
    ['free', 'free'], ['Free', 'free'], ['paid', 'paid'], ['premium', 'paid'],
    [{ name: 'free', free: true }, 'free'], [{ free: false, name: 'free' }, 'paid'], [{ slug: 'free' }, 'free'], [{ tier: 'gold' }, 'paid'],
    [undefined, undefined], [null, undefined], ['', undefined], [{ price: 0 }, undefined], [3, undefined],
  ])('%j is %s', (plan, kind) => {
    expect(planOf(plan)).toBe(kind);
  });
});
