import { EventEmitter } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fastClock, runGsh, testContext } from '../helpers/context.js';
import { type E2E, idList, runEnv, setup } from './helpers.js';

// Every ending of a mutation states its outcome (ARCHITECTURE.md "Requests"), across all its
// attempts: 01-general-contract.md "Errors" (retry rules: 429 waits, 5xx back off, other 4xx are
// final) and "Limits" (a keyed request replays its first outcome for 24 hours).

let t: E2E;
let server: { id: string; name: string };
beforeAll(async () => {
  t = await setup({ servers: 4, clock: 'fast' });
  const s = [...t.sandbox.state.servers.values()][0]!;
  server = { id: s.id, name: s.name };
  // Remembered, so each mutation goes on a new connection: a loss on a kept-alive one (after a
  // lookup) would be resent at once without spending a retry (core/wire/transport.ts resending).
  await t.gsh(['servers', 'get', server.id, '--json']);
});
afterAll(() => t.close());

const power = (id = server.id) => `/servers/${id}/power`;
const effectsOf = (key: string) => t.sandbox.effects.filter((e) => e.idempotencyKey === key);
const settle = (id: string, state: 'offline' | 'running') => {
  const s = t.sandbox.state.servers.get(id)!;
  for (const cancel of s.timers) cancel();
  s.timers.clear();
  s.state = state;
};
/** The first power request is executed and its answer lost; the next `count` get `later`. */
const loseThen = (later: 429 | 502, count: number) => {
  t.sandbox.inject({ kind: 'lost', method: 'POST', path: power() });
  const off = t.sandbox.onRequest((e) => {
    if (e.fault === 'lost' && e.path === power()) {
      off();
      t.sandbox.inject({ kind: later, method: 'POST', path: power(), count, retryAfter: 1 });
    }
  });
};
const clearInjections = () => t.sandbox.extensions.context.faults.clearInjections();
const lastJson = (stderr: string) => JSON.parse(stderr.trim().split('\n').pop()!).error;

describe('an answer lost, then other failures', () => {
  for (const [later, exit] of [[429, 8], [502, 9]] as const) {
    it(`lost, then ${later} on every retry: exit ${exit}, "may have been applied", the key and the replay, which acts once`, async () => {
      settle(server.id, 'offline');
      loseThen(later, 2);
      const r = await t.gsh(['power', 'start', server.id, '--retries', '2']);
      expect(r.exitCode, r.stderr).toBe(exit);
      const replay = /^\s+(gsh .* --idempotency-key (\S+))$/m.exec(r.stderr);
      expect(replay, r.stderr).not.toBeNull();
      expect(r.stderr).toContain(`It may have been applied (Idempotency-Key ${replay![2]})`);
      expect(replay![1]).toBe(`gsh power start ${server.id} --retries 2 --idempotency-key ${replay![2]}`);
      expect(effectsOf(replay![2]!)).toHaveLength(1);

      const again = await t.gsh(replay![1]!.split(' ').slice(1));
      expect(again.exitCode, again.stderr).toBe(0);
      expect(effectsOf(replay![2]!)).toHaveLength(1);
    });
  }

  it('--json: one error object with outcome unknown and the key', async () => {
    settle(server.id, 'offline');
    loseThen(429, 1);
    const r = await t.gsh(['power', 'start', server.id, '--retries', '1', '--json']);
    expect(r.exitCode).toBe(8);
    const error = lastJson(r.stderr);
    expect(Object.keys(error).slice(0, 7)).toEqual(['message', 'code', 'status', 'request_id', 'exit_code', 'outcome', 'idempotency_key']);
    expect(error).toMatchObject({ code: 'rate_limit_exceeded', status: 429, exit_code: 8, outcome: 'unknown' });
    expect(error.request_id).toMatch(/^req_/);
    expect(effectsOf(error.idempotency_key)).toHaveLength(1);
    // Issue 50 item 8: the replay line is a field of its own (README "Outcomes"), the one the hint names.
    expect(error.replay).toBe(`gsh power start ${server.id} --retries 1 --json --idempotency-key ${error.idempotency_key}`);
    expect(error.hint).toContain(error.replay);
  });

  it('--json: a change refused every time (not_applied) carries no replay', async () => {
    settle(server.id, 'offline');
    t.sandbox.inject({ kind: 429, method: 'POST', path: power(), count: 2, retryAfter: 1 });
    const r = await t.gsh(['power', 'start', server.id, '--retries', '1', '--json']);
    clearInjections();
    expect(r.exitCode).toBe(8);
    const error = lastJson(r.stderr);
    expect(error.outcome).toBe('not_applied');
    expect(error).not.toHaveProperty('replay');
  });

  it('refused every time (429 only): not_applied, no replay line', async () => {
    t.sandbox.inject({ kind: 429, method: 'POST', path: power(), count: 2, retryAfter: 1 });
    const r = await t.gsh(['power', 'start', server.id, '--retries', '1', '--json']);
    expect(r.exitCode).toBe(8);
    const error = lastJson(r.stderr);
    expect(error.outcome).toBe('not_applied');
    expect(effectsOf(error.idempotency_key)).toHaveLength(0);
    expect(error.hint ?? '').not.toMatch(/idempotency-key/);
  });

  it('a read has no outcome', async () => {
    const r = await t.gsh(['servers', 'get', 'no-such-server-id', '--json']);
    expect(r.exitCode).not.toBe(0);
    expect(lastJson(r.stderr)).toMatchObject({ outcome: null, idempotency_key: null });
  });
});

