import { defineConfig } from 'vitest/config';

// Two projects: `default` is every unit and e2e test (`npm test`); `bench` holds the startup and
// throughput budgets (`npm run bench`), which never run as timed tests.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'default',
          include: ['test/**/*.test.ts'],
          exclude: ['test/bench/**'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'bench',
          include: ['test/bench/**/*.bench.ts'],
          testTimeout: 600_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
