import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Benchmarks as ratios to a baseline measured in the same run, paired: each sample runs the
// baseline and the command back to back (alternating which goes first), so machine load hits
// both. The baseline is `node -e 0` for start-up, or the floor of the work itself where a row has
// one (a row's `baseline`). Peak memory comes from separate runs that report
// process.resourceUsage().maxRSS at exit (rss-preload.cjs).
//
// Both sides run in the environment of a user's machine: without NODE_EXTRA_CA_CERTS, which
// makes every Node process, the floor included, load a CA bundle at start (nearly doubling
// `node -e 0`) and so shrinks every ratio (issue 39). userEnv() is that environment.

export const GSH = fileURLToPath(new URL('../../bin/gsh.js', import.meta.url));
export const RSS_PRELOAD = fileURLToPath(new URL('./rss-preload.cjs', import.meta.url));

/** Variables of this machine that a user's fresh machine does not set, and which change timings. */
const NOT_A_USERS = ['NODE_EXTRA_CA_CERTS'];

/** This process's environment without NOT_A_USERS, plus `extra`. */
export function userEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...extra };
  for (const name of NOT_A_USERS) delete env[name];
  return env;
}

/** One line for a bench's output: what was left out of the environment of both sides. */
export function envNote(): string {
  const set = NOT_A_USERS.filter((name) => process.env[name] !== undefined);
  return set.length ? `${set.join(', ')} set here, unset for both sides of every pair (a user's machine does not set it)` : `${NOT_A_USERS.join(', ')} not set`;
}

export interface BenchCase {
  name: string;
  /** Arguments after `node`, e.g. [GSH, '--version']. */
  args: string[];
  env?: NodeJS.ProcessEnv;
  input?: string;
  runs?: number;
  /** Exit status the command must end with (a usage error bench expects 2). */
  expectStatus?: number;
  /** What the command is timed against; `node -e 0` when not given. */
  baseline?: Baseline;
  /** Run before each run of the command, untimed (e.g. to empty a cache it would fill). */
  before?: () => void;
}

export interface Baseline {
  /** How the table names it. */
  name: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  expectStatus?: number;
}

export const NODE_E_0: Baseline = { name: 'node -e 0', args: ['-e', '0'], expectStatus: 0 };

export interface BenchResult {
  name: string;
  runs: number;
  medianMs: number;
  baselineMedianMs: number;
  ratio: number;
  peakRssMiB: number;
  baselinePeakRssMiB: number;
}

function timeOnce(args: string[], env: NodeJS.ProcessEnv, input?: string): { ms: number; status: number | null } {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { env, input, stdio: ['pipe', 'ignore', 'pipe'] });
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, status: r.status };
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

/** Peak resident memory of one run, in MiB. */
export function peakRss(args: string[], env: NodeJS.ProcessEnv, input?: string): number {
  const dir = mkdtempSync(join(tmpdir(), 'gsh-bench-'));
  try {
    const file = join(dir, 'rss');
    spawnSync(process.execPath, ['--require', RSS_PRELOAD, ...args], {
      env: { ...env, GSH_BENCH_RSS_FILE: file }, input, stdio: ['pipe', 'ignore', 'ignore'],
    });
    return Number(readFileSync(file, 'utf8')) / 1024;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function bench(c: BenchCase): BenchResult {
  const runs = c.runs ?? 21;
  const env = userEnv(c.env);
  const baseline = c.baseline ?? NODE_E_0;
  const baseEnv = userEnv(baseline.env);
  const check = (what: string, status: number | null, expected: number | undefined) => {
    if (expected !== undefined && status !== expected) throw new Error(`${what}: exit ${status}, expected ${expected}`);
  };
  // Warm the file cache (and gsh's code cache) for both sides.
  check(baseline.name, timeOnce(baseline.args, baseEnv).status, baseline.expectStatus);
  c.before?.();
  check(c.name, timeOnce(c.args, env, c.input).status, c.expectStatus);
  const base: number[] = [];
  const cmd: number[] = [];
  for (let i = 0; i < runs; i++) {
    c.before?.();
    if (i % 2 === 0) {
      base.push(timeOnce(baseline.args, baseEnv).ms);
      cmd.push(timeOnce(c.args, env, c.input).ms);
    } else {
      cmd.push(timeOnce(c.args, env, c.input).ms);
      base.push(timeOnce(baseline.args, baseEnv).ms);
    }
  }
  return {
    name: c.name,
    runs,
    medianMs: median(cmd),
    baselineMedianMs: median(base),
    ratio: median(cmd) / median(base),
    peakRssMiB: Math.max(...[0, 1].map(() => {
      c.before?.();
      return peakRss(c.args, env, c.input);
    })),
    baselinePeakRssMiB: peakRss(baseline.args, baseEnv),
  };
}

export interface ExternalSandbox {
  baseUrl: string;
  key: string;
  stop(): Promise<void>;
}

/**
 * A sandbox in its own process: the timing loop uses spawnSync, which would starve a sandbox
 * running on this process's event loop.
 */
export async function startExternalSandbox(args: string[] = []): Promise<ExternalSandbox> {
  const child: ChildProcess = spawn(process.execPath, [GSH, 'sandbox', 'start', '--port', '0', '-q', ...args], {
    env: userEnv(), stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const ready = await new Promise<{ baseUrl: string; key: string }>((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`sandbox exited with ${code}: ${out}`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /listening on (\S+)/.exec(out)?.[1];
      const key = /all-scopes key:\s+(\S+)/.exec(out)?.[1];
      if (url && key) resolve({ baseUrl: url, key });
    });
  });
  return {
    ...ready,
    stop: () =>
      new Promise<void>((resolve) => {
        child.removeAllListeners('exit');
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
