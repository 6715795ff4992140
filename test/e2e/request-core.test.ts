import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayCommand } from '../../src/core/terminal/report.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { runGsh, testContext, virtualClock } from '../helpers/context.js';
import { type E2E, runEnv, setup } from './helpers.js';

// The request core explains itself (01-general-contract.md "Idempotency": success and server-error
// responses replay with `Idempotency-Replayed: true` for 24 hours; "Limits": per-key rate limits).
// Against the sandbox's fault injection: lost responses, stored 500s, a key with a small limit.

let t: E2E;
let server: { id: string; name: string };
beforeAll(async () => {
  t = await setup({ servers: 4, clock: 'fast' });
  const s = [...t.sandbox.state.servers.values()][0]!;
  server = { id: s.id, name: s.name };
});
afterAll(() => t.close());

const setOffline = () => void (t.sandbox.state.servers.get(server.id)!.state = 'offline');
const powerActions = () => t.sandbox.state.powerActions.filter((a) => a.serverId === server.id).length;

describe('lost answers', () => {
  it('say the mutation may have been applied, name its key and the exact replay command; the replay acts once', async () => {
    setOffline();
    const before = powerActions();
    // The name is remembered first, so the mutation goes on a new connection: a loss on a
    // kept-alive one (after a lookup) is resent at once without spending a retry (chaos.test.ts).
    await t.gsh(['servers', 'get', server.name, '--json']);
    t.sandbox.inject({ kind: 'lost', method: 'POST', path: `/servers/${server.id}/power`, count: 3 });
    const r = await t.gsh(['power', 'start', server.name, '--retries', '2']);
    expect(r.exitCode).toBe(9);
    expect(r.stderr).toMatch(/may have been applied/);
    const replay = /^\s+(gsh .* --idempotency-key (\S+))$/m.exec(r.stderr);
    expect(replay, r.stderr).not.toBeNull();
    expect(replay![1]).toBe(`gsh power start ${server.name} --retries 2 --idempotency-key ${replay![2]}`);
    expect(powerActions()).toBe(before + 1); // applied once, the answer lost three times

    const again = await t.gsh(replay![1]!.split(' ').slice(1));
    expect(again.exitCode, again.stderr).toBe(0);
    expect(powerActions()).toBe(before + 1); // the replay got the first outcome back
  });

  it('-o json carries the key in the error object', async () => {
    setOffline();
    t.sandbox.inject({ kind: 'lost', method: 'POST', path: `/servers/${server.id}/power`, count: 2 });
    const r = await t.gsh(['power', 'start', server.id, '--retries', '1', '--json']);
    expect(r.exitCode).toBe(9);
    const { error } = JSON.parse(r.stderr.trim().split('\n').pop()!);
    expect(error).toMatchObject({ outcome: 'unknown', exit_code: 9 });
    expect(error.idempotency_key).toMatch(/^[0-9a-f-]{36}$/);
    expect(error.hint).toContain(`--idempotency-key ${error.idempotency_key}`);
  });

  it('the replay command keeps every word, quoted for the shell, and replaces a key given before', () => {
    expect(replayCommand(['console', 'send', '-s', 'lobby', "say it's late", '--idempotency-key', 'old'], 'k1'))
      .toBe("gsh console send -s lobby 'say it'\\''s late' --idempotency-key k1");
  });
});

describe('stored failures', () => {
  it('a replayed 500 ends the retries at once and says a new key is needed', async () => {
    setOffline();
    const key = `stored-${Date.now()}`;
    // The first attempt fails inside the API (stored under the key); the gateway then drops one retry.
    t.sandbox.inject({ kind: 500, method: 'POST', path: `/servers/${server.id}/power` });
    const mark = t.sandbox.log.length;
    const r = await t.gsh(['power', 'start', server.id, '--idempotency-key', key, '--retries', '4']);
    expect(r.exitCode).toBe(9);
    const posts = t.sandbox.log.slice(mark).filter((e) => e.method === 'POST');
    expect(posts).toHaveLength(2); // the stored failure, and the one retry that came back replayed
    expect(r.stderr).toMatch(/recorded a failure for this Idempotency-Key/);
    expect(r.stderr).toMatch(/request_id req_\w+/);
    expect(r.stderr).toMatch(/needs a new key/);
    expect(r.stderr).not.toMatch(/try again later/);
  });
});

