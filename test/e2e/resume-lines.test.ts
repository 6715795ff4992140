import type { EventEmitter } from 'node:events';
import { parse } from 'shell-quote';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerRecord } from '../../src/sandbox/index.js';
import { waitCommand } from '../../src/core/fleet/follow.js';
import { runGsh, testContext } from '../helpers/context.js';
import { ensureRunning, idList, runEnv, setup, type E2E } from './helpers.js';

// Issue 36 item 5: a resume line carries every condition of the wait it resumes (--ready and its
// pattern, --for STATE) and only the servers left, quoted so that it runs as printed. Each line
// printed here is split as a POSIX shell would (shell-quote) and run as-is.

let e: E2E;
beforeAll(async () => {
  e = await setup({ servers: 8 });
});
afterAll(async () => {
  await e.close();
});

const servers = () => [...e.sandbox.state.servers.values()].filter((s) => !s.stored);
let nextFree = 0;
async function freshRunning(): Promise<ServerRecord> {
  return ensureRunning(e.sandbox, servers()[nextFree++]!);
}

/** The words of a printed command line, as a POSIX shell splits them (no operators, no globs). */
function words(line: string): string[] {
  const parsed = parse(line);
  for (const w of parsed) if (typeof w !== 'string') throw new Error(`not a plain command: ${line}`);
  expect(parsed[0]).toBe('gsh');
  return (parsed as string[]).slice(1);
}

/** Runs `argv` in-process and sends SIGINT once every server of `ids` is waited for (its restart accepted, its status polled). */
async function interruptWhileWaiting(argv: string[], ids: string[]) {
  const ctx = testContext({ env: runEnv(e.env()) });
  const accepted = new Set<string>();
  const polled = new Set<string>();
  let sent = false;
  const off = e.sandbox.onRequest((x) => {
    const id = ids.find((i) => x.path.startsWith(`/servers/${i}/`));
    if (id && x.path.endsWith('/power') && x.status === 202) accepted.add(id);
    else if (id && accepted.has(id) && x.method === 'GET' && x.path.endsWith('/status')) polled.add(id);
    if (polled.size === ids.length && !sent) {
      sent = true;
      (ctx.signals as EventEmitter).emit('SIGINT');
    }
  });
  try {
    return await runGsh(argv, ctx);
  } finally {
    off();
  }
}

describe('waitCommand', () => {
  it('quotes a pattern for a shell and keeps it whole, quotes and spaces included', () => {
    const pattern = `it's "Done" \\(ok\\) $HOME *`;
    const line = waitCommand({ kind: 'server-state', serverId: 'a1', state: 'running', ready: { pattern } });
    expect(words(line)).toEqual(['wait', '-s', 'a1', '--ready', pattern]);
    expect(waitCommand({ kind: 'server-state', serverId: 'a1', state: 'running', ready: {} })).toBe('gsh wait -s a1 --ready');
    expect(waitCommand({ kind: 'server-state', serverId: 'a1', state: 'offline' })).toBe('gsh wait -s a1 --for offline');
  });
});

describe('a --ready that stopped resumes with --ready and its pattern, never --for running', () => {
  it('interrupted: the printed line, run as-is, waits for the ready line again', async () => {
    const s = await freshRunning();
    const r = await interruptWhileWaiting(['power', 'restart', '-s', s.id, '--ready', 'Done \\('], [s.id]);
    expect(r.exitCode, r.stderr).toBe(130);
    const line = /^ {2}(gsh wait .*)$/m.exec(r.stderr)?.[1];
    expect(line).toBe(`gsh wait -s ${s.id} --ready 'Done \\('`);
    const resumed = await runGsh(words(line!), { env: runEnv(e.env()) });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/ready: .*Done \(/);
  });

  it('timed out: -o json names the resume; run as-is on a server that never prints the line, it does not succeed', async () => {
    const s = await freshRunning();
    const r = await e.gsh(['power', 'restart', '-s', s.id, '--ready', 'never printed', '--timeout', '3s', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(10);
    const error = JSON.parse(r.stderr.trim().split('\n').at(-1)!).error as { resume: string; hint: string };
    expect(error.resume).toBe(`gsh wait -s ${s.id} --ready 'never printed'`);
    expect(error.hint).toContain(`Resume with:\n  gsh wait -s ${s.id} --ready 'never printed'`);
    await ensureRunning(e.sandbox, s);
    // `--for running` would succeed at once here; the resume keeps to the line, and on a server
    // already up whose history lacks it, says at once that it cannot tell (12), naming the pattern.
    const resumed = await runGsh([...words(error.resume), '--timeout', '2s'], { env: runEnv(e.env()) });
    expect(resumed.exitCode, resumed.stderr).toBe(12);
    expect(resumed.stderr).toContain('/never printed/');
  });

  it('a fleet: one line for the servers left, with the pattern; run as-is it waits for both', async () => {
    const a = await freshRunning();
    const b = await freshRunning();
    const r = await interruptWhileWaiting(['power', 'restart', '-s', `${a.id},${b.id}`, '--ready', 'Done \\(', '-o', 'json'], [a.id, b.id]);
    expect(r.exitCode, r.stderr).toBe(130);
    const entries = JSON.parse(r.stdout) as { server_id: string; error?: { resume?: string } }[];
    for (const x of entries) expect(x.error?.resume).toBe(`gsh wait -s ${x.server_id} --ready 'Done \\('`);
    const line = /^ {2}(gsh wait .*)$/m.exec(r.stderr)?.[1];
    expect(line).toBe(`gsh wait -s ${idList(entries.map((x) => x.server_id))} --ready 'Done \\('`);
    const from = e.sandbox.log.length;
    const resumed = await runGsh([...words(line!), '-o', 'json'], { env: runEnv(e.env()) });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect((JSON.parse(resumed.stdout) as { ok: boolean }[]).map((x) => x.ok)).toEqual([true, true]);
    // Issue 50: the line names the servers as `id:…`, so running it lists no servers to find them
    // (02-endpoints-part-a.md "Servers": GET /servers); its waits read the list with statuses only.
    expect(e.sandbox.log.slice(from).filter((x) => x.method === 'GET' && x.route === '/servers' && x.query?.include !== 'status')).toEqual([]);
  });
});

describe('--for STATE and the servers left', () => {
  it('gsh wait on two servers: the one that timed out is the only one the resume names, with its --for', async () => {
    const a = await freshRunning();
    const b = await freshRunning();
    e.sandbox.extensions.context.lifecycle.power(a, 'stop');
    const r = await e.gsh(['wait', '-s', `${a.id},${b.id}`, '--for', 'offline', '--timeout', '4s', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(11);
    const results = JSON.parse(r.stdout) as { server_id: string; ok: boolean; error?: { resume?: string } }[];
    expect(results.find((x) => x.server_id === a.id)?.ok).toBe(true);
    expect(results.find((x) => x.server_id === b.id)?.error?.resume).toBe(`gsh wait -s ${b.id} --for offline`);
    expect(r.stderr).toContain(`Resume the waits left with:\n  gsh wait -s ${b.id} --for offline`);
    // Run as-is once b stops: it waits for offline, not for running.
    e.sandbox.extensions.context.lifecycle.power(b, 'stop');
    const resumed = await runGsh([...words(`gsh wait -s ${b.id} --for offline`), '-o', 'json'], { env: runEnv(e.env()) });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout).state).toBe('offline');
  });
});
