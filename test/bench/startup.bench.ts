import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bench, type ExternalSandbox, GSH, startExternalSandbox } from './harness.js';

// Issue 2, item 10: startup budgets as ratios of medians to `node -e 0` in the same run.
describe('startup budgets', () => {
  let sandbox: ExternalSandbox;
  beforeAll(async () => {
    sandbox = await startExternalSandbox(['--servers', '50']);
  });
  afterAll(async () => {
    await sandbox.stop();
  });

  it('gsh --version: ≤ 1.3x and ≤ 50 MiB', () => {
    const r = bench({ name: 'gsh --version', args: [GSH, '--version'], runs: 20, expectStatus: 0 });
    expect(r.ratio).toBeLessThanOrEqual(1.3);
    expect(r.peakRssMiB).toBeLessThanOrEqual(50);
  });

  it('gsh --help: ≤ 1.5x', () => {
    const r = bench({ name: 'gsh --help', args: [GSH, '--help'], runs: 20, expectStatus: 0 });
    expect(r.ratio).toBeLessThanOrEqual(1.5);
  });

  it('a usage error: ≤ 1.5x', () => {
    const r = bench({ name: 'gsh servers lst (usage error)', args: [GSH, 'servers', 'lst'], runs: 20, expectStatus: 2 });
    expect(r.ratio).toBeLessThanOrEqual(1.5);
  });

  it('gsh servers list --json against a sandbox: ≤ 2.5x and ≤ 70 MiB', () => {
    const env = { GSH_BASE_URL: sandbox.baseUrl, GSH_API_KEY: sandbox.key, GSH_CONFIG_DIR: '/nonexistent-gsh-bench' };
    const r = bench({ name: 'gsh servers list --json', args: [GSH, 'servers', 'list', '--json'], env, runs: 20, expectStatus: 0 });
    expect(r.ratio).toBeLessThanOrEqual(2.5);
    expect(r.peakRssMiB).toBeLessThanOrEqual(70);
  });
});
