import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/core/run/context.js';
import { consoleNodeOf } from '../../src/sandbox/console-node/index.js';
import { startSandbox, type Sandbox, type ServerRecord } from '../../src/sandbox/index.js';
import { VirtualTime } from '../helpers/interrupt-steps.js';
import { gshInProcess, STRICT } from './helpers.js';

// Waits that end on time (issue 50 item 7). One server's `--wait` hears the console socket's
// `status` events (01-general-contract.md "Console socket": `status`, one of offline, starting,
// running, stopping) where the key may open it, and reads the status at once when they say the
// state is reached (02-endpoints-part-a.md "Servers": GET /servers/{id}/status stays what ends
// the wait); without the socket the polls back off to 5 s at most. `--ready` leaves no pause
// behind once its line came, so the process exits with it.
//
// Time is virtual and flows: the sandbox runs on manual time, and a pause of gsh moves it on in
// 50 ms steps, each after a turn of real time in which the socket's frames arrive, and ends at
// once when gsh's wake signal aborts it, as a real timer is cleared. A restart takes the node
// 2.5 s to stop and 2.5 s to boot: the "5 s restart".

const time = new VirtualTime();
let sandbox: Sandbox;
let plain: ServerRecord[];
beforeAll(async () => {
  sandbox = await startSandbox({ strict: STRICT, manualTime: true, now: () => time.now, servers: 30 });
  time.attach(sandbox);
  plain = [...sandbox.state.servers.values()].filter((s) => !s.stored && !s.startupQueue && !s.adRequired);
});
afterAll(() => sandbox.close());

const lifecycle = () => sandbox.extensions.context.lifecycle;
const STEP_MS = 50;

/** A flowing virtual clock; `pending` counts the pauses not yet over (a timer left behind). */
function flowing(): Clock & { pauses: number[]; pending: () => number } {
  const pauses: number[] = [];
  let open = 0;
  return {
    pauses,
    pending: () => open,
    now: () => time.now,
    sleep: async (ms, signal) => {
      pauses.push(ms);
      open++;
      try {
        const due = time.now + ms;
        while (time.now < due && !signal?.aborted) {
          await new Promise((resolve) => setTimeout(resolve, 1));
          if (signal?.aborted) break;
          time.moveTo(Math.min(due, time.now + STEP_MS));
        }
      } finally {
        open--;
      }
    },
  };
}

/** A server that is running now, nothing under way. */
function running(s: ServerRecord): ServerRecord {
  if (s.state === 'starting' || s.state === 'stopping') lifecycle().power(s, 'kill');
  if (s.state === 'offline') lifecycle().power(s, 'start');
  if (s.state === 'starting') lifecycle().finishBoot(s);
  return s;
}

/** When `s` next becomes running, on the virtual clock. */
function runningAt(s: ServerRecord): { at?: number } {
  const seen: { at?: number } = {};
  const on = (server: ServerRecord) => {
    if (server.id === s.id && server.state === 'running' && seen.at === undefined) seen.at = time.now;
  };
  sandbox.state.events.on('server-state', on);
  return seen;
}

function fiveSecondRestart(): void {
  Object.assign(lifecycle().timing, { shutdown: 2500, boot: 2500 });
  consoleNodeOf(sandbox).socketLagMs = 0;
}

const env = (key = sandbox.keys.all) => ({ GSH_BASE_URL: sandbox.baseUrl, GSH_API_KEY: key, NO_COLOR: '1' });

