import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleNodeOf } from '../../src/sandbox/console-node/index.js';
import type { ServerRecord } from '../../src/sandbox/index.js';
import type { Clock } from '../../src/core/run/context.js';
import { run } from '../../src/program.js';
import { testContext, virtualClock } from '../helpers/context.js';
import { ensureRunning, runEnv, setup, type E2E } from './helpers.js';

// Issue 31, items 1 and 2: an announced power action (`say` through POST /servers/{id}/commands,
// 02-endpoints-part-a.md "Console"; then POST …/power, "Power") and `--ready`, which follows the
// console socket (01-general-contract.md "Console socket": `console output`, `status`) until a
// line says the game is ready. Countdowns run on a virtual clock: minutes pass at once, and the
// offsets checked are the clock's, not the machine's.

let e: E2E;
beforeAll(async () => {
  e = await setup({ servers: 40 });
});
afterAll(async () => {
  await e.close();
});

const servers = () => [...e.sandbox.state.servers.values()].filter((s) => !s.stored);
const used = new Set<string>();
/**
 * A running server no other test uses (parallel-safe within the file), on the paid plan unless
 * asked: an announced restart of a free-plan server is refused without a terminal.
 */
async function freshRunning(plan: 'paid' | 'free' = 'paid'): Promise<ServerRecord> {
  const s = servers().find((x) => x.plan === plan && !used.has(x.id));
  if (!s) throw new Error(`the sandbox has no unused ${plan} server left`);
  used.add(s.id);
  return ensureRunning(e.sandbox, s);
}

/** The POST requests the sandbox got for a server (says and power), in order, as `say …` / `power restart`. */
function posted(id: string, since = 0): string[] {
  return e.sandbox.log.slice(since)
    .filter((x) => x.method === 'POST' && (x.path === `/servers/${id}/commands` || x.path === `/servers/${id}/power`))
    .map((x) => (x.body as Record<string, string>).command ?? `power ${(x.body as Record<string, string>).signal}`);
}

/** The requests the sandbox completed for `ids`, each with the time gsh's clock showed then. */
function record(clock: Clock, ids: readonly string[]) {
  const seen: { path: string; body: unknown; t: number }[] = [];
  const stop = e.sandbox.onRequest((entry) => {
    // The checks' console tokens (announce-checks.ts) are not announcements.
    if (entry.method === 'POST' && ids.some((id) => entry.path.startsWith(`/servers/${id}/`)) && entry.route !== '/servers/{server_id}/console/token') seen.push({ path: entry.path, body: entry.body, t: clock.now() });
  });
  return { seen, stop };
}