describe('a fleet whose change was accepted but whose wait failed', () => {
  it('says outcome applied, step wait, the key and the resume command, in the same error object', async () => {
    const [a, b] = [...t.sandbox.state.servers.values()].slice(2, 4).map((s) => s.id) as [string, string];
    settle(a, 'offline');
    settle(b, 'offline');
    // a's start is accepted; every poll of its status then fails.
    t.sandbox.inject({ kind: 503, method: 'GET', path: `/servers/${a}/status`, count: 50 });
    try {
      const r = await t.gsh(['power', 'start', '-s', `${a},${b}`, '--wait', '--retries', '1', '-o', 'json']);
      expect(r.exitCode, r.stderr).toBe(11);
      const entries = JSON.parse(r.stdout) as { server_id: string; ok: boolean; error?: Record<string, unknown> }[];
      const failed = entries.find((e) => e.server_id === a)!;
      expect(failed.ok).toBe(false);
      expect(failed.error).toMatchObject({ code: 'service_unavailable', status: 503, exit_code: 9, outcome: 'applied', step: 'wait', resume: `gsh wait -s ${a} --for running` });
      expect(effectsOf(failed.error!.idempotency_key as string)).toHaveLength(1);
      expect(entries.find((e) => e.server_id === b)!.ok).toBe(true);
      expect(r.stderr).toMatch(/Applied, then the wait failed: /);
    } finally {
      clearInjections();
    }
  });
});

describe('Ctrl-C during a mutation', () => {
  it('cancels the request, exits 130 and names the key and the replay', async () => {
    settle(server.id, 'offline');
    const ctx = testContext({ env: runEnv(t.env()) });
    // Every request is held this long (the server lookup too): the POST is under way when interrupted.
    t.sandbox.setFaults({ latencyMs: 1500 });
    try {
      // Interrupted once the POST has reached the sandbox (it is held there by the latency).
      const seen = new Promise<void>((resolve) => {
        const timer = setInterval(() => {
          if (t.sandbox.log.some((e) => e.method === 'POST' && e.path === power() && e.status === null)) {
            clearInterval(timer);
            resolve();
          }
        }, 5);
      });
      const running = runGsh(['power', 'start', server.id], ctx);
      await seen;
      (ctx.signals as EventEmitter).emit('SIGINT');
      const r = await running;
      expect(r.exitCode).toBe(130);
      expect(r.stderr).toMatch(/^error: interrupted$/m);
      expect(r.stderr).toMatch(/It may have been applied \(Idempotency-Key \S+\)/);
      expect(r.stderr).toMatch(new RegExp(`^  gsh power start ${server.id} --idempotency-key \\S+$`, 'm'));
    } finally {
      t.sandbox.setFaults({ latencyMs: 0 });
    }
  });
});

