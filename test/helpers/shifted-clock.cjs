'use strict';
// Loaded with `node --require` into a gsh subprocess (test/e2e/shared-budget.test.ts): its wall
// clock runs TEST_CLOCK_SHIFT_MS off (behind, there), as the sandbox's does in that test, so both agree on
// where the key's one-minute rate window ends (X-RateLimit-Reset, unix seconds) while the test
// puts that end a few seconds away instead of waiting for a real minute to turn. Only the offset
// changes; time passes at its real rate.
const shift = Number(process.env.TEST_CLOCK_SHIFT_MS) || 0;
const realNow = Date.now;
Date.now = () => realNow() + shift;