describe('one server\'s --wait follows the console socket', () => {
  it('a 5 s restart with --wait returns within 1.5 s of running, 6.5 s in all; the socket only woke the polls', async () => {
    const s = running(plain[0]!);
    fiveSecondRestart();
    const clock = flowing();
    const seen = runningAt(s);
    const from = sandbox.log.length;
    const start = time.now;
    const r = await gshInProcess(['power', 'restart', '-s', s.id, '--wait', '--yes', '-o', 'json'], env(), { clock, timeout: 30_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ state: 'running' });
    expect(seen.at).toBeDefined();
    expect(time.now - seen.at!).toBeLessThanOrEqual(1500);
    expect(time.now - start).toBeLessThanOrEqual(6500);
    const sent = sandbox.log.slice(from).map((e) => `${e.method} ${e.route}`);
    expect(sent).toContain('POST /servers/{server_id}/console/token');
    // The status resource ended it: its last read said running.
    expect(sent.at(-1)).toBe('GET /servers/{server_id}/status');
    expect(clock.pending()).toBe(0);
  });

  it('a key that may not open the console (no servers:console): the polls carry the wait, no pause over 5 s, exit 0', async () => {
    const s = running(plain[1]!);
    fiveSecondRestart();
    const key = sandbox.createKey(['servers:read', 'servers:power']);
    const clock = flowing();
    const seen = runningAt(s);
    const r = await gshInProcess(['power', 'restart', '-s', s.id, '--wait', '--yes'], env(key), { clock, timeout: 30_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    // Nothing said about the console: the wait is an ordinary one.
    expect(r.stderr).not.toMatch(/console/i);
    expect(Math.max(...clock.pauses)).toBeLessThanOrEqual(5000);
    expect(time.now - seen.at!).toBeLessThanOrEqual(5000);
  });

  it('a long start polls 1, 1.5, 2.25, 3.4 s apart, then every 5 s (README "Waits")', async () => {
    const s = plain[2]!;
    if (s.state !== 'offline') lifecycle().power(s, 'kill');
    Object.assign(lifecycle().timing, { shutdown: 2500, boot: 30_000 });
    const key = sandbox.createKey(['servers:read', 'servers:power']);
    const clock = flowing();
    const r = await gshInProcess(['power', 'start', '-s', s.id, '--wait'], env(key), { clock, timeout: 30_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(clock.pauses.slice(0, 7)).toEqual([1000, 1500, 2250, 3375, 5000, 5000, 5000]);
  });
});

describe('--ready exits with its line', () => {
  it('power restart --ready: no pause of gsh is left under way when it returns', async () => {
    for (let i = 0; i < 3; i++) {
      const s = running(plain[3 + i]!);
      fiveSecondRestart();
      const clock = flowing();
      const r = await gshInProcess(['power', 'restart', '-s', s.id, '--ready', 'Done \\(', '--yes'], env(), { clock, timeout: 30_000 });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/ready: .*Done \(/);
      // A pause still running would hold the real process open until its timer fired (up to 250 ms).
      expect(clock.pending()).toBe(0);
    }
  });
});

describe('results that say what happened (issue 50 item 8)', () => {
  it('fleet power restart --ready -o json: each entry carries ready {line, seconds}, the line as data', async () => {
    const two = [plain[6]!, plain[7]!].map(running);
    fiveSecondRestart();
    const clock = flowing();
    const start = time.now;
    const r = await gshInProcess(['power', 'restart', '-s', two.map((s) => s.id).join(','), '--ready', 'Done \\(', '--yes', '-o', 'json'], env(), { clock, timeout: 30_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    const entries = JSON.parse(r.stdout) as { server_id: string; ok: boolean; ready?: { line: string; seconds: number }; data?: { state?: string } }[];
    expect(entries.map((e) => e.server_id).sort()).toEqual(two.map((s) => s.id).sort());
    for (const e of entries) {
      expect(e).toMatchObject({ ok: true, data: { state: 'running' } });
      // The game's line, its colours taken out (game.ts prints it green).
      expect(e.ready?.line).toMatch(/^\[\d\d:\d\d:\d\d INFO\]: Done \(3\.214s\)! For help, type "help"$/);
      // From the start of its wait (after the power request's answer) to the line: the stop and boot, 5 s.
      expect(e.ready!.seconds).toBeGreaterThanOrEqual(4.5);
      expect(e.ready!.seconds).toBeLessThanOrEqual((time.now - start) / 1000);
    }
  });

  it('gsh wait --ready on two servers mid-boot -o json: the same ready field', async () => {
    const two = [plain[8]!, plain[9]!];
    for (const s of two) {
      if (s.state !== 'offline') lifecycle().power(s, 'kill');
      Object.assign(lifecycle().timing, { boot: 3000 });
      lifecycle().power(s, 'start');
    }
    const clock = flowing();
    const r = await gshInProcess(['wait', '-s', two.map((s) => s.id).join(','), '--ready', 'Done \\(', '-o', 'json'], env(), { clock, timeout: 30_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    const entries = JSON.parse(r.stdout) as { ready?: { line: string; seconds: number } }[];
    expect(entries).toHaveLength(2);
    for (const e of entries) {
      expect(e.ready?.line).toMatch(/Done \(3\.214s\)!/);
      expect(e.ready!.seconds).toBeGreaterThan(0);
      expect(e.ready!.seconds).toBeLessThanOrEqual(3.5);
    }
  });
});
