import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetfulFront, type ForgetfulFront, startProxy, type TestProxy } from '../helpers/test-proxy.js';
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

// A fleet mutation where kept-alive connections go stale (issue 45): `power restart --all-servers
// --yes --wait` over 50 servers (1 listing, 50 restarts, then shared rounds of polls at 1 s and
// longer), three ways: straight to the sandbox; to the sandbox behind a front that forgets a
// connection idle more than 500 ms (under gsh's 4 s) and resets it as gsh writes on it again, so
// every poll round finds its connections stale; and through the proxy that closes each reused
// connection. Timed on this process's monotonic clock, each run a whole command; report-only (the
// poll rounds' pauses dominate, so the figure says what stale connections add, not a budget).

const FLEET = 50;
const FLEET_RUNS = 3;
const FORGET_AFTER_MS = 500;

describe('stale connections in a 50-server fleet mutation', () => {
  let sandbox: ExternalSandbox;
  let proxy: TestProxy;
  let front: ForgetfulFront;
  const dir = mkdtempSync(join(tmpdir(), 'gsh-bench-fleet-'));
  beforeAll(async () => {
    sandbox = await startExternalSandbox(['--servers', String(FLEET), '--time-scale', '0.01', '--rate-limit', '1000000']);
    [proxy, front] = await Promise.all([startProxy({ closeOnReuse: true }), forgetfulFront(sandbox.baseUrl, FORGET_AFTER_MS)]);
  });
  afterAll(async () => {
    await Promise.all([sandbox?.stop(), proxy?.close(), front?.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  type Way = 'direct' | 'stale' | 'proxy';
  async function restart(way: Way): Promise<{ ms: number; requests: number; resent: number }> {
    const env = userEnv({
      GSH_BASE_URL: way === 'stale' ? front.url : sandbox.baseUrl, GSH_API_KEY: sandbox.key, GSH_CONFIG_DIR: dir,
      ...(way === 'proxy' ? { HTTP_PROXY: proxy.url } : {}),
    });
    const t0 = process.hrtime.bigint();
    const { stderr } = await run(process.execPath, [GSH, 'power', 'restart', '--all-servers', '--yes', '--wait', '--retries', '0', '-o', 'jsonl', '--debug'], { env, maxBuffer: 64 * 1024 * 1024 });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    return { ms, requests: stderr.match(/^> (GET|POST) /gm)?.length ?? 0, resent: stderr.match(/sent again at once on a new connection/g)?.length ?? 0 };
  }

  it(`power restart --all-servers --yes --wait over ${FLEET} servers: direct, behind a front that forgets idle connections, through a closing proxy`, async () => {
    await restart('direct');
    const totals: Record<Way, { ms: number[]; requests: number; resent: number }> = { direct: { ms: [], requests: 0, resent: 0 }, stale: { ms: [], requests: 0, resent: 0 }, proxy: { ms: [], requests: 0, resent: 0 } };
    const ways: Way[] = ['direct', 'stale', 'proxy'];
    for (let i = 0; i < FLEET_RUNS; i++) {
      // Rotated, so machine load hits each way at each position.
      for (const way of [...ways.slice(i % 3), ...ways.slice(0, i % 3)]) {
        const r = await restart(way);
        totals[way].ms.push(r.ms);
        totals[way].requests += r.requests;
        totals[way].resent += r.resent;
      }
    }
    const line = (way: Way, what: string) => {
      const t = totals[way];
      const ms = [...t.ms].sort((a, b) => a - b);
      return `  ${what}: median ${(ms[Math.floor(ms.length / 2)]! / 1000).toFixed(2)} s (runs ${ms.map((m) => (m / 1000).toFixed(2)).join(', ')} s); ${t.requests / FLEET_RUNS} requests and ${t.resent / FLEET_RUNS} resent per run\n`;
    };
    process.stdout.write(`\n${FLEET}-server power restart --wait, ${FLEET_RUNS} runs each (${envNote()}):\n`
      + line('direct', 'direct to the sandbox')
      + line('stale', `behind a front that forgets connections idle > ${FORGET_AFTER_MS} ms (${front.resets} resets)`)
      + line('proxy', `through a proxy that closes each reused connection (${proxy.seen.filter((l) => l === 'closed on reuse').length} closed)`)
      + '\n');
    expect(front.resets).toBeGreaterThan(0);
    expect(totals.stale.resent).toBeGreaterThan(0);
  }, 600_000);
});
