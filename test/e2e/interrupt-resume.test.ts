import { parse } from 'shell-quote';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerRecord } from '../../src/sandbox/index.js';
import { fastClock, listeningClock, runGsh, testContext } from '../helpers/context.js';
import { ensureRunning, runEnv, setup, type E2E } from './helpers.js';

/** A listening clock that starts a second into a minute, so a key's window is whole. */
const minuteClock = () => listeningClock(Math.floor(Date.now() / 60_000) * 60_000 + 1000, 2);

// Issue 43: a restart passes through offline, and an interrupt lists and resumes everything.


describe('no Node warning in a large announced restart (issue 43 item 6)', () => {
  let e: E2E;
  const clock = minuteClock();
  beforeAll(async () => {
    e = await setup({ servers: 12, now: clock.now });
  });
  afterAll(() => e.close());

  it('10 servers, --announce, --ready, a key of 60 requests a minute: one SIGINT listener, no warning', async () => {
    const targets = await Promise.all([...e.sandbox.state.servers.values()].filter((s) => s.plan === 'paid' && !s.stored).slice(0, 10).map((s) => ensureRunning(e.sandbox, s)));
    expect(targets).toHaveLength(10);
    const key = e.sandbox.createKey(['*'], { rateLimit: 60 });
    const ctx = testContext({ env: runEnv(e.env({ GSH_API_KEY: key })), clock });
    // The most listeners the process's SIGINT ever had during the run.
    let most = 0;
    const on = ctx.signals.on.bind(ctx.signals);
    ctx.signals.on = (name: string | symbol, listener: (...args: unknown[]) => void) => {
      on(name, listener);
      most = Math.max(most, ctx.signals.listenerCount('SIGINT'));
      return ctx.signals;
    };
    // runGsh fails the test on a Node warning during the run (withoutNodeWarnings).
    const r = await runGsh(['power', 'restart', '-s', targets.map((s: ServerRecord) => s.id).join(','), '--announce', 'Restart in {left}', '--countdown', '70s,5s', '--ready', 'Done \\(', '--yes', '-o', 'json'], ctx);
    expect(most).toBe(1);
    // Every server restarted and ready: the ready wait takes the restart's own stop for what it is.
    expect(r.exitCode, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as unknown[]).length).toBe(10);
  });
});

/** The command lines an interrupted run printed on stderr (the resume, replay and rest lines), as a POSIX shell splits them. */
function printedLines(stderr: string): string[][] {
  return [...stderr.matchAll(/^ {2,4}(gsh .*)$/gm)].map((m) => {
    const words = parse(m[1]!);
    for (const w of words) if (typeof w !== 'string') throw new Error(`not a plain command: ${m[1]}`);
    return (words as string[]).slice(1);
  });
}

describe('running every line an interrupted fleet printed finishes the job, once (issue 43 item 3)', () => {
  let e: E2E;
  beforeAll(async () => {
    e = await setup({ servers: 30 });
  });
  afterAll(() => e.close());

  it('19 servers, power restart --wait -o json, 400 ms of latency (src/sandbox/faults.ts), SIGINT at 1 s: each server restarted exactly once', async () => {
    // Paid servers: a free-plan one needs an ad view (01-general-contract.md "States and transitions").
    const targets = await Promise.all([...e.sandbox.state.servers.values()].filter((s) => s.plan === 'paid' && !s.stored).slice(0, 19).map((s) => ensureRunning(e.sandbox, s)));
    expect(targets).toHaveLength(19);
    const ids = targets.map((s) => s.id);
    e.sandbox.setFaults({ latencyMs: 400 });
    const mark = e.sandbox.effects.length;
    try {
      // Pauses at the sandbox's time scale, so the waits take moments (test/helpers/context.ts fastClock).
      const ctx = testContext({ env: runEnv(e.env()), clock: fastClock(0.05) });
      // 1 s after the first restart reached the service (loading and resolving take their own time).
      let timer: NodeJS.Timeout | undefined;
      const off = e.sandbox.onRequest((x) => {
        if (timer === undefined && x.method === 'POST' && x.path.endsWith('/power')) timer = setTimeout(() => ctx.signals.emit('SIGINT'), 1000);
      });
      const r = await runGsh(['power', 'restart', '-s', ids.join(','), '--wait', '--yes', '-o', 'json'], ctx).finally(() => {
        clearTimeout(timer);
        off();
      });
      expect(r.exitCode, r.stderr).toBe(130);
      const entries = JSON.parse(r.stdout) as { server_id: string; ok: boolean; not_started?: true; error?: { outcome: string | null } }[];
      expect(entries.map((x) => x.server_id).sort()).toEqual([...ids].sort());
      // The interrupt came while requests were in flight and servers were left unstarted.
      expect(entries.some((x) => x.not_started)).toBe(true);
      const lines = printedLines(r.stderr);
      expect(lines.length, r.stderr).toBeGreaterThan(0);
      e.sandbox.setFaults({ latencyMs: 0 });
      for (const words of lines) {
        const again = await runGsh(words, { env: runEnv(e.env()), clock: fastClock(0.05) });
        expect(again.exitCode, `gsh ${words.join(' ')}\n${again.stderr}`).toBe(0);
      }
      const restarts = (id: string) => e.sandbox.effects.slice(mark).filter((x) => x.method === 'POST' && x.path === `/servers/${id}/power`).length;
      expect(Object.fromEntries(ids.map((id) => [id, restarts(id)]))).toEqual(Object.fromEntries(ids.map((id) => [id, 1])));
      for (const s of targets) expect(s.state).toBe('running');
    } finally {
      e.sandbox.setFaults({ latencyMs: 0 });
    }
  }, 60_000);
});

