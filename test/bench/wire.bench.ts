import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy, type TestProxy } from '../helpers/test-proxy.js';
import { envNote, type ExternalSandbox, GSH, startExternalSandbox, userEnv } from './harness.js';

// Stale kept-alive connections cost nothing (issue 45): 30 mutations through a proxy that closes
// a kept-alive connection as it is reused (what a server's idle timeout does when it fires just
// as the client writes), against the same 30 sent direct. Each runs with a config dir of its own,
// so its lookup goes first and the mutation reuses the lookup's connection. Budget: at most
// 1.5x the direct time, plus 1 s. The proxy runs on this process's event loop, so the commands
// are spawned asynchronously (not with the harness's spawnSync) and timed as a whole.

const run = promisify(execFile);
const COUNT = 30;
const BUDGET_RATIO = 1.5;
const BUDGET_EXTRA_MS = 1000;

describe('stale connections', () => {
  let sandbox: ExternalSandbox;
  let proxy: TestProxy;
  const dirs: string[] = [];
  beforeAll(async () => {
    [sandbox, proxy] = await Promise.all([startExternalSandbox(['--rate-limit', '1000000']), startProxy({ closeOnReuse: true })]);
  });
  afterAll(async () => {
    await Promise.all([sandbox?.stop(), proxy?.close()]);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  async function mutation(id: string, i: number, viaProxy: boolean): Promise<number> {
    const dir = mkdtempSync(join(tmpdir(), 'gsh-bench-wire-'));
    dirs.push(dir);
    const env = userEnv({ GSH_BASE_URL: sandbox.baseUrl, GSH_API_KEY: sandbox.key, GSH_CONFIG_DIR: dir, ...(viaProxy ? { HTTP_PROXY: proxy.url } : {}) });
    const t0 = process.hrtime.bigint();
    await run(process.execPath, [GSH, 'settings', 'update', '-s', id, '--description', `bench ${i}`, '--retries', '0'], { env });
    return Number(process.hrtime.bigint() - t0) / 1e6;
  }

  it(`${COUNT} mutations through a proxy that closes reused connections: within ${BUDGET_RATIO}x (+${BUDGET_EXTRA_MS / 1000} s) of direct`, async () => {
    const { stdout } = await run(process.execPath, [GSH, 'servers', 'list', '-o', 'json'], { env: userEnv({ GSH_BASE_URL: sandbox.baseUrl, GSH_API_KEY: sandbox.key, GSH_CONFIG_DIR: '/nonexistent-gsh-bench' }) });
    const id = String((JSON.parse(stdout) as Array<{ id: string }>)[0]!.id);
    // Warm the file cache and gsh's code cache for both.
    await mutation(id, -1, false);
    await mutation(id, -2, true);
    let direct = 0;
    let proxied = 0;
    // Paired, alternating which goes first, so machine load hits both.
    for (let i = 0; i < COUNT; i++) {
      if (i % 2 === 0) {
        direct += await mutation(id, i, false);
        proxied += await mutation(id, i, true);
      } else {
        proxied += await mutation(id, i, true);
        direct += await mutation(id, i, false);
      }
    }
    const closed = proxy.seen.filter((l) => l === 'closed on reuse').length;
    const budget = direct * BUDGET_RATIO + BUDGET_EXTRA_MS;
    process.stdout.write(`\n${COUNT} mutations direct: ${(direct / 1000).toFixed(2)} s; through the proxy: ${(proxied / 1000).toFixed(2)} s (${(proxied / direct).toFixed(2)}x; `
      + `${closed} connections closed as they were reused); budget ${(budget / 1000).toFixed(2)} s (${envNote()})\n\n`);
    expect(closed).toBeGreaterThanOrEqual(COUNT);
    if (process.env.GSH_BENCH_REPORT_ONLY !== '1') expect(proxied).toBeLessThanOrEqual(budget);
  }, 300_000);
});
