import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerRecord } from '../../src/sandbox/index.js';
import { run } from '../../src/program.js';
import { testContext, type TestContext, virtualClock } from '../helpers/context.js';
import { until } from '../console/in-process.js';
import { leaks } from '../helpers/terminal-leaks.js';
import { type E2E, ensureRunning, runEnv, setup } from './helpers.js';

// The person door in-process (issue 50 item 1; DESIGN.md "Doors: terminal, disk, wire and the
// person"): every question is asked on a terminal stdin the test writes keys to, and Ctrl-C is
// the key \x03 at the question, as a person presses it, never a signal. It ends the run as SIGINT
// does: exit 130, no internal error, nothing sent after it, and a fleet lists every target with
// the rest line. The same on a real pty: person-tty.test.ts.

let e: E2E;
beforeAll(async () => {
  e = await setup({ servers: 16 });
});
afterAll(async () => {
  await e.close();
});

const used = new Set<string>();
function fresh(): ServerRecord {
  const s = [...e.sandbox.state.servers.values()].find((x) => !used.has(x.id))!;
  used.add(s.id);
  return s;
}

/** A run on a terminal (stdin and stderr), stdin left open for the keys. */
function onTerminal(argv: string[], env: Record<string, string | undefined> = {}): { ctx: TestContext; done: Promise<number> } {
  const ctx = testContext({ env: runEnv(e.env(env)), tty: { stdin: true, stderr: true }, stdinOpen: true, clock: virtualClock() });
  return { ctx, done: run(argv, ctx) };
}

/** Waits for `question` on stderr, then presses `keys`. */
async function answer(ctx: TestContext, question: string, keys: string): Promise<void> {
  await until(() => ctx.stderr.text().includes(question), 10_000, `the question "${question}"`);
  ctx.stdin.write(keys);
}

const requests = (since: number, method: string, path: RegExp) => e.sandbox.log.slice(since).filter((x) => x.method === method && path.test(x.path));

