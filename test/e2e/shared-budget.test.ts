import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { gshProcess, STRICT } from './helpers.js';

// One budget between processes (issue 53; README "Rollouts": "gsh processes on one machine with
// the same key and base URL take their requests from one account"): two unrelated gsh processes
// (real subprocesses of bin/gsh.js, not shards: each takes the whole budget) at once on one key of
// 60 requests a minute get no 429 when they share the account (one config dir, as two scripts of
// one user have), and do get 429s when they cannot (a config dir each), the same load otherwise.
// Rate limits as the contract gives them (01-general-contract.md "Limits": per key per minute,
// X-RateLimit-Limit/Remaining/Reset, 429 when exceeded).
//
// Time: the sandbox's one-minute windows start on the minute, and a gsh process waits for
// X-RateLimit-Reset (unix seconds) once the window's requests are taken. So that the test waits
// seconds rather than up to a minute, the sandbox's clock and the subprocesses' (shifted-clock.cjs,
// loaded with --require) run the same offset behind the real one, which puts the window's end
// a few seconds after the start; both clocks move at the real rate.

const SHIFTED_CLOCK = fileURLToPath(new URL('../helpers/shifted-clock.cjs', import.meta.url));
const SERVERS = 50;
/** How far into its minute the window is when the processes start: its end is 60 s minus this away (time to start and send 60). */
const INTO_WINDOW_MS = 52_000;

/** One sandbox for the pair that shares the account, one for the pair apart: each its own log and windows. */
let together: Sandbox;
let apart: Sandbox;
let shift = 0;
const dirs: string[] = [];
beforeAll(async () => {
  // A little latency after the count, as over a network: an answer's X-RateLimit-Remaining is then
  // already behind the requests the other process sent meanwhile.
  const opts = { strict: STRICT, servers: SERVERS, rateLimit: 60, now: () => Date.now() + shift, faults: { latencyMs: 30 } };
  [together, apart] = await Promise.all([startSandbox(opts), startSandbox(opts)]);
});
afterAll(async () => {
  await Promise.all([together.close(), apart.close()]);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const configDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'gsh-shared-budget-'));
  dirs.push(d);
  return d;
};

/** Two processes at once, each reading the status of every server, 16 at a time, with the whole budget. */
async function twoAtOnce(sb: Sandbox, dirs: [string, string]) {
  const run = (dir: string) => gshProcess(['servers', 'status', '--all-servers', '--parallel', '16', '-o', 'json'], {
    GSH_BASE_URL: sb.baseUrl, GSH_API_KEY: sb.keys.all, GSH_CONFIG_DIR: dir, GSH_PROFILE: undefined, GSH_TOKEN: undefined, GSH_SERVER: undefined, NO_COLOR: '1',
    NODE_OPTIONS: `--require ${SHIFTED_CLOCK}`, TEST_CLOCK_SHIFT_MS: String(shift),
  }, { timeout: 15_000 });
  return Promise.all(dirs.map(run));
}

it('two gsh processes at once on one 60/min key: no 429 with the shared account, 429s without it (the same load, a config dir each)', async () => {
  const count = (sb: Sandbox) => ({ requests: sb.log.length, status429: sb.log.filter((e) => e.status === 429).length });
  const one = configDir();
  // Set just before the processes start: their first window ends 8 s later (on both clocks). The
  // clocks run behind the real one, never ahead: a lock is taken for stale by its file's age
  // (core/disk/disk.ts), which a clock ahead would make look old.
  shift = ((INTO_WINDOW_MS - (Date.now() % 60_000) + 60_000) % 60_000) - 60_000;
  // Both pairs at once, each on a sandbox of its own.
  const runs = await Promise.all([twoAtOnce(together, [one, one]), twoAtOnce(apart, [configDir(), configDir()])]);
  for (const r of runs.flat()) {
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(SERVERS);
  }
  // More than one window's worth was asked of each key; only the pair apart went over it.
  expect(count(together).requests).toBeGreaterThan(60);
  expect(count(apart).status429, JSON.stringify(count(apart))).toBeGreaterThan(0);
  expect(count(together).status429, JSON.stringify(count(together))).toBe(0);
});
