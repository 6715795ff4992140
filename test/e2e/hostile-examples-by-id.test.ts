import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scene } from '../helpers/example-scene.js';
import { hostilePass, hostileScene } from '../helpers/hostile-examples.js';
import type { E2E } from './helpers.js';

// The second pass of hostile-examples.test.ts (test/helpers/hostile-examples.ts says how): each
// example line that names a server, with the server's id in its place, so that it gets past the
// name lookup (the hostile service's names are not `lobby`) to what the service answers.

let t: E2E;
let scene: Scene;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ t, scene, stop } = await hostileScene());
}, 60_000);

afterAll(() => stop());

describe('every example against a hostile service, on a colour terminal, by id (issue 44)', () => {
  it('every Example: line that names a server, by its id: only gsh\'s own sequences reach the terminal', async () => {
    const pass = await hostilePass(t, scene, true);
    expect(pass.problems, pass.problems.join('\n')).toEqual([]);
    // With the pass by name (more than 420 runs, 150 reads): more than 700 runs, 200 for real.
    expect(pass.ran).toBeGreaterThan(280);
    expect(pass.real).toBeGreaterThan(50);
    expect(pass.shown).toBeGreaterThan(10);
    expect(pass.passedLookup).toBeGreaterThan(200);
  }, 120_000);
});
