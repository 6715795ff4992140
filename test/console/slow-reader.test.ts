import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { consoleNodeOf } from '../../src/sandbox/console-node/index.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { inProcess, type InProcess } from './in-process.js';

// Issue 55, item 2: `gsh console attach` behind a slow reader keeps up or says exactly what it
// lost. 2,000 lines a second for 70 s into a stdout read at 60 KB/s, in virtual time (the
// timers and the clock are vitest's; the sockets are real, loopback): gsh pauses the socket while
// stdout is full, so the node's queue grows and the node skips lines, saying how many
// (01-general-contract.md "Console socket": `N console lines skipped (slow connection)`). The
// pause is gsh's own, so its ping going unanswered meanwhile must not count as a dead connection
// (it did: "console connection lost" at 40 s, then a reconnect that lost lines). Every line
// produced is then either shown, once and in order, or counted in the node's notices.

const RATE = 2000;
const SECONDS = 70;
const READER_BYTES_PER_MS = 60;
const STEP_MS = 100;
const SKIPPED = /(\d+) console lines skipped \(slow connection\)/;

let sandbox: Sandbox | undefined;
let gsh: InProcess | undefined;
afterEach(async () => {
  vi.useRealTimers();
  gsh?.dispose();
  gsh = undefined;
  await sandbox?.close();
  sandbox = undefined;
});

/** A stdout that takes `READER_BYTES_PER_MS` bytes a (virtual) millisecond: write callbacks come that late. */
function throttledStdout(): { stream: Writable & { isTTY: false }; chunks: string[] } {
  const chunks: string[] = [];
  const stream = Object.assign(new Writable({
    highWaterMark: 16 * 1024,
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString('utf8'));
      setTimeout(done, Math.ceil(chunk.length / READER_BYTES_PER_MS));
    },
  }), { isTTY: false as const });
  return { stream, chunks };
}

/** Lets the real sockets move: a few turns of the event loop (setImmediate stays real). */
async function turns(n = 3): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
}

interface Flood {
  seconds: number;
  /** Bytes added to each line: long lines fill the node's queue past its limit sooner. */
  pad: number;
}

async function attachBehindSlowReader(json: boolean, flood: Flood = { seconds: SECONDS, pad: 0 }) {
  sandbox = await startSandbox({ timeScale: 0.05 });
  const server = [...sandbox.state.servers.values()].find((s) => s.state === 'running')!;
  const game = consoleNodeOf(sandbox).game(server.id)!;
  gsh = inProcess(sandbox);
  const out = throttledStdout();
  gsh.ctx.stdout = out.stream;
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
  const argv = ['console', 'attach', '-s', server.id, '--no-history', '--read-only', ...(json ? ['--json'] : [])];
  const exit = gsh.run(argv);
  // Starting loads modules and sends a request in real time: wait for it in real time.
  const deadline = performance.now() + 20_000;
  while (!/attached to/.test(gsh.stderr()) && performance.now() < deadline) {
    await vi.advanceTimersByTimeAsync(1);
    await new Promise((r) => setImmediate(r));
  }
  expect(gsh.stderr()).toMatch(/attached to/);

  // The flood: lines as long as the sandbox's own (`[hh:mm:ss INFO]: flood …`), numbered.
  const total = RATE * flood.seconds;
  const perStep = (RATE * STEP_MS) / 1000;
  const pad = flood.pad ? ` ${'x'.repeat(flood.pad)}` : '';
  const lineOf = (k: number) => `[12:00:00 INFO]: line ${k} of ${total} the quick brown fox jumps over the lazy dog${pad}`;
  let produced = 0;
  const floodFrom = Date.now();
  for (let t = 0; t < flood.seconds * 1000; t += STEP_MS) {
    for (let i = 0; i < perStep; i++) game.write(lineOf(++produced));
    await vi.advanceTimersByTimeAsync(STEP_MS);
    await turns();
  }
  const floodEnd = Date.now();
  let drainedAt = floodEnd;
  // The reader takes what is still queued (gsh's stdout, the sockets, the node's queue): done
  // once every line produced is shown or counted in a notice (--json shows other events too, such
  // as stats, so output alone never goes quiet).
  const tally = new Tally(json);
  for (let i = 0; i < 2000 && tally.update(out.chunks, gsh.stderr()).numbers.length + tally.skipped < produced; i++) {
    await vi.advanceTimersByTimeAsync(500);
    await turns();
    drainedAt = Date.now();
  }
  gsh.signals.emit('SIGINT');
  // Detaching writes out what gsh still holds: the reader's time keeps running until it is done.
  let code: number | undefined;
  void exit.then((c) => (code = c));
  for (let i = 0; i < 2000 && code === undefined; i++) {
    await vi.advanceTimersByTimeAsync(500);
    await turns();
  }
  expect(code).toBe(130);

  const { numbers, skipped } = tally.update(out.chunks, gsh.stderr());
  const lagMs = drainedAt - floodEnd;
  if (process.env.GSH_TEST_DEBUG) console.log({ json, produced, shown: numbers.length, skipped, lagMs, floodMs: floodEnd - floodFrom, realMs: performance.now() - deadline + 20_000 });
  return { produced, numbers, skipped, lagMs, stderr: gsh.stderr() };
}