// 01-general-contract.md "Errors": server_suspended (403) answers every change to a suspended
// server; 02-endpoints-part-a.md "Console": the console token is "403 also for suspended server",
// and its `permissions` are the token permissions of 01 "Console socket" (control.restart for a
// restart, control.command for a `say`). The contract shows no suspension field on a record, so
// the check holds in strict mode too.
describe('the checks before the first say refuse suspended servers and those the key may not restart (issue 43 item 7)', () => {
  let e: E2E;
  beforeAll(async () => {
    e = await setup({ servers: 24 });
  });
  afterAll(() => e.close());

  const paid = () => [...e.sandbox.state.servers.values()].filter((s) => s.plan === 'paid' && !s.stored);
  const says = (ids: string[], mark: number) => e.sandbox.log.slice(mark).filter((x) => x.method === 'POST' && ids.some((id) => x.path === `/servers/${id}/commands` || x.path === `/servers/${id}/power`));
  const announce = ['--announce', 'Restart in {left}', '--countdown', '2s,1s', '--announce-cancel', 'Restart cancelled'];

  it('a fleet with a suspended server and a free-plan one: no say to any server, nothing restarted, exit 4, both problems listed', async () => {
    const [a, b, c] = await Promise.all(paid().slice(0, 3).map((s) => ensureRunning(e.sandbox, s)));
    const free = [...e.sandbox.state.servers.values()].find((s) => s.plan === 'free' && !s.stored)!;
    c!.suspended = true;
    try {
      const mark = e.sandbox.log.length;
      const ids = [a!, b!, c!, free].map((s) => s.id);
      const r = await e.gsh(['power', 'restart', '-s', ids.join(','), ...announce, '--json'], { clock: minuteClock() });
      expect(r.exitCode, r.stderr).toBe(4);
      const error = JSON.parse(r.stderr.split('\n').filter((l) => l.startsWith('{"error"')).at(-1)!).error as Record<string, unknown>;
      expect(String(error.message)).toContain(`${c!.name} (${c!.id}) is suspended`);
      expect(String(error.message)).toContain(`${free.name} (${free.id}) is on the free plan`);
      expect(error.outcome).toBe('not_applied');
      expect(says(ids, mark)).toEqual([]);
    } finally {
      c!.suspended = false;
    }
  });

  it('a key whose user may not restart the server: refused before any say, exit 4', async () => {
    const b = await ensureRunning(e.sandbox, paid()[3]!);
    // A subuser of b who may send commands but not restart it.
    const key = e.sandbox.createKey(['*'], { subuser: { serverId: b!.id, permissions: ['control.console', 'control.command'] } });
    const mark = e.sandbox.log.length;
    const r = await e.gsh(['power', 'restart', '-s', b!.id, ...announce], { clock: minuteClock(), env: { GSH_API_KEY: key } });
    expect(r.exitCode, r.stderr).toBe(4);
    expect(r.stderr).toContain(`the key may not restart or announce on ${b!.id} (control.restart)`);
    expect(says([b!.id], mark)).toEqual([]);
  });
});
