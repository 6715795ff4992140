import { describe, expect, it } from 'vitest';
import { budgetFloorMs, DEFAULT_FLOOR_MS, refreshInterval, requestsPerRefresh, stretchNote } from '../../../src/top/budget.js';

// How often `gsh top` refreshes (README "gsh top"): ⌈N/100⌉ requests a refresh
// (02-endpoints-part-a.md "Servers": include=status on the list; 01-general-contract.md "Limits":
// at most 100 a page), at most half of the key's X-RateLimit-Limit a minute (01 "Limits": default 60).

describe('requests a refresh', () => {
  it.each([[0, 1], [1, 1], [100, 1], [101, 2], [237, 3], [1000, 10]])('%i servers: %i', (servers, requests) => {
    expect(requestsPerRefresh(servers)).toBe(requests);
  });
});

describe('the interval', () => {
  it('237 servers on 60 a minute: 3 requests every 6 s is 30 a minute, half the budget', () => {
    const i = refreshInterval(237, 60);
    expect(i).toEqual({ ms: 6000 });
    expect((60_000 / i.ms) * requestsPerRefresh(237)).toBe(30);
  });

  it('a large budget is not spent faster than every 2 s by default', () => {
    expect(refreshInterval(237, 10_000)).toEqual({ ms: DEFAULT_FLOOR_MS });
  });

  it('without X-RateLimit-Limit the contract\'s default of 60 a minute is assumed', () => {
    expect(refreshInterval(50, undefined)).toEqual({ ms: 2000 });
    expect(refreshInterval(500, undefined)).toEqual({ ms: budgetFloorMs(5, 60) });
    expect(budgetFloorMs(5, 60)).toBe(10_000);
  });

  it('--interval within the budget is kept (also below the 2 s default floor)', () => {
    expect(refreshInterval(237, 60, 10_000)).toEqual({ ms: 10_000 });
    expect(refreshInterval(10, 1000, 1000)).toEqual({ ms: 1000 });
  });

  it('--interval that would take more than half is stretched, and the note says why', () => {
    const i = refreshInterval(237, 60, 1000);
    expect(i).toEqual({ ms: 6000, stretchedFrom: 1000 });
    expect(stretchNote(i, 237, 60)).toBe("--interval 1s stretched to 6s: 3 requests a refresh (237 servers) must stay within half of the key's 60 requests a minute");
    expect(stretchNote(refreshInterval(237, 60, 6000), 237, 60)).toBeUndefined();
  });

  it('a minute at the chosen interval never uses more than half of the limit', () => {
    for (const servers of [1, 99, 100, 101, 237, 999, 5000]) {
      for (const limit of [10, 60, 61, 600, 10_000]) {
        for (const asked of [undefined, 1000, 3000, 60_000]) {
          const { ms } = refreshInterval(servers, limit, asked);
          expect(requestsPerRefresh(servers) * (60_000 / ms)).toBeLessThanOrEqual(limit / 2);
        }
      }
    }
  });
});