describe('announced waits', () => {
  it('a 429 honoured for longer than 2 s says why and for how long on stderr', async () => {
    t.sandbox.inject({ kind: 429, method: 'GET', path: '/servers', retryAfter: 7 });
    const r = await t.gsh(['servers', 'list']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/rate limited \(429\): waiting 7 s as Retry-After asks/);
  });

  it('a short Retry-After says nothing', async () => {
    t.sandbox.inject({ kind: 429, method: 'GET', path: '/servers', retryAfter: 1 });
    const r = await t.gsh(['servers', 'list']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/waiting/);
  });

  it('waiting for the rate-limit window says why and for how long', async () => {
    // The sandbox's rate-limit windows and gsh share a virtual clock: the wait passes at once.
    const clock = virtualClock();
    const sb = await startSandbox({ servers: 4, rateLimit: 2, timeScale: 0.01, now: clock.now });
    try {
      const ctx = testContext({ env: runEnv({ GSH_BASE_URL: sb.baseUrl, GSH_API_KEY: sb.keys.all, GSH_CONFIG_DIR: t.configDir }), clock });
      const r = await runGsh(['servers', 'status', '--all-servers', '--parallel', '1', '-o', 'json'], ctx);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/rate limit: all 2 requests of this minute are used; waiting \d+ s for the window to reset/);
      expect(r.stderr).not.toMatch(/left in this minute/);
      expect(sb.log.filter((e) => e.status === 429)).toEqual([]);
    } finally {
      await sb.close();
    }
  });
});

describe('--all with --limit', () => {
  it('--limit is the page size of --all', async () => {
    const mark = t.sandbox.log.length;
    const r = await t.gsh(['servers', 'list', '--all', '--limit', '2', '-q']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.split('\n')).toHaveLength(4);
    const pages = t.sandbox.log.slice(mark).filter((e) => e.path === '/servers');
    expect(pages.map((e) => e.query.limit)).toEqual(['2', '2']);
    expect((await t.gsh(['servers', 'list', '--all', '--offset', '2'])).exitCode).toBe(2);
  });
});

describe('gsh api errors', () => {
  it('stdout carries the service body as it came; gsh\'s description goes to stderr only', async () => {
    const r = await t.gsh(['api', '/servers/does-not-exist']);
    expect(r.exitCode).toBe(5);
    const body = JSON.parse(r.stdout);
    expect(body.error.code).toBe('not_found');
    expect(typeof body.request_id === 'string' || typeof body.error.request_id === 'string').toBe(true);
    expect(r.stdout).not.toMatch(/^error:/m);
    expect(r.stderr).toMatch(/^error: /m);
  });
});

describe('--if-absent: a CI re-run creates nothing', () => {
  it('servers create: the first run creates, the re-run prints the existing server and exits 0, duplicates exit 6', async () => {
    const name = `ci-${Date.now()}`;
    const before = t.sandbox.state.servers.size;
    const first = await t.gsh(['servers', 'create', '-f', `name=${name}`, '-f', 'application=minecraft', '--if-absent', '--wait', '--json']);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(t.sandbox.state.servers.size).toBe(before + 1);
    const mark = t.sandbox.log.length;
    const again = await t.gsh(['servers', 'create', '-f', `name=${name}`, '-f', 'application=minecraft', '--if-absent', '--json']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).name).toBe(name);
    expect(again.stderr).toMatch(/nothing created \(--if-absent\)/);
    expect(t.sandbox.log.slice(mark).filter((e) => e.method === 'POST')).toEqual([]);
    expect(t.sandbox.state.servers.size).toBe(before + 1);

    await t.gsh(['servers', 'create', '-f', `name=${name}`, '-f', 'application=minecraft', '--wait']); // a duplicate made without the flag
    const dup = await t.gsh(['servers', 'create', '-f', `name=${name}`, '-f', 'application=minecraft', '--if-absent']);
    expect(dup.exitCode).toBe(6);
    expect(dup.stderr).toMatch(/2 already have name/);
  });

  it('hooks by URL and init templates by name', async () => {
    const url = `https://example.com/hook-${Date.now()}`;
    const hook = ['hooks', 'create', '-s', server.id, '--url', url, '--events', 'server.started', '--if-absent', '--json'];
    expect((await t.gsh(hook)).exitCode).toBe(0);
    const again = await t.gsh(hook);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/nothing created/);
    const hooks = await t.gsh(['hooks', 'list', '-s', server.id, '--json']);
    expect(JSON.parse(hooks.stdout).filter((h: { url: string }) => h.url === url)).toHaveLength(1);

    const dir = mkdtempSync(join(tmpdir(), 'gsh-ifabsent-'));
    try {
      writeFileSync(join(dir, 't.yaml'), '#service-init\nversion: 1\n');
      const tpl = ['init', 'templates', 'create', join(dir, 't.yaml'), '--name', `tpl-${Date.now()}`, '--if-absent', '--json'];
      expect((await t.gsh(tpl)).exitCode).toBe(0);
      const re = await t.gsh(tpl);
      expect(re.exitCode, re.stderr).toBe(0);
      expect(re.stderr).toMatch(/exists .* nothing created/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
