import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Two projects: `default` is every unit and e2e test (`npm test`); `bench` holds the startup and
// throughput budgets (`npm run bench`), which never run as timed tests.
//
// `default` runs at least two files at once: vitest's own default (CPUs - 1) is one on a 2-core
// machine, and most e2e files spend their time waiting on a sandbox and timers, not on the CPU.
// Files in one worker share loaded modules (isolate: false): a test gets everything it touches
// from its own context (streams, env, config store, sandbox), never from module state, and
// re-importing the sources for each of 60 files cost about a fifth of the run.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'default',
          include: ['test/**/*.test.ts'],
          globalSetup: ['test/helpers/code-cache-dir.ts'],
          exclude: ['test/bench/**'],
          maxWorkers: Math.max(2, availableParallelism() - 1),
          isolate: false,
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'bench',
          include: ['test/bench/**/*.bench.ts'],
          globalSetup: ['test/helpers/code-cache-dir.ts'],
          testTimeout: 600_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