describe('announced power actions (--announce, --countdown)', () => {
  it('--dry-run prints every announcement request and the whole timeline, and sends nothing', async () => {
    const s = await freshRunning();
    const before = e.sandbox.log.length;
    const r = await e.gsh(['power', 'restart', '-s', s.id, '--announce', 'Restart in {left}', '--countdown', '10s,5m,1m', '--announce-cancel', 'Restart cancelled', '--dry-run']);
    expect(r.exitCode).toBe(0);
    const posts = [...r.stdout.matchAll(/^POST (\S+)$/gm)].map((m) => m[1]!.replace(/^.*\/api\/v2/, ''));
    // The check's console token first (issue 43 item 7: it shows a suspended server), then the says and the restart.
    expect(posts).toEqual([`/servers/${s.id}/console/token`, ...Array(3).fill(`/servers/${s.id}/commands`), `/servers/${s.id}/power`]);
    const bodies = [...r.stdout.matchAll(/"command": "([^"]*)"/g)].map((m) => m[1]);
    expect(bodies).toEqual(['say Restart in 5m', 'say Restart in 1m', 'say Restart in 10s']);
    expect(r.stdout).toMatch(/then: T-5m \(at once\): send "say Restart in 5m"/);
    expect(r.stdout).toMatch(/then: T-1m \(4m after the start, 4m after the previous one\)/);
    expect(r.stdout).toMatch(/then: T-10s \(4m50s after the start, 50s after the previous one\)/);
    expect(r.stdout).toMatch(/then: T-0 \(5m after the start, 10s after the last announcement\): send the restart request/);
    expect(r.stdout).toContain('"say Restart cancelled"');
    expect(e.sandbox.log.slice(before).filter((x) => x.method !== 'GET')).toEqual([]);
  });

  it('sends each announcement at its offset to every server, all in step, then one restart each', async () => {
    const a = await freshRunning();
    const b = await freshRunning();
    const clock = virtualClock();
    const rec = record(clock, [a.id, b.id]);
    try {
      const r = await e.gsh(['power', 'restart', '-s', `${a.id},${b.id}`, '--announce', 'Restart in {left}', '--countdown', '5m,1m,10s', '-o', 'json'], { clock });
      expect(r.exitCode, r.stderr).toBe(0);
    } finally {
      rec.stop();
    }
    for (const s of [a, b]) {
      const mine = rec.seen.filter((x) => x.path.startsWith(`/servers/${s.id}/`));
      expect(mine.map((x) => (x.body as Record<string, string>).command ?? (x.body as Record<string, string>).signal)).toEqual(['say Restart in 5m', 'say Restart in 1m', 'say Restart in 10s', 'restart']);
      const t0 = mine[0]!.t;
      // The clock moves only while gsh sleeps, so these are the countdown's own offsets.
      expect(mine.map((x) => x.t - t0)).toEqual([0, 240_000, 290_000, 300_000]);
    }
    // In step: each point reached both servers before the clock moved on.
    const times = rec.seen.map((x) => x.t);
    expect(new Set(times).size).toBe(4);
  });

  it('an announced restart of two servers by name reads the server listing once: the checks use the listing that found the servers', async () => {
    // Issue 50 item 7 ("one listing per command"); 02-endpoints-part-a.md "Servers": GET /servers.
    const a = await freshRunning();
    const b = await freshRunning();
    const from = e.sandbox.log.length;
    const r = await e.gsh(['power', 'restart', '-s', `${a.name},${b.name}`, '--announce', 'Restart in {left}', '--countdown', '2s,1s', '--yes', '-o', 'json'], { clock: virtualClock() });
    expect(r.exitCode, r.stderr).toBe(0);
    const listings = e.sandbox.log.slice(from).filter((x) => x.method === 'GET' && x.route === '/servers');
    expect(listings).toHaveLength(1);
    expect(posted(a.id, from)).toEqual(['say Restart in 2s', 'say Restart in 1s', 'power restart']);
  });

  it('Ctrl-C during the countdown restarts nothing, says the cancel message and exits 130', async () => {
    const s = await freshRunning();
    const clock = virtualClock();
    const rec = record(clock, [s.id]);
    const ctx = testContext({ env: runEnv(e.env()), clock });
    // Ctrl-C once the first announcement is answered: the countdown (an hour) is under way.
    const interrupt = e.sandbox.onRequest((entry) => {
      if (entry.method === 'POST' && entry.path === `/servers/${s.id}/commands`) setImmediate(() => ctx.signals.emit('SIGINT'));
    });
    let r;
    try {
      const exitCode = await run(['power', 'restart', '-s', s.id, '--announce', 'Restart in {left}', '--countdown', '1h,1m', '--announce-cancel', 'Restart cancelled'], ctx);
      r = { exitCode, stderr: ctx.stderr.text() };
    } finally {
      interrupt();
      rec.stop();
    }
    expect(r.exitCode).toBe(130);
    const commands = rec.seen.map((x) => (x.body as Record<string, string>).command ?? `power ${(x.body as Record<string, string>).signal}`);
    expect(commands.at(-1)).toBe('say Restart cancelled');
    expect(commands).not.toContain('power restart');
    expect(commands).not.toContain('say Restart in 1m');
    expect(r.stderr).toMatch(/no restart was sent/);
    expect(s.state).toBe('running');
  });

  it('--idempotency-key goes to the power request only; each announcement has a key of its own', async () => {
    const s = await freshRunning();
    const key = 'a2d5e7c1-8b4f-4c39-9e0a-3f6b1d2c4e5f';
    const r = await e.gsh(['power', 'restart', '-s', s.id, '--announce', 'Restart in {left}', '--countdown', '2s,1s', '--idempotency-key', key], { clock: virtualClock() });
    expect(r.exitCode, r.stderr).toBe(0);
    const mine = e.sandbox.log.filter((x) => x.method === 'POST' && x.path.startsWith(`/servers/${s.id}/`) && x.route !== '/servers/{server_id}/console/token');
    expect(mine.map((x) => [x.path.split('/').pop(), x.idempotencyKey === key])).toEqual([['commands', false], ['commands', false], ['power', true]]);
    expect(new Set(mine.map((x) => x.idempotencyKey)).size).toBe(3);
  });

  it('bad countdowns and messages are usage errors before anything is sent', async () => {
    const s = await freshRunning();
    const before = e.sandbox.log.filter((x) => x.method === 'POST').length;
    for (const [args, re] of [
      [['--announce', 'Restart in {left}'], /--announce needs --countdown/],
      [['--countdown', '5m'], /go with --announce/],
      [['--announce', 'x', '--countdown', '5m,,1m'], /durations separated by commas/],
      [['--announce', 'x', '--countdown', '5m,300s'], /the same time twice/],
      [['--announce', 'x', '--countdown', '0s'], /longer than 0/],
      [['--announce', 'two\nlines', '--countdown', '1m'], /announcement/],
    ] as const) {
      const r = await e.gsh(['power', 'restart', '-s', s.id, ...args]);
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(re);
    }
    expect(e.sandbox.log.filter((x) => x.method === 'POST').length).toBe(before);
  });
});

