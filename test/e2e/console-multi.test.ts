import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleNodeOf } from '../../src/sandbox/console-node/index.js';
import type { ServerRecord } from '../../src/sandbox/index.js';
import { ensureRunning, setup, type E2E } from './helpers.js';

// One console over many servers (issue 31, item 3): `gsh console attach` with several targets
// opens each server's console socket (01-general-contract.md "Console socket") and shows every
// line after its server's name; -o jsonl adds server_id and server_name; stdin goes to every
// server only with --broadcast; --until ends once each server (or any, --until-any) matched.

let e: E2E;
beforeAll(async () => {
  e = await setup({ servers: 26 });
});
afterAll(async () => {
  await e.close();
});

let nextFree = 0;
/** Two running servers no other test uses (parallel-safe within the file). */
async function twoRunning(): Promise<[ServerRecord, ServerRecord]> {
  const pick = () => ensureRunning(e.sandbox, [...e.sandbox.state.servers.values()].filter((x) => !x.stored)[nextFree++]!);
  return [await pick(), await pick()];
}

/**
 * Each server says its line (the sandbox game's `say`) every 100 ms until `run` ends: a socket is
 * counted open before it is authenticated, and a line said before that is not shown (--until
 * watches new lines only), so saying it once could race the attach.
 */
async function sayUntilDone<T>(run: Promise<T>, servers: readonly ServerRecord[], say: (s: ServerRecord) => string | undefined): Promise<T> {
  const node = consoleNodeOf(e.sandbox);
  let done = false;
  void run.finally(() => (done = true));
  while (!done) {
    for (const s of servers) {
      const text = say(s);
      if (text !== undefined && node.connectionCount(s.id) > 0) node.game(s.id)!.command(`say ${text}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return run;
}

describe('gsh console attach on several servers', () => {
  it('shows both servers\' lines, each after its name, and --until ends once each matched', async () => {
    const [a, b] = await twoRunning();
    const run = e.gsh(['console', 'attach', '-s', `${a.id},${b.id}`, '--until', 'MARK-', '--timeout', '20s']);
    const r = await sayUntilDone(run, [a, b], (s) => `MARK-${s.id}`);
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    for (const s of [a, b]) {
      const label = new RegExp(`^${s.name}\\s* \\| .*\\[Server\\] MARK-${s.id}$`);
      expect(lines.some((l) => label.test(l)), `${s.name}: ${r.stdout}`).toBe(true);
    }
    // The note comes once both sessions are up; a match on each can end the run first, when a
    // server's first line comes in the same packet as its session's welcome (seen on a loaded
    // machine): then there is no note, and never one after the closing line.
    const note = r.stderr.indexOf('attached to 2 servers');
    if (note >= 0) expect(note).toBeLessThan(r.stderr.indexOf('--until:'));
    // Issue 46 item 8: a closing line says every server matched.
    expect(r.stderr).toMatch(new RegExp(`--until: a line matched /MARK-/ on every server \\((${a.name}, ${b.name}|${b.name}, ${a.name})\\); detached`));
  });

  it('--read-only over one or two servers says nothing of --broadcast (issue 46 item 8)', async () => {
    const [a, b] = await twoRunning();
    for (const servers of [[a], [a, b]]) {
      const ids = servers.map((s) => s.id).join(',');
      const planned = await e.gsh(['console', 'attach', '-s', ids, '--read-only', '--dry-run']);
      expect(planned.exitCode, planned.stderr).toBe(0);
      expect(planned.stdout + planned.stderr).not.toMatch(/broadcast/);
      const run = e.gsh(['console', 'attach', '-s', ids, '--read-only', '--until', 'RO-', '--timeout', '20s']);
      const r = await sayUntilDone(run, servers, (s) => `RO-${s.id}`);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/broadcast/);
      expect(r.stderr).toMatch(/read-only/);
    }
  });

  it('--until-any ends at the first server that matched', async () => {
    const [a, b] = await twoRunning();
    const run = e.gsh(['console', 'attach', '-s', `${a.id},${b.id}`, '--until', 'ONLY-ONE', '--until-any', '--timeout', '20s']);
    const r = await sayUntilDone(run, [a, b], (s) => (s === b ? 'ONLY-ONE' : undefined));
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^${b.name}\\s* \\| .*ONLY-ONE$`, 'm'));

    // Without --until-any the same single match is not enough: --timeout ends it, naming who is left.
    const [c, d] = await twoRunning();
    const each = e.gsh(['console', 'attach', '-s', `${c.id},${d.id}`, '--until', 'ONLY-ONE', '--timeout', '2s']);
    const t = await sayUntilDone(each, [c, d], (s) => (s === d ? 'ONLY-ONE' : undefined));
    expect(t.exitCode).toBe(10);
    expect(t.stdout).toMatch(/ONLY-ONE/);
    expect(t.stderr).toMatch(new RegExp(`within 2 s \\(--timeout\\) on ${c.name}$`, 'm'));
  });

  it('-o jsonl: every event with server_id and server_name', async () => {
    const [a, b] = await twoRunning();
    const run = e.gsh(['console', 'attach', '-s', `${a.id},${b.id}`, '--until', 'JSON-', '--timeout', '20s', '-o', 'jsonl']);
    const r = await sayUntilDone(run, [a, b], (s) => `JSON-${s.id}`);
    expect(r.exitCode, r.stderr).toBe(0);
    const events = r.stdout.split('\n').map((l) => JSON.parse(l) as { server_id: string; server_name: string; event: string; args?: string[] });
    for (const s of [a, b]) {
      expect(events).toContainEqual({ server_id: s.id, server_name: s.name, event: 'console output', args: [expect.stringContaining(`[Server] JSON-${s.id}`)] });
    }
  });

  it('piped lines go to every server with --broadcast, and to none without it', async () => {
    const [a, b] = await twoRunning();
    const sent = await e.gsh(['console', 'attach', '-s', `${a.id},${b.id}`, '--no-history', '--broadcast'], { input: 'say to-everyone\n' });
    expect(sent.exitCode, sent.stderr).toBe(0);
    for (const s of [a, b]) expect(sent.stdout).toMatch(new RegExp(`^${s.name}\\s* \\| .*\\[Server\\] to-everyone$`, 'm'));

    const notSent = await e.gsh(['console', 'attach', '-s', `${a.id},${b.id}`, '--until', 'never', '--timeout', '1s'], { input: 'say not-for-anyone\n' });
    expect(notSent.exitCode).toBe(10);
    expect(notSent.stdout).not.toContain('not-for-anyone');
    expect(notSent.stderr).toMatch(/standard input is not read/);
  });

  it('--dry-run lists a console session per server and sends nothing', async () => {
    const [a, b] = await twoRunning();
    const r = await e.gsh(['console', 'attach', '-s', `${a.id},${b.id}`, '--dry-run']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(`POST ${e.sandbox.baseUrl}/servers/${a.id}/console/token`);
    expect(r.stdout).toContain(`POST ${e.sandbox.baseUrl}/servers/${b.id}/console/token`);
    expect(r.stdout).toMatch(/stream their output in one view/);
  });

  // Issue 36, item 6: a socket that ends for good ("deleted", 01-general-contract.md "Console
  // socket"; or a session the API no longer grants, 404) leaves the --until set.
  it('a server deleted mid-run leaves the --until set: named on stderr, the run ends once the rest matched (exit 11)', async () => {
    const [a, b] = await twoRunning();
    const [c] = await twoRunning();
    const node = consoleNodeOf(e.sandbox);
    const run = e.gsh(['console', 'attach', '-s', `${a.id},${b.id},${c.id}`, '--until', 'MARK-', '--timeout', '20s']);
    // b is deleted once its socket is open; a and c go on saying their line, b never does.
    let deleted = false;
    const r = await sayUntilDone(run, [a, b, c], (s) => {
      if (!deleted && node.connectionCount(b.id) > 0) {
        deleted = true;
        e.sandbox.extensions.context.lifecycle.deleteServer(b);
      }
      return s === b ? undefined : `MARK-${s.id}`;
    });
    expect(r.exitCode, r.stderr).toBe(11);
    expect(r.stderr).toMatch(new RegExp(`${b.name} was deleted; its console has ended; no longer waited for by --until`));
    for (const s of [a, c]) expect(r.stdout).toMatch(new RegExp(`^${s.name}\\s* \\| .*\\[Server\\] MARK-${s.id}$`, 'm'));
    expect(r.stderr).not.toMatch(/within 20 s \(--timeout\)/);
  });

  it('a server whose session the API refuses after a dropped socket leaves the --until set too (exit 11)', async () => {
    const [a, b] = await twoRunning();
    const node = consoleNodeOf(e.sandbox);
    const run = e.gsh(['console', 'attach', '-s', `${a.id},${b.id}`, '--until', 'MARK-', '--timeout', '20s']);
    let gone = false;
    const r = await sayUntilDone(run, [a, b], (s) => {
      if (!gone && node.connectionCount(b.id) > 0) {
        gone = true;
        // The socket drops before the node can say `deleted`; reconnecting then gets 404 for good.
        node.drop(b.id);
        e.sandbox.extensions.context.lifecycle.deleteServer(b);
      }
      return s === a ? `MARK-${s.id}` : undefined;
    });
    expect(r.exitCode, r.stderr).toBe(11);
    expect(r.stderr).toMatch(new RegExp(`^warning: ${b.name} .*no longer waited for by --until$`, 'm'));
  });

  it('the --until example of console attach --help is a valid regular expression', async () => {
    const r = await e.gsh(['console', 'attach', '--help']);
    const patterns = [...r.stdout.matchAll(/--until '([^']*)'/g)].map((m) => m[1]!);
    expect(patterns.length).toBeGreaterThan(1);
    for (const p of patterns) expect(() => new RegExp(p), p).not.toThrow();
  });

  it('--broadcast with --read-only, or --until-any alone, is a usage error', async () => {
    const [a, b] = await twoRunning();
    expect((await e.gsh(['console', 'attach', '-s', `${a.id},${b.id}`, '--broadcast', '--read-only'])).exitCode).toBe(2);
    expect((await e.gsh(['console', 'attach', '-s', `${a.id},${b.id}`, '--until-any'])).exitCode).toBe(2);
  });
});
