import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/core/run/context.js';
import { consoleNodeOf } from '../../src/sandbox/console-node/index.js';
import type { ServerRecord } from '../../src/sandbox/index.js';
import { until } from '../console/in-process.js';
import { runGsh, testContext } from '../helpers/context.js';
import { runEnv, setup, type E2E } from './helpers.js';

// Issue 36, item 4: `--ready` ends as soon as the console line arrives (01-general-contract.md
// "Console socket": `console output`, `status`; the line is the settings' startup-detection message,
// 02-endpoints-part-a.md "Settings", `done_message`, unless --ready REGEX names it), a server that
// stops or goes offline while waited for ends the wait at once (13), and a wait with nothing to wait
// for says so at once (12). Also run against the strict sandbox (vitest project `strict`).
//
// Time is the run's own: a clock whose sleeps the test can hold. Once held, no pause of gsh ends, so
// a wait that still ends did so without sleeping: 0 ms and 0 steps of its time after the event.
// Boots never end by themselves here (timeScale 1000: a boot takes 40 minutes of real time); the test
// ends one when it chooses (`finishBoot`, which prints the game's `Done (…)!` line at that moment).

let e: E2E;
beforeAll(async () => {
  e = await setup({ servers: 40, timeScale: 1000 });
});
afterAll(async () => {
  await e.close();
});

const lifecycle = () => e.sandbox.extensions.context.lifecycle;

let nextFree = 0;
/** An offline server no other test uses, on a plain node (no startup queue, no transfer, no ad). */
function offlineServer(): ServerRecord {
  const plain = [...e.sandbox.state.servers.values()].filter((s) => !s.stored && !s.startupQueue && !s.adRequired);
  const s = plain[nextFree++];
  if (!s) throw new Error('the sandbox has no plain server left');
  if (s.state !== 'offline') lifecycle().power(s, 'kill');
  return s;
}

/** A server that has just booted: its console history ends with the ready line. */
function runningServer(): ServerRecord {
  const s = offlineServer();
  lifecycle().power(s, 'start');
  lifecycle().finishBoot(s);
  return s;
}

/** A clock that moves only when a pause ends; `hold()` stops every pause from ending. */
function heldClock(): Clock & { hold(): void; release(): void; steps(): number } {
  let now = Date.now();
  let steps = 0;
  let held = false;
  const waiting: (() => void)[] = [];
  return {
    now: () => now,
    sleep: (ms) => new Promise<void>((resolve) => {
      const end = () => {
        steps++;
        now += ms;
        resolve();
      };
      if (held) waiting.push(end);
      else setTimeout(() => (held ? waiting.push(end) : end()), 2);
    }),
    hold: () => void (held = true),
    release: () => {
      held = false;
      for (const end of waiting.splice(0)) end();
    },
    steps: () => steps,
  };
}

const statusReads = (id: string) => e.sandbox.log.filter((x) => x.method === 'GET' && x.path === `/servers/${id}/status`).length;
const powerSent = (id: string) => e.sandbox.log.some((x) => x.method === 'POST' && x.path === `/servers/${id}/power`);