describe('--ready: the console says the game is ready', () => {
  it('power restart --ready REGEX ends on the console line of the new boot', async () => {
    const s = await freshRunning();
    const r = await e.gsh(['power', 'restart', '-s', s.id, '--ready', 'Done \\(', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/ready: .*Done \(3\.214s\)! For help, type "help"/);
    expect(JSON.parse(r.stdout).state).toBe('running');
    // The restart happened (it left running) and the line came from the new boot.
    expect(e.sandbox.log.some((x) => x.path === `/servers/${s.id}/power` && (x.body as { signal?: string }).signal === 'restart')).toBe(true);
  });

  it('--ready without a pattern waits for the settings\' done_message', async () => {
    const s = await freshRunning();
    const before = e.sandbox.log.length;
    const r = await e.gsh(['power', 'restart', '-s', s.id, '--ready']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/ready: .*\)! For help, type /);
    const paths = e.sandbox.log.slice(before).map((x) => `${x.method} ${x.path}`);
    // The settings are read before the power request, so a missing done_message sends no restart.
    expect(paths.indexOf(`GET /servers/${s.id}/settings`)).toBeLessThan(paths.indexOf(`POST /servers/${s.id}/power`));
  });

  it('a crash while waiting ends the wait early with exit 13 and the last console lines', async () => {
    const s = await freshRunning();
    const run = e.gsh(['power', 'restart', '-s', s.id, '--ready', 'this line never comes', '--timeout', '60s']);
    // Once it is running again, the game crashes (a sandbox console command).
    const end = Date.now() + 15_000;
    while (!e.sandbox.log.some((x) => x.path === `/servers/${s.id}/power`) && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    while (s.state !== 'running' && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 200));
    consoleNodeOf(e.sandbox).game(s.id)!.command('crash');
    const r = await run;
    expect(r.exitCode, r.stderr).toBe(13);
    expect(r.stderr).toMatch(/the server is offline before it was ready/);
    expect(r.stderr).toContain('java.lang.OutOfMemoryError: Java heap space');
  });

  it('on several servers each waits for its own line; one that crashes fails alone (exit 11, its result exit 13)', async () => {
    const a = await freshRunning();
    const b = await freshRunning();
    const run = e.gsh(['power', 'restart', '-s', `${a.id},${b.id}`, '--ready', 'Done \\(|never', '-o', 'json', '--timeout', '60s']);
    // b crashes as soon as it starts booting, before its Done line.
    const end = Date.now() + 15_000;
    while (b.state !== 'starting' && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
    consoleNodeOf(e.sandbox).game(b.id)!.command('crash');
    const r = await run;
    expect(r.exitCode, r.stderr).toBe(11);
    const results = JSON.parse(r.stdout) as { server_id: string; ok: boolean; exit_code: number; error?: { message: string } }[];
    expect(results.find((x) => x.server_id === a.id)).toMatchObject({ ok: true, exit_code: 0 });
    expect(results.find((x) => x.server_id === b.id)).toMatchObject({ ok: false, exit_code: 13 });
    expect(results.find((x) => x.server_id === b.id)?.error?.message).toContain('java.lang.OutOfMemoryError');
  });

  it('--dry-run shows the console step and sends nothing', async () => {
    const s = await freshRunning();
    const r = await e.gsh(['power', 'start', '-s', s.id, '--ready', 'Done', '--dry-run']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/open the console socket .* before the power request/);
    expect(r.stdout).toMatch(/poll the server status and wait for a console line matching \/Done\/, ending as soon as the line arrives; exit 13/);
  });

  it('gsh wait --ready finds a line printed before it attached (the console history)', async () => {
    const s = await freshRunning();
    const r = await e.gsh(['wait', '-s', s.id, '--ready', 'Done \\(']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/ready: .*Done \(/);
  });

  it('an invalid pattern is a usage error', async () => {
    const s = await freshRunning();
    const r = await e.gsh(['power', 'restart', '-s', s.id, '--ready', '(']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--ready is not a valid regular expression/);
  });
});

// Issue 36, item 2: no `say` reaches a server whose action cannot run or whose times cannot be kept.
describe('checks before announcing', () => {
  const announce = ['--announce', 'Restart in {left}', '--countdown', '30s,20s,10s', '--announce-cancel', 'Restart cancelled'];

  it('a free-plan server (its restart needs an ad view, 02-endpoints-part-a.md "Power"): refused without a terminal, exit 7, nothing said', async () => {
    const s = await freshRunning('free');
    const mark = e.sandbox.log.length;
    const r = await e.gsh(['power', 'restart', '-s', s.id, ...announce], { clock: virtualClock() });
    expect(r.exitCode, r.stderr).toBe(7);
    expect(r.stderr).toContain(`nothing was announced and no restart was sent: ${s.id} is on the free plan`);
    expect(r.stderr).toContain('Run it on a terminal');
    expect(posted(s.id, mark)).toEqual([]);
  });

  it('on a terminal the person is asked first: no sends nothing, yes announces and restarts', async () => {
    const s = await freshRunning('free');
    const tty = { stdin: true, stderr: true };
    const mark = e.sandbox.log.length;
    const no = await e.gsh(['power', 'restart', '-s', s.id, ...announce], { clock: virtualClock(), tty, input: 'n\n' });
    expect(no.exitCode, no.stderr).toBe(7);
    expect(no.stderr).toContain('Announce anyway? [y/N]');
    expect(posted(s.id, mark)).toEqual([]);
    const yes = await e.gsh(['power', 'restart', '-s', s.id, ...announce], { clock: virtualClock(), tty, input: 'y\n' });
    expect(yes.exitCode, yes.stderr).toBe(0);
    expect(posted(s.id, mark)).toEqual(['say Restart in 30s', 'say Restart in 20s', 'say Restart in 10s', 'power restart']);
  });

  it('--ready without a pattern on a server whose settings name no done_message: refused before any say, and the outcome is the restart\'s (not applied)', async () => {
    const s = await freshRunning();
    expect((await e.gsh(['api', '-X', 'PATCH', `/servers/${s.id}/settings`, '-f', 'done_message='])).exitCode).toBe(0);
    const mark = e.sandbox.log.length;
    const r = await e.gsh(['power', 'restart', '-s', s.id, ...announce, '--ready', '--json'], { clock: virtualClock() });
    expect(r.exitCode).not.toBe(0);
    const error = JSON.parse(r.stderr.split('\n').at(-1)!).error as Record<string, unknown>;
    expect(String(error.message)).toContain('hold no done_message');
    expect(error.exit_code ?? r.exitCode).toBe(12); // 12: the refusal --ready itself gives when no line can be known
    expect(error.outcome).toBe('not_applied');
    expect(String(error.hint)).toContain('--ready REGEX');
    expect(posted(s.id, mark)).toEqual([]);
  });

  it('a rate limit that cannot keep the times (01-general-contract.md "Limits"): exit 8 before any say; a timeline that fits goes', async () => {
    // A sandbox of its own whose rate-limit windows follow gsh's clock, which starts a second into
    // a minute and moves only while gsh sleeps: the windows are the same on every run.
    let now = Math.floor(Date.now() / 60_000) * 60_000 + 1000;
    const clock: Clock = { now: () => now, sleep: async (ms) => void (now += ms, await new Promise((r) => setTimeout(r, 1))) };
    const own = await setup({ servers: 6, now: clock.now });
    try {
      const [a, b] = await Promise.all([...own.sandbox.state.servers.values()].filter((s) => s.plan === 'paid' && !s.stored).slice(0, 2).map((s) => ensureRunning(own.sandbox, s)));
      const key = own.sandbox.createKey(['*'], { rateLimit: 5 });
      const says = (id: string) => own.sandbox.log.filter((x) => x.method === 'POST' && x.path.startsWith(`/servers/${id}/`) && x.route !== '/servers/{server_id}/console/token').map((x) => (x.body as Record<string, string>).command ?? `power ${(x.body as Record<string, string>).signal}`);
      // 2 servers × 3 says, then 2 restarts: 8 requests within 30 s, on a key of 5 a minute of
      // which the target listing (whose records the checks read too) and the checks' two console
      // tokens took 3.
      const r = await own.gsh(['power', 'restart', '-s', `${a!.id},${b!.id}`, ...announce], { clock, env: { GSH_API_KEY: key } });
      expect(r.exitCode, r.stderr).toBe(8);
      expect(r.stderr).toContain('the countdown needs 8 requests in the next 59 s (T-30s, T-20s, T-10s, T-0), and the key has 2 left in this minute (X-RateLimit-Remaining)');
      expect(r.stderr).toContain('fewer or farther-apart --countdown points');
      expect([...says(a!.id), ...says(b!.id)]).toEqual([]);
      // One server, two points a minute apart: at most 2 requests in any minute.
      const other = own.sandbox.createKey(['*'], { rateLimit: 5 });
      const ok = await own.gsh(['power', 'restart', '-s', a!.id, '--announce', 'Restart in {left}', '--countdown', '2m,1m'], { clock, env: { GSH_API_KEY: other } });
      expect(ok.exitCode, ok.stderr).toBe(0);
      expect(says(a!.id)).toEqual(['say Restart in 2m', 'say Restart in 1m', 'power restart']);
    } finally {
      await own.close();
    }
  });

  it('the action refused after the countdown: the players are told the cancel message, exit 7, the outcome is the restart\'s', async () => {
    const s = await freshRunning();
    // The service asks for an ad view that the record's plan did not show (a paid record, a free rule).
    s.adRequired = true;
    try {
      const mark = e.sandbox.log.length;
      const r = await e.gsh(['power', 'restart', '-s', s.id, ...announce, '--json'], { clock: virtualClock() });
      expect(r.exitCode, r.stderr).toBe(7);
      expect(posted(s.id, mark)).toEqual(['say Restart in 30s', 'say Restart in 20s', 'say Restart in 10s', 'power restart', 'say Restart cancelled']);
      const error = JSON.parse(r.stderr.split('\n').at(-1)!).error as Record<string, unknown>;
      expect(error).toMatchObject({ code: 'ad_required', outcome: 'not_applied' });
    } finally {
      s.adRequired = false;
    }
  });

  it('on several servers, only the one whose action failed is told the cancel message', async () => {
    const a = await freshRunning();
    const b = await freshRunning();
    b.adRequired = true;
    try {
      const mark = e.sandbox.log.length;
      const r = await e.gsh(['power', 'restart', '-s', `${a.id},${b.id}`, ...announce, '-o', 'json'], { clock: virtualClock() });
      expect(r.exitCode, r.stderr).toBe(11);
      expect(posted(a.id, mark)).toEqual(['say Restart in 30s', 'say Restart in 20s', 'say Restart in 10s', 'power restart']);
      expect(posted(b.id, mark)).toEqual(['say Restart in 30s', 'say Restart in 20s', 'say Restart in 10s', 'power restart', 'say Restart cancelled']);
    } finally {
      b.adRequired = false;
    }
  });

  it('--dry-run shows the checks and their reads (text and -o json), and sends nothing', async () => {
    const s = await freshRunning();
    const mark = e.sandbox.log.length;
    const r = await e.gsh(['power', 'restart', '-s', s.id, ...announce, '--ready', '--dry-run']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^GET \\S+/servers/${s.id}$`, 'm'));
    expect(r.stdout).toMatch(new RegExp(`^GET \\S+/servers/${s.id}/settings$`, 'm'));
    expect(r.stdout).toContain('then: before the first say: read the server');
    expect(r.stdout).toContain('a server on the free plan needs an ad view for its restart');
    expect(r.stdout).toContain('names no done_message');
    expect(r.stdout).toMatch(/the timeline needs 1 request at once and at most \d+ in any one minute/);
    expect(r.stdout).toContain('a server whose restart is refused after the countdown is sent "say Restart cancelled"');
    const json = await e.gsh(['power', 'restart', '-s', s.id, ...announce, '--dry-run', '-o', 'json']);
    const plan = JSON.parse(json.stdout) as { then: { kind: string; description: string }[] };
    expect(plan.then.filter((x) => x.kind === 'check').map((x) => x.description)).toEqual([
      expect.stringContaining('read the server'),
      expect.stringContaining('console token'),
      expect.stringContaining('the timeline needs'),
    ]);
    expect(e.sandbox.log.slice(mark).filter((x) => x.method !== 'GET')).toEqual([]);
  });
});

