import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Benchmarks as ratios to a baseline measured in the same run, paired: each sample runs the
// baseline and the command back to back (alternating which goes first), so machine load hits
// both. The baseline is `node -e 0` for start-up, or the floor of the work itself where a row has
// one (a row's `baseline`). Peak memory comes from separate runs that report
// process.resourceUsage().maxRSS at exit.

export const GSH = fileURLToPath(new URL('../../bin/gsh.js', import.meta.url));

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

const RSS_PRELOAD =
  "import { writeFileSync } from 'node:fs'; process.on('exit', () => writeFileSync(process.env.GSH_BENCH_RSS_FILE, String(process.resourceUsage().maxRSS)));";

/** Peak resident memory of one run, in MiB. */
export function peakRss(args: string[], env: NodeJS.ProcessEnv, input?: string): number {
  const dir = mkdtempSync(join(tmpdir(), 'gsh-bench-'));
  try {
    const file = join(dir, 'rss');
    spawnSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(RSS_PRELOAD)}`, ...args], {
      env: { ...env, GSH_BENCH_RSS_FILE: file }, input, stdio: ['pipe', 'ignore', 'ignore'],
    });
    return Number(readFileSync(file, 'utf8')) / 1024;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function bench(c: BenchCase): BenchResult {
  const runs = c.runs ?? 15;
  const env = { ...process.env, NO_COLOR: '1', ...c.env };
  const baseline = c.baseline ?? NODE_E_0;
  const baseEnv = { ...process.env, NO_COLOR: '1', ...baseline.env };
  const check = (what: string, status: number | null, expected: number | undefined) => {
    if (expected !== undefined && status !== expected) throw new Error(`${what}: exit ${status}, expected ${expected}`);
  };
  // Warm the file cache (and gsh's code cache) for both sides.
  check(baseline.name, timeOnce(baseline.args, baseEnv).status, baseline.expectStatus);
  check(c.name, timeOnce(c.args, env, c.input).status, c.expectStatus);
  const base: number[] = [];
  const cmd: number[] = [];
  for (let i = 0; i < runs; i++) {
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
    peakRssMiB: Math.max(peakRss(c.args, env, c.input), peakRss(c.args, env, c.input)),
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
    stdio: ['ignore', 'pipe', 'inherit'],
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
