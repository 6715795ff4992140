import { execa } from 'execa';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readmeBlocks } from '../helpers/examples.js';
import { GSH, setup, type E2E } from './helpers.js';

// Issue 50 item 6: the README's CI job for `gsh config` (README "Configuration as code") runs as
// written in a clean environment: each step's `run:` with sh, the built gsh on PATH (the job's
// install step), a HOME of its own and no gsh profile, and only the environment the step's `env:`
// gives (`${{ vars.X }}` and `${{ secrets.X }}` filled in as a repository's settings would). The
// servers it reads are a contract-only sandbox's (01-general-contract.md "Envelope"; strict mode).

interface Step {
  uses?: string;
  run?: string;
  env?: Record<string, string>;
  if?: string;
  id?: string;
}

let t: E2E;
let dir: string;
let steps: Step[];
let settings: Record<string, string>;

beforeAll(async () => {
  t = await setup({ strict: true, servers: 3 });
  const lobby = [...t.sandbox.state.servers.values()].find((s) => s.application === 'minecraft')!;
  lobby.name = 'lobby';
  dir = mkdtempSync(join(tmpdir(), 'gsh-ci-job-'));
  const block = readmeBlocks().find((b) => b.lang === 'yaml' && /^jobs:/m.test(b.text) && /gsh config diff/.test(b.text));
  if (!block) throw new Error('no README CI job running gsh config diff');
  const job = parse(block.text) as { jobs: Record<string, { steps: Step[] }> };
  steps = Object.values(job.jobs).flatMap((j) => j.steps);
  settings = { 'vars.GSH_BASE_URL': t.sandbox.baseUrl, 'secrets.GSH_API_KEY': t.sandbox.keys.all };
  // The job's install step puts gsh on PATH: here the built binary.
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'gsh'), `#!/bin/sh\nexec "${process.execPath}" "${GSH}" "$@"\n`);
  chmodSync(join(bin, 'gsh'), 0o755);
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A step's env with the repository's settings filled in; an expression the test does not know fails the test. */
function envOf(step: Step): Record<string, string> {
  return Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, v.replace(/\$\{\{\s*([\w.]+)\s*\}\}/g, (_, name: string) => {
    const value = settings[name];
    if (value === undefined) throw new Error(`the job uses \${{ ${name} }}, which this test does not provide`);
    return value;
  })]));
}

/** Runs the job's gsh steps in order in the checkout `work`; the exit code of each. */
async function runJob(work: string): Promise<Array<{ run: string; exitCode: number; stdout: string; stderr: string }>> {
  const home = mkdtempSync(join(dir, 'home-'));
  const out = [];
  for (const step of steps) {
    if (step.run === undefined || /npm install/.test(step.run)) continue;
    const r = await execa('sh', ['-c', step.run], {
      cwd: work,
      reject: false,
      timeout: 60_000,
      extendEnv: false,
      env: { PATH: `${join(dir, 'bin')}:/usr/bin:/bin`, HOME: home, ...envOf(step) },
    });
    out.push({ run: step.run, exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) });
    if (r.exitCode !== 0) break;
  }
  return out;
}

describe('the README CI job for config diff, as written', () => {
  it('in sync: every step exits 0; drifted: the diff step fails the job with 14, naming the change', async () => {
    const work = mkdtempSync(join(dir, 'checkout-'));
    mkdirSync(join(work, 'servers'));
    // The checkout: one file that declares what the server has (export's output).
    const exported = await t.gsh(['config', 'export', '-s', 'lobby', '--dir', join(work, 'servers'), '--only', 'properties']);
    expect(exported.exitCode, exported.stderr).toBe(0);
    const inSync = await runJob(work);
    expect(inSync.map((s) => s.exitCode), JSON.stringify(inSync, null, 2)).toEqual(steps.filter((s) => s.run !== undefined && !/npm install/.test(s.run)).map(() => 0));
    expect(inSync.some((s) => /gsh config diff/.test(s.run))).toBe(true);
    // A change by hand on the server: the job fails at the diff step, with the changed key in its log.
    expect((await t.gsh(['properties', 'update', '-s', 'lobby', '-f', 'motd=Changed by hand'])).exitCode).toBe(0);
    const drifted = await runJob(work);
    const diff = drifted.find((s) => /gsh config diff/.test(s.run))!;
    expect(diff.exitCode, diff.stderr).toBe(14);
    expect(diff.stdout).toContain('properties.motd');
    expect(readFileSync(join(work, 'servers', 'lobby.yaml'), 'utf8')).not.toContain('Changed by hand');
  });
});