/**
 * The line numbers shown (stdout) and the lines the node's notices count (stderr, or stdout with
 * --json), read as the text grows: only complete lines not read before.
 */
class Tally {
  readonly numbers: number[] = [];
  skipped = 0;
  private chunksRead = 0;
  private partial = '';
  private errRead = 0;

  constructor(private readonly json: boolean) {}

  update(stdout: readonly string[], stderr: string): this {
    const text = this.partial + stdout.slice(this.chunksRead).join('');
    this.chunksRead = stdout.length;
    const end = text.lastIndexOf('\n') + 1;
    this.partial = text.slice(end);
    for (const line of text.slice(0, end).split('\n').filter(Boolean)) {
      const text = this.json ? consoleText(line) : line;
      if (text === undefined) continue;
      const n = /line (\d+) of /.exec(text)?.[1];
      if (n !== undefined) this.numbers.push(Number(n));
      else if (this.json) this.count(text);
    }
    if (!this.json) {
      const end = stderr.lastIndexOf('\n') + 1;
      for (const line of stderr.slice(this.errRead, end).split('\n')) this.count(line);
      this.errRead = Math.max(this.errRead, end);
    }
    return this;
  }

  private count(text: string): void {
    const n = SKIPPED.exec(text)?.[1];
    if (n !== undefined) this.skipped += Number(n);
  }

}

function consoleText(jsonLine: string): string | undefined {
  const f = JSON.parse(jsonLine) as { event: string; args?: string[] };
  return f.event === 'console output' ? (f.args?.[0] ?? '') : undefined;
}

function expectExactAccount(r: Awaited<ReturnType<typeof attachBehindSlowReader>>): void {
  expect(r.stderr).not.toMatch(/connection lost|reconnect/);
  // Once each, in order: strictly increasing.
  expect(r.numbers.every((n, i) => i === 0 || n > r.numbers[i - 1]!)).toBe(true);
  expect(r.numbers.at(-1) === r.produced || r.skipped > 0).toBe(true);
  // Lines missing = lines the node said it skipped (0 when it skipped none).
  expect(r.produced - r.numbers.length).toBe(r.skipped);
  // The reader was the slower: the last line or notice came long after the flood ended, so gsh
  // held the socket paused for much of it.
  expect(r.lagMs).toBeGreaterThan(10_000);
}

describe('console attach behind a reader of 60 KB/s, 2,000 lines/s for 70 s (virtual time)', () => {
  it('text: no connection lost; every line shown or counted as skipped by the node', async () => {
    const r = await attachBehindSlowReader(false);
    expectExactAccount(r);
  }, 120_000);

  it('--json: no connection lost; every line shown or counted as skipped by the node', async () => {
    const r = await attachBehindSlowReader(true);
    expectExactAccount(r);
  }, 120_000);
});

// The node does skip (its queue for the client past SLOW_HIGH_WATER, src/sandbox/console-node/
// connection.ts): lines of 1 KiB at the same rate fill it within seconds behind the same reader.
// What gsh shows is then short of what was produced by exactly the sum of the node's notices,
// none of them lost or miscounted by gsh, and never by more.
describe('console attach when the node skips lines for the slow reader (1 KiB lines, 2,000 a second for 10 s)', () => {
  const LONG: Flood = { seconds: 10, pad: 1024 };

  it('text: lines missing = the lines the node\'s notices say it skipped, more than none', async () => {
    const r = await attachBehindSlowReader(false, LONG);
    expectExactAccount(r);
    expect(r.skipped).toBeGreaterThan(0);
    // Each notice on stderr as a warning, never in the output.
    expect(r.stderr).toMatch(/^warning: \d+ console lines skipped \(slow connection\)$/m);
  }, 120_000);

  it('--json: lines missing = the lines the node\'s notices say it skipped, more than none', async () => {
    const r = await attachBehindSlowReader(true, LONG);
    expectExactAccount(r);
    expect(r.skipped).toBeGreaterThan(0);
  }, 120_000);
});
