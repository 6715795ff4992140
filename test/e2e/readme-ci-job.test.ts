import { execa } from 'execa';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
  settings = { 'vars.GSH_BASE_URL': t.sandbox.baseUrl, 'secrets.GSH_API_KEY': t.sandbox.keys.all, 'github.event.pull_request.number': '7', 'github.token': 'ghs_test_token' };
  // The job's install step puts gsh on PATH: here the built binary.
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'gsh'), `#!/bin/sh\nexec "${process.execPath}" "${GSH}" "$@"\n`);
  chmodSync(join(bin, 'gsh'), 0o755);
  // GitHub's CLI, as the runner has it: here it keeps what it was asked to post.
  writeFileSync(join(bin, 'gh'), `#!/bin/sh\nprintf '%s\\n' "$*" > "${join(dir, 'gh-args')}"\nwhile [ $# -gt 0 ]; do [ "$1" = --body-file ] && cp "$2" "${join(dir, 'gh-body')}"; shift; done\n`);
  chmodSync(join(bin, 'gh'), 0o755);
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `${{ name }}` filled in as the runner would; an expression the test does not know fails the test. */
function fill(text: string): string {
  return text.replace(/\$\{\{\s*([\w.]+)\s*\}\}/g, (_, name: string) => {
    const value = settings[name];
    if (value === undefined) throw new Error(`the job uses \${{ ${name} }}, which this test does not provide`);
    return value;
  });
}

const envOf = (step: Step): Record<string, string> => Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, fill(v)]));

/** Runs the job's gsh steps in order in the checkout `work`; the exit code of each. */
async function runJob(work: string): Promise<Array<{ run: string; exitCode: number; stdout: string; stderr: string }>> {
  const home = mkdtempSync(join(dir, 'home-'));
  const out = [];
  let failed = false;
  rmSync(join(dir, 'gh-args'), { force: true });
  for (const step of steps) {
    if (step.run === undefined || /npm install/.test(step.run)) continue;
    // A step runs while every one before it succeeded; one whose `if:` asks for failure() only after one failed.
    const onFailure = /failure\(\)/.test(step.if ?? '');
    if (onFailure !== failed) continue;
    const r = await execa('sh', ['-c', fill(step.run)], {
      cwd: work,
      reject: false,
      timeout: 60_000,
      extendEnv: false,
      env: { PATH: `${join(dir, 'bin')}:/usr/bin:/bin`, HOME: home, ...envOf(step) },
    });
    out.push({ run: step.run, exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) });
    if (r.exitCode !== 0) failed = true;
  }
  return out;
}

describe('the README CI job for config diff, as written', () => {
  it('in sync: every step exits 0, nothing posted; drifted: the diff step fails the job with 14 and the comment step posts the markdown', async () => {
    const work = mkdtempSync(join(dir, 'checkout-'));
    mkdirSync(join(work, 'servers'));
    // The checkout: one file that declares what the server has (export's output).
    const exported = await t.gsh(['config', 'export', '-s', 'lobby', '--dir', join(work, 'servers'), '--only', 'properties']);
    expect(exported.exitCode, exported.stderr).toBe(0);
    const inSync = await runJob(work);
    expect(inSync.map((s) => s.exitCode), JSON.stringify(inSync, null, 2)).toEqual(steps.filter((s) => s.run !== undefined && !/npm install/.test(s.run) && !/failure\(\)/.test(s.if ?? '')).map(() => 0));
    expect(inSync.some((s) => /gsh config diff/.test(s.run))).toBe(true);
    // In sync: nothing is posted.
    expect(existsSync(join(dir, 'gh-args'))).toBe(false);
    // A change by hand on the server: the job fails at the diff step, with the changed key in its log.
    expect((await t.gsh(['properties', 'update', '-s', 'lobby', '-f', 'motd=Changed by hand'])).exitCode).toBe(0);
    const drifted = await runJob(work);
    const diff = drifted.find((s) => /gsh config diff/.test(s.run))!;
    expect(diff.exitCode, diff.stderr).toBe(14);
    // The comment step posted the difference: a summary line and the kind's table with the change.
    const posted = drifted.find((s) => /gh pr comment/.test(s.run))!;
    expect(posted.exitCode, posted.stderr).toBe(0);
    expect(readFileSync(join(dir, 'gh-args'), 'utf8')).toBe('pr comment 7 --body-file diff.md\n');
    const body = readFileSync(join(dir, 'gh-body'), 'utf8');
    expect(body.split('\n')[0]).toBe('### gsh config diff: 1 server of 1 differs');
    expect(body).toMatch(/^\| lobby \| properties\.motd \| Changed by hand \| .* \| update \|$/m);
    expect(body.length).toBeLessThanOrEqual(65_000);
    expect(readFileSync(join(work, 'servers', 'lobby.yaml'), 'utf8')).not.toContain('Changed by hand');
  });
});