describe('Ctrl-C on a fleet whose changes were accepted', () => {
  it('each interrupted target keeps its own key and resume; one gsh wait line resumes them all', async () => {
    const ids = [...t.sandbox.state.servers.values()].map((s) => s.id);
    for (const id of ids) settle(id, 'running');
    const ctx = testContext({ env: runEnv(t.env()) });
    const mark = t.sandbox.log.length;
    t.sandbox.setFaults({ latencyMs: 200 });
    try {
      const polled = new Promise<void>((resolve) => {
        // Two restarts accepted and their waits polling (together, through the list with statuses).
        const timer = setInterval(() => {
          const log = t.sandbox.log.slice(mark);
          const accepted = log.filter((e) => e.method === 'POST' && e.path.endsWith('/power') && e.status === 202).length;
          if (accepted >= 2 && log.some((e) => e.method === 'GET' && e.path === '/servers' && e.query.include === 'status')) {
            clearInterval(timer);
            resolve();
          }
        }, 5);
      });
      const running = runGsh(['power', 'restart', '-s', ids.join(','), '--wait', '--parallel', '2', '-o', 'json'], ctx);
      await polled;
      (ctx.signals as EventEmitter).emit('SIGINT');
      const r = await running;
      expect(r.exitCode).toBe(130);
      const entries = JSON.parse(r.stdout) as { server_id: string; interrupted?: true; not_started?: true; error: { outcome: string; idempotency_key: string; resume?: string } }[];
      expect(entries.map((e) => e.server_id).sort()).toEqual([...ids].sort());
      // Those whose restart was accepted were waiting: each keeps its own key and resume.
      const stopped = entries.filter((e) => e.interrupted && e.error.resume !== undefined);
      expect(stopped.length).toBeGreaterThanOrEqual(2);
      for (const e of stopped) {
        expect(e.error).toMatchObject({ outcome: 'applied', resume: `gsh wait -s ${e.server_id} --for running` });
        expect(effectsOf(e.error.idempotency_key).map((x) => x.path)).toEqual([power(e.server_id)]);
      }
      expect(new Set(stopped.map((e) => e.error.idempotency_key)).size).toBe(stopped.length);
      for (const e of entries.filter((x) => x.not_started)) expect(e.error.outcome).toBe('not_applied');
      expect(r.stderr).toContain(`gsh wait -s ${idList(stopped.map((e) => e.server_id))} --for running`);
    } finally {
      t.sandbox.setFaults({ latencyMs: 0 });
    }
  });
});

describe('one notice per wait', () => {
  it('eight workers rate limited at once: one "waiting" line, with how long', async () => {
    const ids = [...t.sandbox.state.servers.values()].map((s) => s.id);
    for (const id of ids) t.sandbox.inject({ kind: 429, method: 'GET', path: `/servers/${id}/status`, retryAfter: 7 });
    const r = await t.gsh(['servers', 'status', '-s', ids.join(','), '--parallel', '4', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr.match(/rate limited \(429\): waiting 7 s/g)).toHaveLength(1);
  });
});

describe('answers that never end, and statuses not worth retrying', () => {
  const servers: Server[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => new Promise((r) => { s.closeAllConnections(); s.close(r); })));
  });
  async function serve(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; hits: () => number }> {
    let hits = 0;
    const srv = createServer((req, res) => {
      hits++;
      handler!(req, res);
    });
    servers.push(srv);
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    return { url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/api/v2`, hits: () => hits };
  }
  const gsh = (url: string, argv: string[]) =>
    runGsh(argv, { env: runEnv({ GSH_BASE_URL: url, GSH_API_KEY: 'gsh_live_x', GSH_CONFIG_DIR: '/nonexistent-gsh-config' }), clock: fastClock(0.001) });

  it('a body that trickles a byte at a time ends at --request-timeout, saying the service answered and then stalled', async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => res.write(' '), 100);
      res.on('close', () => clearInterval(timer));
    });
    const r = await gsh(url, ['servers', 'list', '--request-timeout', '1s', '--retries', '0']);
    expect(r.exitCode).toBe(9);
    expect(r.stderr).toMatch(/could not read the answer of \S+: the service answered \(HTTP 200\) and then stalled: the body did not arrive within 1 s \(--request-timeout\)/);
    expect(r.stderr).not.toMatch(/could not reach|Check the base URL/);
  });

  it('501 and 4xx other than 408 and 429 are not retried; 408 is', async () => {
    for (const [status, tries] of [[501, 1], [400, 1], [404, 1], [408, 3]] as const) {
      const { url, hits } = await serve((_req, res) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: `c${status}`, message: `status ${status}` }, request_id: 'req_1' }));
      });
      const r = await gsh(url, ['servers', 'list', '--retries', '2']);
      expect(r.exitCode, `${status}: ${r.stderr}`).not.toBe(0);
      expect(hits(), String(status)).toBe(tries);
      if (status === 501) expect(r.stderr).toMatch(/does not implement this \(501\), so gsh did not retry it/);
    }
  });

  it('a malformed JSON body is called malformed JSON', async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"data": [1, 2');
    });
    const r = await gsh(url, ['servers', 'list']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/HTTP 200, application\/json, malformed JSON/);
    expect(r.stderr).not.toMatch(/without the API envelope/);
  });
});
