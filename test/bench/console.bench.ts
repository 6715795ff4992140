import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GSH, median, RSS_PRELOAD, startExternalSandbox, type ExternalSandbox, userEnv } from './harness.js';

// Issue 5, item 7: lines per second from a sandbox flood through `gsh console attach` to a pipe,
// and gsh's peak memory. Budget: at least 100,000 lines/s and peak RSS under 100 MB.
//
// The sandbox runs in its own process. harness.peakRss cannot be used as is: it waits for the
// command to exit with stdout on /dev/null, and attach streams until detached. Here stdout is a
// pipe into a reader that reports at the last flood line; gsh is then detached with SIGTERM, and
// the same preload as peakRss records process.resourceUsage().maxRSS at gsh's exit.

const LINES = 200_000;
const RUNS = 3;
// Counts lines (with --no-history stdout is the command's echo, then the flood) from the first chunk to the last
// line, on bytes, so that the reader costs little of the CPU it shares with gsh and the sandbox.
const READER = `
const last = Buffer.from('flood ${LINES}/${LINES} ');
let n = 0, t0 = 0, tail = Buffer.alloc(0);
process.stdin.on('data', (c) => {
  if (t0 === 0) t0 = performance.now();
  for (let i = c.indexOf(10); i !== -1; i = c.indexOf(10, i + 1)) n++;
  if (Buffer.concat([tail, c]).includes(last)) {
    process.stdout.write(JSON.stringify({ lines: n, ms: performance.now() - t0 }));
    process.exit(0);
  }
  tail = c.subarray(Math.max(0, c.length - last.length));
});`;

interface Run {
  linesPerSecond: number;
  received: number;
  skipped: number;
  peakRssMiB: number;
}

function floodOnce(sb: ExternalSandbox, serverId: string): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'gsh-console-bench-'));
  const rssFile = join(dir, 'rss');
  return new Promise<Run>((resolve, reject) => {
    const env = userEnv({ GSH_BASE_URL: sb.baseUrl, GSH_API_KEY: sb.key, GSH_CONFIG_DIR: dir, GSH_BENCH_RSS_FILE: rssFile });
    const gsh = spawn(process.execPath, ['--require', RSS_PRELOAD, GSH, 'console', 'attach', '-s', serverId, '--no-history'], {
      env, stdio: ['pipe', 'pipe', 'pipe'],
    });
    const reader = spawn(process.execPath, ['-e', READER], { stdio: ['pipe', 'pipe', 'inherit'] });
    gsh.stdout.pipe(reader.stdin);
    let stderr = '';
    let report = '';
    gsh.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      if (/attached to/.test(stderr) && !gsh.stdin.writableEnded) gsh.stdin.end(`flood ${LINES}\n`);
    });
    reader.stdout.setEncoding('utf8').on('data', (d: string) => {
      report += d;
      gsh.kill('SIGTERM');
    });
    const timer = setTimeout(() => {
      gsh.kill('SIGTERM');
      reject(new Error(`no end of flood in 120 s; stderr: ${stderr.slice(-500)}`));
    }, 120_000);
    gsh.on('exit', () => {
      clearTimeout(timer);
      reader.stdin.end();
      reader.once('exit', () => {
        try {
          const { lines: all, ms } = JSON.parse(report) as { lines: number; ms: number };
          const lines = all - 1; // the command's echo, `> flood N`
          const skipped = [...stderr.matchAll(/(\d+) console lines skipped/g)].reduce((a, m) => a + Number(m[1]), 0);
          resolve({ linesPerSecond: (lines / ms) * 1000, received: lines, skipped, peakRssMiB: Number(readFileSync(rssFile, 'utf8')) / 1024 });
        } catch (err) {
          reject(new Error(`${(err as Error).message}; reader said ${JSON.stringify(report)}; stderr: ${stderr.slice(-500)}`));
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      });
      if (reader.exitCode !== null) reader.emit('exit');
    });
  });
}

describe('console attach throughput', () => {
  let sb: ExternalSandbox;
  let serverId: string;
  beforeAll(async () => {
    sb = await startExternalSandbox();
    const res = await fetch(`${sb.baseUrl}/servers?include=status`, { headers: { authorization: `Bearer ${sb.key}` } });
    const servers = ((await res.json()) as { data: Array<{ id: string; status?: { state?: string } }> }).data;
    serverId = servers.find((s) => s.status?.state === 'running')!.id;
  });
  afterAll(async () => {
    await sb.stop();
  });

  it(`a flood of ${LINES.toLocaleString('en')} lines: ≥ 100,000 lines/s to a pipe, peak RSS < 100 MB`, async () => {
    const runs: Run[] = [];
    for (let i = 0; i < RUNS; i++) runs.push(await floodOnce(sb, serverId));
    const rate = median(runs.map((r) => r.linesPerSecond));
    const peak = Math.max(...runs.map((r) => r.peakRssMiB));
    process.stdout.write(
      `console attach flood ${LINES} lines: median ${Math.round(rate).toLocaleString('en')} lines/s ` +
        `(runs ${runs.map((r) => Math.round(r.linesPerSecond)).join(', ')}; skipped ${runs.map((r) => r.skipped).join(', ')})  ` +
        `peak RSS ${peak.toFixed(1)} MiB\n`,
    );
    expect(rate).toBeGreaterThanOrEqual(100_000);
    expect(peak * 1.048576).toBeLessThan(100);
    for (const r of runs) expect(r.received + r.skipped).toBe(LINES);
  });
});