describe('--ready ends as soon as the console line arrives', () => {
  it('power start --ready: returns with no pause of its own after the ready line (0 ms, 0 steps)', async () => {
    const s = offlineServer();
    const clock = heldClock();
    const run = e.gsh(['power', 'start', '-s', s.id, '--ready', 'Done \\(', '-o', 'json', '--timeout', '1h'], { clock, timeout: 20_000 });
    // Let it poll a while, so its status polls are seconds apart (the backoff) when the line comes.
    await until(() => statusReads(s.id) >= 5, 15_000, 'five status polls');
    clock.hold();
    const at = clock.now();
    const steps = clock.steps();
    lifecycle().finishBoot(s); // the console prints "Done (3.214s)! For help, type "help"" now
    const r = await run;
    expect(r.exitCode, r.stderr).toBe(0);
    expect(clock.now() - at).toBeLessThan(1000);
    expect(clock.steps() - steps).toBe(0);
    clock.release();
    expect(r.stderr).toMatch(/ready: .*Done \(3\.214s\)!/);
    // One status read after the line gives the record shown.
    expect(JSON.parse(r.stdout).state).toBe('running');
  });

  it('gsh wait --ready on a server mid-boot: the same, with the settings\' done_message', async () => {
    const s = offlineServer();
    lifecycle().power(s, 'start');
    const clock = heldClock();
    const run = e.gsh(['wait', '-s', s.id, '--ready', '--timeout', '1h'], { clock, timeout: 20_000 });
    await until(() => statusReads(s.id) >= 3, 15_000, 'three status polls');
    clock.hold();
    const steps = clock.steps();
    lifecycle().finishBoot(s);
    const r = await run;
    expect(r.exitCode, r.stderr).toBe(0);
    expect(clock.steps() - steps).toBe(0);
    clock.release();
    expect(r.stderr).toMatch(/ready: .*\)! For help, type /);
  });

  it('gsh wait --ready on a server already up finds its line in the console history, without a pause', async () => {
    const s = runningServer();
    const clock = heldClock();
    clock.hold();
    const r = await e.gsh(['wait', '-s', s.id, '--ready', 'Done \\('], { clock, timeout: 20_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(clock.steps()).toBe(0);
    expect(r.stderr).toMatch(/ready: .*Done \(/);
  });
});

describe('a server that stops or goes offline while waited for ends the wait at once (13)', () => {
  it('the socket\'s status event: 13 with no pause after it, naming the pattern', async () => {
    const s = offlineServer();
    const clock = heldClock();
    const run = e.gsh(['power', 'start', '-s', s.id, '--ready', 'never printed', '--timeout', '1h'], { clock, timeout: 20_000 });
    await until(() => statusReads(s.id) >= 3, 15_000, 'three status polls');
    clock.hold();
    const steps = clock.steps();
    lifecycle().power(s, 'kill');
    const r = await run;
    expect(r.exitCode, r.stderr).toBe(13);
    expect(clock.steps() - steps).toBe(0);
    clock.release();
    expect(r.stderr).toMatch(/the server is offline before it was ready \(no console line matching \/never printed\/ yet\)/);
  });

  it('a status poll: with the console cut off, the next poll that sees offline ends it (13, not the timeout)', async () => {
    const s = offlineServer();
    const clock = heldClock();
    const run = e.gsh(['power', 'start', '-s', s.id, '--ready', 'never printed', '--timeout', '1h'], { clock, timeout: 20_000 });
    await until(() => statusReads(s.id) >= 2, 15_000, 'two status polls');
    // The socket drops and cannot come back (the session endpoint fails), so only a poll can see the stop.
    clock.hold();
    e.sandbox.inject({ kind: 503, path: `/servers/${s.id}/console/token`, count: 200 });
    consoleNodeOf(e.sandbox).drop(s.id);
    lifecycle().power(s, 'kill');
    const killedAt = clock.now();
    const readsBefore = statusReads(s.id);
    clock.release();
    const r = await run;
    expect(r.exitCode, r.stderr).toBe(13);
    expect(r.stderr).toMatch(/the server is offline before it was ready/);
    expect(statusReads(s.id)).toBeGreaterThan(readsBefore);
    // No console session came back: the socket did not tell it.
    const tokens = e.sandbox.log.filter((x) => x.path === `/servers/${s.id}/console/token` && x.status === 201);
    expect(tokens).toHaveLength(1);
    // At the next poll, seconds later, not at the end of the hour.
    expect(clock.now() - killedAt).toBeLessThan(15_000);
  });
});

describe('nothing to wait for: exit 12 at once, saying what was looked for and how to wait otherwise', () => {
  it('no --ready REGEX and no done_message: gsh wait and power start end before any pause, and no power request is sent', async () => {
    const s = offlineServer();
    const cleared = await e.gsh(['api', '-X', 'PATCH', `/servers/${s.id}/settings`, '-f', 'done_message=']);
    expect(cleared.exitCode, cleared.stderr).toBe(0);
    const clock = heldClock();
    clock.hold();
    const waited = await e.gsh(['wait', '-s', s.id, '--ready'], { clock, timeout: 20_000 });
    expect(waited.exitCode, waited.stderr).toBe(12);
    expect(waited.stderr).toMatch(/no --ready REGEX was given, and its settings \(GET \/servers\/\S+\/settings\) hold no done_message/);
    expect(waited.stderr).toContain(`gsh wait -s ${s.id} --for running`);
    expect(waited.stderr).not.toMatch(/check the pattern given to --ready/);
    const started = await e.gsh(['power', 'start', '-s', s.id, '--ready'], { clock, timeout: 20_000 });
    expect(started.exitCode, started.stderr).toBe(12);
    expect(started.stderr).toMatch(/--wait instead of --ready/);
    expect(powerSent(s.id)).toBe(false);
    expect(clock.steps()).toBe(0);
  });

  it('already running, and its ready line is older than the console history: 12 before any pause, naming the pattern', async () => {
    const s = runningServer();
    // A busy server: 1,200 lines since its Done line, more than one history page (1,000) holds.
    await consoleNodeOf(e.sandbox).game(s.id)!.flood(1200);
    const clock = heldClock();
    clock.hold();
    const r = await e.gsh(['wait', '-s', s.id, '--ready', 'Done \\('], { clock, timeout: 20_000 });
    expect(r.exitCode, r.stderr).toBe(12);
    expect(clock.steps()).toBe(0);
    expect(r.stderr).toMatch(/is already running, and no line matching \/Done \\\(\/ is in the last 1000 lines of its console history/);
    expect(r.stderr).toContain(`gsh wait -s ${s.id} --for running`);
  });

  it('Ctrl-C while waiting exits 130 with the gsh wait line that waits for the same pattern', async () => {
    const s = offlineServer();
    const ctx = testContext({ env: runEnv(e.env()), clock: heldClock() });
    const run = runGsh(['power', 'start', '-s', s.id, '--ready', 'Done \\(', '--timeout', '1h'], ctx);
    await until(() => statusReads(s.id) >= 2, 15_000, 'two status polls');
    ctx.signals.emit('SIGINT');
    const r = await run;
    expect(r.exitCode, r.stderr).toBe(130);
    expect(r.stderr).toMatch(/interrupted while waiting for \S+ to print a console line matching \/Done \\\(\//);
    expect(r.stderr).toContain(`gsh wait -s ${s.id} --ready 'Done \\('`);
  });

  it('a wait that runs out names the done message it waited for, and never "the pattern given to --ready"', async () => {
    const s = offlineServer();
    lifecycle().power(s, 'start');
    const r = await e.gsh(['wait', '-s', s.id, '--ready', '--timeout', '5s'], { clock: heldClock(), timeout: 20_000 });
    expect(r.exitCode, r.stderr).toBe(10);
    expect(r.stderr).toMatch(/printed no console line matching "\)! For help, type " \(the settings' done_message\) within 5 s \(last status: starting\)/);
    expect(r.stderr).toMatch(/check the settings' done_message/);
    expect(r.stderr).not.toMatch(/pattern given to --ready/);
    expect(r.stderr).toContain(`gsh wait -s ${s.id} --ready '\\)! For help, type '`);
  });
});