describe('the delete question', () => {
  it('says what will happen, naming the server by name and id (as gh and kubectl ask)', async () => {
    const s = fresh();
    const { ctx, done } = onTerminal(['servers', 'delete', '-s', s.name]);
    await answer(ctx, '[y/N]', 'n\n');
    expect(await done).toBe(2);
    expect(ctx.stderr.text()).toContain(`Delete server ${s.name} (${s.id})? This cannot be undone. [y/N] `);
    expect(e.sandbox.state.servers.has(s.id)).toBe(true);
  });

  it('names the thing the path names, on its server, and a destructive flag with what it does', async () => {
    const s = fresh();
    const backup = onTerminal(['backups', 'delete', '-s', s.name, 'b-123']);
    await answer(backup.ctx, '[y/N]', 'n\n');
    expect(await backup.done).toBe(2);
    expect(backup.ctx.stderr.text()).toContain(`Delete backup b-123 on server ${s.name} (${s.id})? This cannot be undone. [y/N]`);
    const wipe = onTerminal(['servers', 'reinstall', '-s', s.name, '--wipe']);
    await answer(wipe.ctx, '[y/N]', 'n\n');
    expect(await wipe.done).toBe(2);
    expect(wipe.ctx.stderr.text()).toContain(`Reinstall server ${s.name} (${s.id}) with --wipe (delete the server files first)? This cannot be undone. [y/N]`);
  });

  it('without a terminal the refusal says what would have happened, before any request', async () => {
    const s = fresh();
    const mark = e.sandbox.log.length;
    const r = await e.gsh(['servers', 'delete', '-s', s.name]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`Delete server ${s.name}: refusing without --yes when not interactive`);
    expect(requests(mark, 'DELETE', /./)).toEqual([]);
  });

  it('Ctrl-C at it: exit 130, no internal error, nothing deleted', async () => {
    const s = fresh();
    const mark = e.sandbox.log.length;
    const { ctx, done } = onTerminal(['servers', 'delete', '-s', s.name]);
    await answer(ctx, 'This cannot be undone. [y/N]', '\x03');
    expect(await done, ctx.stderr.text()).toBe(130);
    expect(ctx.stderr.text()).not.toContain('internal error');
    expect(ctx.stderr.text()).toMatch(/interrupted/);
    expect(requests(mark, 'DELETE', /./)).toEqual([]);
    expect(e.sandbox.state.servers.has(s.id)).toBe(true);
  });

  it('Ctrl-C at a fleet\'s question: every server listed as not started, the rest line, nothing deleted', async () => {
    const a = fresh();
    const b = fresh();
    const mark = e.sandbox.log.length;
    const { ctx, done } = onTerminal(['servers', 'delete', '-s', a.name, '-s', b.name, '-o', 'json']);
    await answer(ctx, `Delete 2 servers: ${a.name} (${a.id}), ${b.name} (${b.id})? This cannot be undone. [y/N]`, '\x03');
    expect(await done, ctx.stderr.text()).toBe(130);
    const results = JSON.parse(ctx.stdout.text()) as { server_id: string; not_started?: boolean }[];
    expect(results.map((r) => [r.server_id, r.not_started])).toEqual([[a.id, true], [b.id, true]]);
    expect(ctx.stderr.text()).toMatch(/Run them with:\n {2}gsh servers delete .*-s \S+/);
    expect(ctx.stderr.text()).not.toContain('internal error');
    expect(requests(mark, 'DELETE', /./)).toEqual([]);
  });

  it('a hostile server name in the question shows as text: only gsh\'s own sequences reach the terminal', async () => {
    const hostile = await setup({ servers: 2, hostile: true });
    try {
      const s = [...hostile.sandbox.state.servers.values()][0]!;
      const ctx = testContext({ env: runEnv(hostile.env()), tty: { stdin: true, stderr: true }, stdinOpen: true, clock: virtualClock() });
      const done = run(['servers', 'delete', '-s', s.id], ctx);
      await answer(ctx, 'This cannot be undone. [y/N]', 'n\r');
      expect(await done).toBe(2);
      // readline's own cursor moves aside (\x1b[1G, \x1b[0J, \x1b[nG), nothing of the name's is obeyed.
      expect(leaks(ctx.stderr.text().replace(/\x1b\[\d*[GJ]/g, ''))).toEqual([]);
      expect(ctx.stderr.text()).toContain(`(${s.id})? This cannot be undone.`);
    } finally {
      await hostile.close();
    }
  });

  it('SIGTERM from outside while the question waits: exit 143, nothing deleted', async () => {
    const s = fresh();
    const { ctx, done } = onTerminal(['servers', 'delete', '-s', s.name]);
    await until(() => ctx.stderr.text().includes('[y/N]'));
    ctx.signals.emit('SIGTERM');
    expect(await done, ctx.stderr.text()).toBe(143);
    expect(e.sandbox.state.servers.has(s.id)).toBe(true);
  });
});

describe('the ad question', () => {
  async function needsAd(): Promise<ServerRecord> {
    const s = fresh();
    if (s.state !== 'offline') {
      await ensureRunning(e.sandbox, s);
      e.sandbox.extensions.context.lifecycle.power(s, 'kill');
    }
    s.adRequired = true;
    return s;
  }

  it('Ctrl-C at "Press Enter once the ad has played…": exit 130, no internal error, the start not sent again', async () => {
    const s = await needsAd();
    const mark = e.sandbox.log.length;
    const { ctx, done } = onTerminal(['power', 'start', '-s', s.id]);
    await answer(ctx, 'Press Enter once the ad has played', '\x03');
    expect(await done, ctx.stderr.text()).toBe(130);
    expect(ctx.stderr.text()).not.toContain('internal error');
    expect(requests(mark, 'POST', new RegExp(`^/servers/${s.id}/power$`))).toHaveLength(1);
    expect(s.state).toBe('offline');
  });

  it('Ctrl-C at a fleet server\'s ad question: every server listed, the rest line, exit 130; no start sent after the key', async () => {
    const a = await needsAd();
    const b = await needsAd();
    const mark = e.sandbox.log.length;
    const { ctx, done } = onTerminal(['power', 'start', '-s', a.id, '-s', b.id, '-o', 'json']);
    await answer(ctx, 'Press Enter once the ad has played', '\x03');
    const keyAt = e.sandbox.log.length;
    expect(await done, ctx.stderr.text()).toBe(130);
    const results = JSON.parse(ctx.stdout.text()) as { server_id: string; ok: boolean; interrupted?: boolean; not_started?: boolean; error?: { code: string | null } }[];
    expect(results.map((r) => r.server_id).sort()).toEqual([a.id, b.id].sort());
    for (const r of results) {
      expect(r.ok).toBe(false);
      expect(r.interrupted ?? r.not_started).toBe(true);
      expect(r.error?.code).not.toBe('internal');
    }
    expect(ctx.stderr.text()).toMatch(/Run the servers not started or not sent with:\n {2}gsh power start .*-s \S+/);
    expect(ctx.stderr.text()).not.toContain('internal error');
    expect(requests(keyAt, 'POST', /\/power$/)).toEqual([]);
    expect(requests(mark, 'POST', /\/power$/).length).toBeLessThanOrEqual(2);
  });
});

describe('Announce anyway?', () => {
  const announce = ['--announce', 'Restart in {left}', '--countdown', '30s,10s', '--announce-cancel', 'Restart cancelled'];

  it('Ctrl-C at it: exit 130, nothing said, no restart', async () => {
    const s = fresh();
    await ensureRunning(e.sandbox, s);
    s.plan = 'free';
    const mark = e.sandbox.log.length;
    const { ctx, done } = onTerminal(['power', 'restart', '-s', s.id, ...announce]);
    await answer(ctx, 'Announce anyway? [y/N]', '\x03');
    expect(await done, ctx.stderr.text()).toBe(130);
    expect(ctx.stderr.text()).not.toContain('internal error');
    expect(requests(mark, 'POST', new RegExp(`^/servers/${s.id}/(commands|power)$`))).toEqual([]);
  });

  it('Ctrl-C at it in a fleet: every server listed as not started, the rest line', async () => {
    const a = fresh();
    const b = fresh();
    await ensureRunning(e.sandbox, a);
    await ensureRunning(e.sandbox, b);
    a.plan = 'free';
    const mark = e.sandbox.log.length;
    const { ctx, done } = onTerminal(['power', 'restart', '-s', a.id, '-s', b.id, ...announce]);
    await answer(ctx, 'Announce anyway? [y/N]', '\x03');
    expect(await done, ctx.stderr.text()).toBe(130);
    expect(ctx.stderr.text()).toContain(`Not started: ${a.name} (${a.id}), ${b.name} (${b.id})`);
    expect(ctx.stderr.text()).toMatch(/Run them with:\n {2}gsh power restart .*-s \S+/);
    expect(requests(mark, 'POST', /\/(commands|power)$/)).toEqual([]);
  });
});

describe('the key prompt of auth login', () => {
  it('Ctrl-C at "API key:": exit 130 (not 2, "cancelled"), nothing saved, nothing sent', async () => {
    const ctx = testContext({ env: runEnv(e.env({ GSH_API_KEY: undefined })), tty: { stdin: true, stderr: true }, stdinOpen: true });
    const raw: boolean[] = [];
    ctx.stdin.setRawMode = (on: boolean) => raw.push(on);
    const mark = e.sandbox.log.length;
    const done = run(['auth', 'login', '--profile', 'pressed'], ctx);
    await answer(ctx, 'API key: ', 'sk_partly\x03');
    expect(await done, ctx.stderr.text()).toBe(130);
    expect(ctx.stderr.text()).not.toContain('cancelled');
    expect(ctx.stderr.text()).not.toContain('sk_partly');
    expect(raw).toEqual([true, false]);
    expect(ctx.store.read().profiles.pressed).toBeUndefined();
    expect(requests(mark, 'GET', /\/me$/)).toEqual([]);
  });
});
