import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../src/sandbox/index.js';
import { runGsh } from '../../helpers/context.js';
let sb: Sandbox;
beforeAll(async () => { sb = await startSandbox({ timeScale: 0.05 }); });
afterAll(async () => { await sb.close(); });
it('runs', async () => {
  const env = { GSH_BASE_URL: sb.baseUrl, GSH_API_KEY: sb.keys.all, GSH_CONFIG_DIR: '/tmp/t' };
  const r = await runGsh(['servers', 'list', '--json'], { env });
  expect(r.exitCode).toBe(0);
  expect(JSON.parse(r.stdout).length).toBe(3);
  const d = await runGsh(['power', 'restart', '-s', 'survival', '--dry-run', '--wait'], { env });
  expect(d.stdout).toContain('POST');
  const bad = await runGsh(['power', 'restart', '-s', 'survival', '--wait', '--timeout', 'abc'], { env });
  expect(bad.exitCode).toBe(2);
  const h = await runGsh(['--help'], { env });
  expect(h.exitCode).toBe(0); expect(h.stdout).toContain('--dry-run');
});
