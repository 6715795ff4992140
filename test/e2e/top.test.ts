import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/core/run/context.js';
import { run } from '../../src/program.js';
import { consoleNodeOf } from '../../src/sandbox/console-node/index.js';
import type { RequestLogEntry } from '../../src/sandbox/index.js';
import { until, within } from '../console/in-process.js';
import { testContext, type TestContext, virtualClock } from '../helpers/context.js';
import { ensureRunning, runEnv, setup, STRICT, type E2E } from './helpers.js';

// `gsh top` in-process against the sandbox (README "gsh top"). The live view runs on a context
// whose stdin and stdout are terminals (no pty: the screen's text is what is checked; the real
// terminal's modes are tty-top.test.ts's). One refresh is GET /servers?include=status, 100 servers
// a request (02-endpoints-part-a.md "Servers"), at most half of the key's X-RateLimit-Limit
// (01-general-contract.md "Limits").

const ENTER_ALT = '\x1b[?1049h';
const RESTORED = '\x1b[?25h\x1b[?1049l';

let small: E2E;
let big: E2E;
beforeAll(async () => {
  [small, big] = await Promise.all([setup({ servers: 12 }), setup({ servers: 237 })]);
});
afterAll(async () => {
  await Promise.all([small?.close(), big?.close()]);
});

interface Terminal {
  ctx: TestContext;
  exit: Promise<number>;
  /** The last frame drawn, as lines of text. */
  screen(): string[];
  /** Frames drawn so far. */
  frames(): number;
  press(keys: string): void;
}

