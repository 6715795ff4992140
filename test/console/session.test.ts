import { afterEach, describe, expect, it } from 'vitest';
import { ConsoleSession } from '../../src/console/session.js';
import type { Frame } from '../../src/console/protocol.js';
import { Exit, GshError } from '../../src/core/errors.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { consoleNodeOf } from '../../src/sandbox/console-node/index.js';

// The session against the sandbox's console node (01-general-contract.md "Console socket": token
// renewal on the same connection; issue 5, item 2: reconnect with backoff, exit 9 after a bounded
// number of failures, no line lost or repeated).

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

function sessionFor(sb: Sandbox, serverId: string, frames: Frame[], warnings: string[] = [], beforeFetch?: () => Promise<void>) {
  return new ConsoleSession({
    fetchSession: async () => {
      await beforeFetch?.();
      const res = await fetch(`${sb.baseUrl}/servers/${serverId}/console/token`, { method: 'POST', headers: { authorization: `Bearer ${sb.keys.all}` } });
      return ((await res.json()) as { data: { socket: string; token: string } }).data;
    },
    replay: false,
    onFrame: (f) => frames.push(f),
    note: () => {},
    warn: (m) => warnings.push(m),
    reconnect: { attempts: 3, baseMs: 20, maxMs: 50 },
  });
}

const lines = (frames: Frame[]) => frames.filter((f) => f.event === 'console output').map((f) => f.args![0]!);
const running = (sb: Sandbox) => [...sb.state.servers.values()].find((s) => s.state === 'running')!;

async function until(cond: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('console session', () => {
  it('renews on token expiry forced mid-stream and fills the gap from history: every line once, in order', async () => {
    sandbox = await startSandbox({ timeScale: 0.05 });
    const s = running(sandbox);
    const node = consoleNodeOf(sandbox);
    const frames: Frame[] = [];
    const session = sessionFor(sandbox, s.id, frames);
    await session.start();
    const flood = node.game(s.id)!.flood(120, { everyMs: 5 });
    await until(() => lines(frames).length >= 30);
    node.expireTokens(s.id);
    await flood;
    await until(() => lines(frames).some((l) => l.includes('flood 120/120')));
    const got = lines(frames).filter((l) => l.includes('/120 '));
    expect(got.map((l) => Number(/flood (\d+)\//.exec(l)![1]))).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
    expect(frames.some((f) => f.event === 'token expired')).toBe(true);
    session.close();
  });

  it('gives up with exit 9 after the bounded number of reconnect attempts', async () => {
    sandbox = await startSandbox({ timeScale: 0.05 });
    const s = running(sandbox);
    const frames: Frame[] = [];
    const warnings: string[] = [];
    const session = sessionFor(sandbox, s.id, frames, warnings);
    await session.start();
    await sandbox.close();
    const err = await session.done.then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(GshError);
    expect((err as GshError).exitCode).toBe(Exit.unavailable);
    expect(warnings.filter((w) => /reconnecting in/.test(w))).toHaveLength(3);
  });

  it('fails at once when the node refuses the token', async () => {
    sandbox = await startSandbox({ timeScale: 0.05 });
    const s = running(sandbox);
    const node = consoleNodeOf(sandbox);
    const session = new ConsoleSession({
      fetchSession: async () => ({ socket: node.socketUrl(s.id), token: 'forged' }),
      replay: false, onFrame: () => {}, note: () => {}, warn: () => {},
    });
    await expect(session.start()).rejects.toMatchObject({ exitCode: Exit.auth, message: /malformed token/ });
  });

  // Issue 55, item 2: a gap longer than one history page (1000 lines, the contract's maximum) is
  // paged back until the last line shown is found, GAP_LIMIT (10,000) lines at most, whether the
  // gap came from a late token renewal or from a reconnect (the node dropped the socket and the
  // new session came late).
  async function lateRenewal(gapLines: number, cause: 'renewal' | 'reconnect' = 'renewal') {
    sandbox = await startSandbox({ timeScale: 0.05 });
    const s = running(sandbox);
    const node = consoleNodeOf(sandbox);
    const game = node.game(s.id)!;
    const frames: Frame[] = [];
    const warnings: string[] = [];
    let held: Promise<void> | undefined;
    let release!: () => void;
    const session = sessionFor(sandbox, s.id, frames, warnings, () => held ?? Promise.resolve());
    await session.start();
    const total = 50 + gapLines + 50;
    const line = (k: number) => `gap line ${k}/${total}`;
    for (let k = 1; k <= 50; k++) game.write(line(k));
    await until(() => lines(frames).some((l) => l === line(50)));
    held = new Promise((r) => (release = r));
    if (cause === 'renewal') {
      // The token runs out and its renewal is late: the node sends nothing meanwhile.
      node.expireTokens(s.id);
      await until(() => frames.some((f) => f.event === 'token expired'));
    } else {
      // The socket is dropped and the new session's token comes late: no socket meanwhile.
      node.drop(s.id);
      await until(() => warnings.some((w) => /console connection lost/.test(w)) && node.connectionCount(s.id) === 0);
    }
    const authsBefore = frames.filter((f) => f.event === 'auth success').length;
    for (let k = 51; k <= 50 + gapLines; k++) game.write(line(k));
    release();
    held = undefined;
    await until(() => frames.filter((f) => f.event === 'auth success').length > authsBefore);
    for (let k = 51 + gapLines; k <= total; k++) game.write(line(k));
    await until(() => lines(frames).some((l) => l === line(total)));
    session.close();
    const numbers = lines(frames).filter((l) => l.startsWith('gap line ')).map((l) => Number(/gap line (\d+)\//.exec(l)![1]));
    return { numbers, warnings, total };
  }

  it('pages back through history over a gap of 3,500 lines: every line once, in order, no warning', async () => {
    const r = await lateRenewal(3500);
    expect(r.numbers).toEqual(Array.from({ length: r.total }, (_, i) => i + 1));
    expect(r.warnings).toEqual([]);
  });

  it('after a reconnect, pages back over a gap of 3,500 lines the same way: every line once, in order, no gap warning', async () => {
    const r = await lateRenewal(3500, 'reconnect');
    expect(r.numbers).toEqual(Array.from({ length: r.total }, (_, i) => i + 1));
    expect(r.warnings).toEqual([expect.stringMatching(/^console connection lost \(.*\); reconnecting in /)]);
  });

  it('stops paging at 10,000 lines and then says the lines before them are missing', async () => {
    const r = await lateRenewal(12_000);
    const after = r.numbers.slice(50);
    // The 10,000 newest lines of the gap and what followed, once each, in order.
    expect(r.numbers.slice(0, 50)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(after).toEqual(Array.from({ length: after.length }, (_, i) => r.total - after.length + 1 + i));
    expect(after.length).toBeGreaterThanOrEqual(10_000);
    expect(after.length).toBeLessThan(12_050);
    expect(r.warnings).toEqual([expect.stringMatching(/gap is longer than the 10000 lines of history paged back through: the lines before them are missing/)]);
  });
});
