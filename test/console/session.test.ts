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

function sessionFor(sb: Sandbox, serverId: string, frames: Frame[], warnings: string[] = []) {
  return new ConsoleSession({
    fetchSession: async () => {
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
});
