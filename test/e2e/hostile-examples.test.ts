import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scene } from '../helpers/example-scene.js';
import { CANNOT_RUN, hostilePass, hostileScene } from '../helpers/hostile-examples.js';
import type { E2E } from './helpers.js';

// Every example against a hostile service, on a colour terminal (issue 44), each line by the
// names it types: test/helpers/hostile-examples.ts says how. The lines that name a server run
// again by id in hostile-examples-by-id.test.ts (a worker of its own, at the same time).

let t: E2E;
let scene: Scene;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ t, scene, stop } = await hostileScene());
}, 60_000);

afterAll(() => stop());

describe('every example against a hostile service, on a colour terminal (issue 44)', () => {
  it('every Example: line of every help page: only gsh\'s own sequences reach the terminal', async () => {
    const pass = await hostilePass(t, scene, false);
    expect(pass.lines).toBeGreaterThan(400);
    expect(pass.problems, pass.problems.join('\n')).toEqual([]);
    // With the pass by id (more than 280 runs, 50 reads): more than 700 runs, 200 for real.
    expect(pass.ran).toBeGreaterThan(420);
    expect(pass.real).toBeGreaterThan(150);
    expect(pass.shown).toBeGreaterThan(100);
    // Every skip names its reason and skips something; few lines are skipped.
    for (const [re, why] of CANNOT_RUN) expect(pass.skipped.get(re)?.length ?? 0, `${re} (${why}) skips no line`).toBeGreaterThan(0);
    expect([...pass.skipped.values()].flat().length).toBeLessThan(25);
  }, 120_000);
});
