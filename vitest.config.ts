import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Three projects: `default` is every unit and e2e test; `strict` runs the end-to-end files that
// read what the contract does not show (server and backup fields, job and status records, lists
// by column, waits, fleets, every command of the walk) a second time against a strict sandbox
// (src/sandbox/strict.ts; test/e2e/helpers.ts reads GSH_TEST_SANDBOX); `npm test` runs both.
// `bench` holds the startup and throughput budgets (`npm run bench`), never run as timed tests.
// Every project runs with a HOME and XDG dirs of the run's own, and fails when the user's own
// ~/.config/gsh changed meanwhile (test/helpers/own-home.ts).
//
// Four files at once at least (two per core): vitest's own default (CPUs - 1) is one on a 2-core
// machine, and most e2e files spend their time waiting on a sandbox and timers, not on the CPU
// (with two workers the run used about one core of two).
// Files in one worker share loaded modules (isolate: false): a test gets everything it touches
// from its own context (streams, env, config store, sandbox), never from module state, and
// re-importing the sources for each of 60 files cost about a fifth of the run.
// The second pass: files whose commands read server, backup, job or status records, lists by
// column, waits and fleets; `walk` runs every command of the registry once, `examples-run` every
// example of the README and the help pages (the README's scripts run strict in their own file).
// Files whose answers the strict mode leaves as they are (signed URLs, console, files, subusers,
// init) run once.
const STRICT_PASS = [
  'test/e2e/foundation.test.ts',
  'test/e2e/output-scripts.test.ts',
  'test/e2e/fleet.test.ts',
  'test/e2e/walk.test.ts',
  'test/e2e/backups.test.ts',
  'test/e2e/ready.test.ts',
  'test/e2e/ready-restart.test.ts',
  'test/e2e/waits-on-time.test.ts',
  'test/e2e/server-refs.test.ts',
  'test/e2e/interrupt-steps.test.ts',
  'test/e2e/interrupt-resume.test.ts',
  'test/e2e/top.test.ts',
  'test/e2e/top-service.test.ts',
  'test/e2e/examples-run.test.ts',
  'test/e2e/config-code.test.ts',
  'test/e2e/config-code-fleet.test.ts',
  'test/e2e/small-ones.test.ts',
  'test/e2e/one-target-one-file.test.ts',
  'test/e2e/declaration-inputs.test.ts',
  'test/e2e/config-code-runs.test.ts',
  'test/e2e/config-code-plans.test.ts',
  'test/e2e/config-code-templates.test.ts',
  'test/e2e/config-code-adopt.test.ts',
  'test/e2e/mcp-proxy.test.ts',
  'test/e2e/mcp-guardrails.test.ts',
  'test/e2e/rollouts.test.ts',
  'test/e2e/config-code-rollouts.test.ts',
];

// A user's environment (no NODE_EXTRA_CA_CERTS), scratch files in memory (test/helpers/scratch-dir.ts), then a HOME and a code cache in them.
const GLOBAL_SETUP = ['test/helpers/users-env.ts', 'test/helpers/scratch-dir.ts', 'test/helpers/own-home.ts', 'test/helpers/code-cache-dir.ts'];

export default defineConfig({
  test: {
    // After vitest's summary, every skipped test with its reason (test/helpers/skip-reasons.ts).
    reporters: ['default', './test/helpers/skip-reasons.ts'],
    projects: [
      {
        test: {
          name: 'default',
          include: ['test/**/*.test.ts'],
          globalSetup: GLOBAL_SETUP,
          exclude: ['test/bench/**'],
          maxWorkers: Math.max(4, availableParallelism()),
          isolate: false,
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'strict',
          include: STRICT_PASS,
          globalSetup: GLOBAL_SETUP,
          env: { GSH_TEST_SANDBOX: 'strict' },
          maxWorkers: Math.max(4, availableParallelism()),
          isolate: false,
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'bench',
          include: ['test/bench/**/*.bench.ts'],
          globalSetup: GLOBAL_SETUP,
          testTimeout: 600_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