/** `gsh top ARGS` on a terminal of `columns` × `rows`. */
function onTerminal(e: E2E, args: string[], opts: { columns?: number; rows?: number; clock?: Clock; env?: Record<string, string | undefined> } = {}): Terminal {
  const ctx = testContext({ env: runEnv(e.env(opts.env)), tty: { stdin: true, stdout: true, stderr: true, columns: opts.columns ?? 100 }, stdinOpen: true, ...(opts.clock ? { clock: opts.clock } : {}) });
  Object.assign(ctx.stdout, { rows: opts.rows ?? 30 });
  const exit = run(['top', ...args], ctx);
  const frames = () => ctx.stdout.text().split('\x1b[H').slice(1);
  return {
    ctx,
    exit,
    frames: () => frames().length,
    screen: () => (frames().at(-1) ?? '').replace(RESTORED, '').replace(/\x1b\[[KJ]/g, '').split('\r\n'),
    press: (keys) => ctx.stdin.write(keys),
  };
}

const listRequests = (log: RequestLogEntry[]) => log.filter((r) => r.method === 'GET' && r.path === '/servers' && r.query.include === 'status');

describe('the live view', () => {
  it('lists every server with counts by state, sorts, filters, redraws on resize, and gives the terminal back on q', async () => {
    const t = onTerminal(small, [], { columns: 100, rows: 30 });
    await until(() => t.screen().some((l) => l.includes('› ')), 10_000, 'the first frame with servers');
    const names = [...small.sandbox.state.servers.values()].map((s) => s.name).sort();
    expect(t.screen()[0]).toMatch(new RegExp(`^gsh top · ${names.length} servers: `));
    const rowNames = () => t.screen().slice(3).filter((l) => /^[› ] \S/.test(l)).map((l) => l.slice(2).split(/\s+/)[0]);
    expect(rowNames()).toEqual(names);
    t.press('c');
    await until(() => /sort cpu↓/.test(t.screen().at(-1)!), 5000, 'sorted by cpu');
    t.press(`/${names[1]!.slice(0, 4)}\r`);
    await until(() => t.screen().at(-1)!.includes('filter "'), 5000, 'the filter');
    expect(rowNames().every((n) => n!.includes(names[1]!.slice(0, 4)))).toBe(true);
    t.press('\x1b');
    // A resize redraws at the new width.
    const before = t.frames();
    Object.assign(t.ctx.stdout, { columns: 60, rows: 12 });
    t.ctx.stdout.emit('resize');
    await until(() => t.frames() > before, 5000, 'a redraw');
    expect(t.screen()).toHaveLength(12);
    for (const line of t.screen()) expect([...line].length).toBeLessThanOrEqual(60);
    t.press('q');
    expect(await within(10_000, 'gsh top after q', t.exit)).toBe(0);
    const out = t.ctx.stdout.text();
    expect(out.startsWith(ENTER_ALT)).toBe(true);
    expect(out.endsWith(RESTORED)).toBe(true);
    expect(out.split(ENTER_ALT)).toHaveLength(2);
  });

  it('enter opens a server: its console stats and last lines; esc closes the socket', async () => {
    const s = await ensureRunning(small.sandbox, [...small.sandbox.state.servers.values()].find((x) => !x.stored)!);
    const node = consoleNodeOf(small.sandbox);
    const t = onTerminal(small, ['-s', s.id], { rows: 24 });
    await until(() => t.screen().some((l) => l.startsWith('›')), 10_000, 'the row');
    t.press('\r');
    await until(() => /console live/.test(t.screen()[0]!) && /^CPU  \d/.test(t.screen()[1]!), 10_000, 'the opened server\'s stats');
    expect(t.screen()[0]).toContain(`gsh top › ${s.name} (${s.id}) · running`);
    await until(() => t.screen().slice(5).some((l) => /\S/.test(l) && !l.startsWith('esc back')), 10_000, 'console lines');
    expect(node.connectionCount(s.id)).toBe(1);
    t.press('\x1b');
    await until(() => node.connectionCount(s.id) === 0, 5000, 'the socket to close');
    await until(() => t.screen()[0]!.startsWith('gsh top · 1 server'), 5000, 'the list again');
    t.press('q');
    expect(await within(10_000, 'gsh top after q', t.exit)).toBe(0);
    expect(small.sandbox.log.some((r) => r.method === 'POST' && r.path === `/servers/${s.id}/console/token`)).toBe(true);
  });

  it('Ctrl-C (a key in raw mode) exits 130 with the terminal given back', async () => {
    const t = onTerminal(small, []);
    await until(() => t.screen().some((l) => l.startsWith('›')), 10_000, 'the first frame');
    t.press('\x03');
    expect(await within(10_000, 'gsh top after Ctrl-C', t.exit)).toBe(130);
    expect(t.ctx.stdout.text().endsWith(RESTORED)).toBe(true);
  });

  it('a lost connection ends the view with exit 9 after the terminal is given back', async () => {
    const clock = virtualClock();
    let sleeps = 0;
    const t = onTerminal(small, ['--retries', '0'], {
      clock: {
        now: clock.now,
        sleep: async (ms) => {
          // Two drops: the first comes on a kept-alive connection and is resent at once on a new
          // one (core/wire/transport.ts resending), which the second drops.
          if (sleeps++ === 0) small.sandbox.inject({ kind: 'drop', method: 'GET', path: '/servers', count: 2 });
          await clock.sleep(ms);
        },
      },
    });
    expect(await within(15_000, 'gsh top after the connection was lost', t.exit)).toBe(9);
    const out = t.ctx.stdout.text();
    expect(out.endsWith(RESTORED)).toBe(true);
    expect(t.ctx.stderr.text()).toMatch(/could not reach|could not read/);
    // The error is printed after the screen was left, not under the alternate screen.
    expect(out.split(ENTER_ALT)).toHaveLength(2);
  });

  it('a server whose status the key may not see shows "no access", not offline', async () => {
    const s = [...small.sandbox.state.servers.values()][0]!;
    const key = small.sandbox.createKey(['*'], { subuser: { serverId: s.id, permissions: ['file.read'] } });
    const t = onTerminal(small, [], { env: { GSH_API_KEY: key } });
    await until(() => t.screen().some((l) => l.startsWith('›')), 10_000, 'the row');
    expect(t.screen()[0]).toBe('gsh top · 1 server: 1 no access');
    expect(t.screen().find((l) => l.startsWith('›'))).toMatch(new RegExp(`› ${s.name}\\s+no access\\s+–`));
    t.press('q');
    expect(await t.exit).toBe(0);
    const snap = await small.gsh(['top', '--once', '-o', 'json'], { env: { GSH_API_KEY: key } });
    expect(JSON.parse(snap.stdout)).toEqual([expect.objectContaining({ id: s.id, state: null, status_visible: false, cpu_absolute: null })]);
  });
});

describe('for scripts', () => {
  it('--once -o csv gives the rows the screen lists, in its order, with the same states', async () => {
    const t = onTerminal(small, [], { rows: 40, columns: 120 });
    await until(() => t.screen().some((l) => l.startsWith('›')), 10_000, 'the first frame');
    const screenRows = t.screen().slice(3).filter((l) => /^[› ] \S/.test(l)).map((l) => l.slice(2).split(/\s{2,}|\s(?=\S)/).slice(0, 2));
    t.press('q');
    await t.exit;
    const csv = await small.gsh(['top', '--once', '-o', 'csv']);
    expect(csv.exitCode, csv.stderr).toBe(0);
    const [header, ...rows] = csv.stdout.split('\r\n').map((l) => l.split(','));
    expect(header).toEqual(['id', 'name', 'state', 'cpu_absolute', 'memory_bytes', 'memory_limit_bytes', 'disk_bytes', 'rx_bytes_per_second', 'tx_bytes_per_second', 'uptime']);
    expect(rows.map((r) => [r[1], r[2]])).toEqual(screenRows);
    // The first snapshot has no rates: they need two refreshes (empty, never 0).
    expect(rows.every((r) => r[7] === '' && r[8] === '')).toBe(true);
    // The contract does not name the status's usage fields (01-general-contract.md "Resource
    // table", "Server status"): the strict sandbox names them otherwise, and top shows none of them
    // rather than a guess; the default sandbox uses the console stats' names, which top reads.
    const usage = rows.map((r) => r.slice(3, 7).concat(r[9]!));
    if (STRICT) expect(usage.flat().every((v) => v === '')).toBe(true);
    else expect(usage.every((u) => u.every((v) => /^\d+(\.\d+)?$/.test(v!)))).toBe(true);
    const status = JSON.parse((await small.gsh(['servers', 'list', '--include-status', '-o', 'json'])).stdout)[0].status;
    expect(status.state).toEqual(expect.any(String));
    if (STRICT) expect(status).toMatchObject({ resources: { cpu: { percent: expect.any(Number) }, memory: { limit: expect.any(Number) } } });
    expect('cpu_absolute' in status).toBe(!STRICT);
  });

  it('every format, --columns, --jq and -q go through the output layer', async () => {
    const all = [...small.sandbox.state.servers.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
    const json = JSON.parse((await small.gsh(['top', '--once', '-o', 'json'])).stdout) as { id: string }[];
    expect(json.map((r) => r.id)).toEqual(all.map((s) => s.id));
    expect((await small.gsh(['top', '--once', '-o', 'jsonl'])).stdout.split('\n')).toHaveLength(all.length);
    expect((await small.gsh(['top', '-q'])).stdout.split('\n')).toEqual(all.map((s) => s.id));
    expect((await small.gsh(['top', '--once', '--columns', 'name,state', '-o', 'tsv', '--no-header'])).stdout.split('\n')[0]).toBe(`${all[0]!.name}\t${all[0]!.state}`);
    expect((await small.gsh(['top', '--jq', 'length'])).stdout).toBe(String(all.length));
    // Not a terminal: one snapshot, tab-separated rows.
    expect((await small.gsh(['top'])).stdout.split('\n')).toHaveLength(all.length);
  });

  it('checks what was typed before sending anything; --dry-run shows the first request', async () => {
    const mark = small.sandbox.log.length;
    for (const args of [['--interval', '500ms'], ['--interval', 'soon'], ['--once', '--interval', '10s'], ['-s', 'x', '--all-servers']]) {
      const r = await small.gsh(['top', ...args]);
      expect(r.exitCode, args.join(' ')).toBe(2);
    }
    const dry = await small.gsh(['top', '--dry-run', '-o', 'jsonl', '--interval', '10s']);
    expect(dry.exitCode).toBe(0);
    expect(dry.stdout + dry.stderr).toContain('/servers?include=status&limit=100&offset=0');
    expect(small.sandbox.log.length).toBe(mark);
  });
});

describe('within the rate limit', () => {
  it('237 servers on a key of 60 a minute: 3 requests a refresh, every 6 s, no 429 in 10 simulated minutes', async () => {
    const clock = virtualClock();
    const e = await setup({ servers: 237, rateLimit: 60, now: clock.now });
    try {
      const start = clock.now();
      let t!: Terminal;
      t = onTerminal(e, [], {
        clock: {
          now: clock.now,
          sleep: async (ms) => {
            await clock.sleep(ms);
            // q, and this pause never ends by itself: no refresh can start before q is read.
            if (clock.now() - start >= 10 * 60_000) {
              t.press('q');
              await new Promise(() => {});
            }
          },
        },
      });
      expect(await within(25_000, 'ten simulated minutes', t.exit)).toBe(0);
      const lists = listRequests(e.sandbox.log);
      expect(e.sandbox.log.filter((r) => r.status === 429)).toEqual([]);
      expect(lists.every((r) => r.status === 200)).toBe(true);
      expect(lists.length % 3).toBe(0);
      for (let i = 0; i < lists.length; i += 3) expect(lists.slice(i, i + 3).map((r) => r.query.offset).sort()).toEqual(['0', '100', '200']);
      // Ten minutes at one refresh every 6 s: at 0 s, 6 s, … 594 s.
      expect(lists.length / 3).toBe(100);
      expect(t.screen()[1]).toContain('every 6s (3 req of 60/min)');
    } finally {
      await e.close();
    }
  });

  it('a wait for the rate-limit window is said in the header, not written under the screen', async () => {
    const clock = virtualClock();
    // 2 a minute and 3 requests a refresh: the first refresh already waits for the next window.
    const e = await setup({ servers: 237, rateLimit: 2, now: clock.now });
    try {
      const t = onTerminal(e, [], { clock });
      await until(() => /rate limit: (all 2 requests of this minute are used|the last (\d+ )?requests? of this minute)/.test(t.ctx.stdout.text()), 10_000, 'the note on the screen');
      await until(() => t.screen().some((l) => l.startsWith('›')), 10_000, 'the fleet');
      t.press('q');
      expect(await t.exit).toBe(0);
      expect(t.ctx.stderr.text()).toBe('');
      expect(e.sandbox.log.filter((r) => r.status === 429)).toEqual([]);
    } finally {
      await e.close();
    }
  });

  it('--interval faster than half the budget is stretched, with a note on the screen and for scripts', async () => {
    const clock = virtualClock();
    const e = await setup({ servers: 237, rateLimit: 60, now: clock.now });
    try {
      let sleeps = 0;
      const t = onTerminal(e, ['--interval', '1s'], { clock: { now: clock.now, sleep: async (ms) => (++sleeps === 2 ? t.press('q') : clock.sleep(ms)) } });
      expect(await t.exit).toBe(0);
      expect(t.screen()[1]).toContain('every 6s, stretched from 1s (3 req of 60/min)');
      const ctx = testContext({ env: runEnv(e.env()), clock: { now: clock.now, sleep: async (ms) => void (++sleeps === 4 ? ctx.signals.emit('SIGINT') : await clock.sleep(ms)) } });
      const code = await run(['top', '-o', 'jsonl', '--interval', '2s'], ctx);
      expect(code).toBe(130);
      expect(ctx.stderr.text()).toContain("--interval 2s stretched to 6s: 3 requests a refresh (237 servers) must stay within half of the key's 60 requests a minute");
    } finally {
      await e.close();
    }
  });
});

describe('an interrupt at any step of a refresh', () => {
  // Each step in turn: after the k-th request of the list is answered, and in the pause between
  // refreshes. The screen is always given back; a jsonl stream holds only whole snapshots.
  const steps = [1, 2, 3, 4, 5, 6, 7];

  it.each(steps)('live view, SIGTERM after list request %i: exit 143, terminal given back', async (k) => {
    const clock = virtualClock();
    let t!: Terminal;
    let seen = 0;
    const off = big.sandbox.onRequest((r) => {
      if (r.path === '/servers' && ++seen === k) t.ctx.signals.emit('SIGTERM');
    });
    try {
      t = onTerminal(big, [], { clock });
      expect(await within(15_000, 'gsh top after SIGTERM', t.exit)).toBe(143);
      const out = t.ctx.stdout.text();
      expect(out.split(ENTER_ALT)).toHaveLength(2);
      expect(out.endsWith(RESTORED)).toBe(true);
    } finally {
      off();
    }
  });

  it.each([1, 2])('live view, SIGINT in pause %i: exit 130, terminal given back', async (n) => {
    const clock = virtualClock();
    let sleeps = 0;
    const t = onTerminal(big, [], { clock: { now: clock.now, sleep: async (ms) => void (++sleeps === n ? t.ctx.signals.emit('SIGINT') : await clock.sleep(ms)) } });
    expect(await within(15_000, 'gsh top after SIGINT', t.exit)).toBe(130);
    expect(t.ctx.stdout.text().endsWith(RESTORED)).toBe(true);
  });

  it.each(steps)('-o jsonl stream, SIGTERM after list request %i: exit 143, whole snapshots only', async (k) => {
    const clock = virtualClock();
    const ctx = testContext({ env: runEnv(big.env()), clock });
    let seen = 0;
    const off = big.sandbox.onRequest((r) => {
      if (r.path === '/servers' && ++seen === k) ctx.signals.emit('SIGTERM');
    });
    try {
      expect(await within(15_000, 'the stream after SIGTERM', run(['top', '-o', 'jsonl'], ctx))).toBe(143);
      const lines = ctx.stdout.text().split('\n').filter(Boolean);
      expect(lines.length % 237).toBe(0);
      for (const line of lines) expect(JSON.parse(line)).toHaveProperty('sampled_at');
      expect(ctx.stdout.text().endsWith('\n') || lines.length === 0).toBe(true);
    } finally {
      off();
    }
  });
});
