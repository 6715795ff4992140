import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../src/sandbox/index.js';
import { runGsh } from '../../helpers/context.js';

// run(argv, ctx) in-process against the sandbox (ARCHITECTURE.md "Plan, then execute"): a read, a
// dry run, a usage error before any request, and help, each with its exit code.

let sb: Sandbox;
let dir: string;
beforeAll(async () => {
  sb = await startSandbox({ timeScale: 0.05 });
  dir = mkdtempSync(join(tmpdir(), 'gsh-smoke-'));
});
afterAll(async () => {
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});

it('runs', async () => {
  const env = { GSH_BASE_URL: sb.baseUrl, GSH_API_KEY: sb.keys.all, GSH_CONFIG_DIR: dir };
  const r = await runGsh(['servers', 'list', '--json'], { env });
  expect(r.exitCode).toBe(0);
  expect(JSON.parse(r.stdout).length).toBe(3);
  const before = sb.log.length;
  const d = await runGsh(['power', 'restart', '-s', 'survival', '--dry-run', '--wait'], { env });
  expect(d.exitCode).toBe(0);
  expect(d.stdout).toContain('POST');
  const bad = await runGsh(['power', 'restart', '-s', 'survival', '--wait', '--timeout', 'abc'], { env });
  expect(bad.exitCode).toBe(2);
  expect(sb.log.slice(before).map((e) => `${e.method} ${e.path}`)).toEqual(['GET /servers']);
  const h = await runGsh(['--help'], { env });
  expect(h.exitCode).toBe(0);
  expect(h.stdout).toContain('--dry-run');
});
