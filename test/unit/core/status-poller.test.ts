import { describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/core/run/context.js';
import { Exit } from '../../../src/core/errors.js';
import type { ApiClient, RequestSpec } from '../../../src/core/wire/http.js';
import { Runtime } from '../../../src/core/run/runtime.js';
import { POLL_SHARE_SENDING, StatusPoller } from '../../../src/core/fleet/status-poller.js';
import { pollDelay } from '../../../src/core/run/poll.js';
import { testContext } from '../../helpers/context.js';

// Fleet waits in pages (status-poller.ts): GET /servers?include=status, 100 a page
// (02-endpoints-part-a.md "Servers"), and GET /servers/{id}/status where the list shows no state
// gsh can read (the contract does not show the shape of `status` in the list).

/** A clock that moves only when slept on, recording each pause. */
function steppingClock(): Clock & { pauses: number[] } {
  let now = 1_700_000_000_000;
  const pauses: number[] = [];
  return { pauses, now: () => now, sleep: async (ms) => void (pauses.push(ms), (now += ms)) };
}

type Item = Record<string, unknown>;

/** A client over `pages(round)` (the list) and `status(id, round)` (one server), counting requests. */
function fakeClient(total: number, item: (i: number, round: number) => Item, opts: { limit?: number } = {}) {
  const sent: RequestSpec[] = [];
  let round = 0;
  const client = {
    sent,
    nextRound: () => round++,
    async request(spec: RequestSpec) {
      sent.push(spec);
      const headers = opts.limit ? { 'x-ratelimit-limit': String(opts.limit) } : {};
      if (spec.path === '/servers') {
        const offset = Number(spec.query?.offset ?? 0);
        const limit = Number(spec.query?.limit ?? 25);
        const data = Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, k) => item(offset + k, round));
        return { status: 200, headers, body: { data, pagination: { total, limit, offset, has_more: offset + data.length < total } }, requestId: 'r', replayed: false, idempotencyKey: undefined };
      }
      const id = /\/servers\/([^/]+)\/status/.exec(spec.path)![1]!;
      return { status: 200, headers, body: { data: { state: 'running', id } }, requestId: 'r', replayed: false, idempotencyKey: undefined };
    },
  };
  return client as typeof client & ApiClient;
}

const runtime = (clock: Clock) => new Runtime({}, testContext({ clock }));
const id = (i: number) => `s${String(i).padStart(3, '0')}`;

describe('StatusPoller', () => {
  it('250 servers: each round reads the list with statuses, 100 a page, and nothing per server', async () => {
    const client = fakeClient(250, (i) => ({ id: id(i), name: `n${i}`, status: { state: 'running' } }));
    const poller = new StatusPoller(runtime(steppingClock()), client);
    const states = await Promise.all(Array.from({ length: 250 }, (_, i) => poller.waitFor(id(i), 'running')));
    expect(states.every((s) => s.state === 'running')).toBe(true);
    expect(client.sent.map((s) => `${s.path} ${s.query?.include} ${s.query?.limit} ${s.query?.offset}`)).toEqual([
      '/servers status 100 0', '/servers status 100 100', '/servers status 100 200',
    ]);
  });

  it('reads pages only until every waited server is seen', async () => {
    const client = fakeClient(250, (i) => ({ id: id(i), status: { state: 'offline' } }));
    const poller = new StatusPoller(runtime(steppingClock()), client);
    await Promise.all([poller.waitFor(id(3), 'offline'), poller.waitFor(id(40), 'offline')]);
    // Two servers and one page known: the first round lists (1 page), as two alone would cost 2.
    expect(client.sent.map((s) => s.path)).toEqual(['/servers']);
  });

  it.each([
    ['no status', () => ({})],
    ['status as a word', () => ({ status: 'running' })],
    ['status without a state', () => ({ status: { node_ready: true } })],
  ])('a list with %s: those servers are read alone, from then on', async (_what, shape) => {
    const client = fakeClient(5, (i) => ({ id: id(i), ...shape() }));
    const clock = steppingClock();
    const poller = new StatusPoller(runtime(clock), client);
    const states = await Promise.all([0, 1, 2, 3].map((i) => poller.waitFor(id(i), 'running')));
    expect(states.map((s) => s.state)).toEqual(['running', 'running', 'running', 'running']);
    expect(client.sent.filter((s) => s.path === '/servers')).toHaveLength(1);
    expect(client.sent.filter((s) => s.path.endsWith('/status'))).toHaveLength(4);
  });

  it('a restart must be seen leaving running in the list before running counts', async () => {
    const client = fakeClient(20, (i, round) => ({ id: id(i), status: { state: ['running', 'stopping', 'starting', 'running'][Math.min(round, 3)] } }));
    const clock = steppingClock();
    const poller = new StatusPoller(runtime(clock), client);
    const waits = Promise.all(Array.from({ length: 20 }, (_, i) => poller.waitFor(id(i), 'running', 'running')));
    // Each request the fake answers is one round: the next round sees the next state.
    const origRequest = client.request.bind(client);
    client.request = (async (spec: RequestSpec) => {
      const res = await origRequest(spec);
      client.nextRound();
      return res;
    }) as typeof client.request;
    await waits;
    expect(client.sent).toHaveLength(4);
  });

  it('backs off from 1 s, and leaves the budget to the actions still to send', async () => {
    const client = fakeClient(300, (i) => ({ id: id(i), status: { state: 'starting' } }), { limit: 60 });
    const clock = steppingClock();
    const rounds: number[] = [];
    const request = client.request.bind(client);
    client.request = (async (spec: RequestSpec) => {
      if (spec.query?.offset === 0) rounds.push(clock.now());
      return request(spec);
    }) as typeof client.request;
    const rt = new Runtime({ timeout: '10m' }, testContext({ clock }));
    const started = clock.now();
    const poller = new StatusPoller(rt, client);
    let left = 100;
    poller.actionsLeft = () => left;
    const waits = Array.from({ length: 300 }, (_, i) => poller.waitFor(id(i), 'running').catch((e: unknown) => e));
    // A few rounds while sending, then the sends end: rounds come faster, still within the budget.
    while (rounds.length < 3) await new Promise((r) => setTimeout(r, 1));
    left = 0;
    const ended = await Promise.all(waits);
    expect(ended.every((e) => (e as { exitCode?: number }).exitCode === Exit.timedOut)).toBe(true);
    const gaps = rounds.map((at, i) => at - (i === 0 ? started : rounds[i - 1]!));
    expect(gaps[0]).toBe(pollDelay(0));
    // 3 pages a round, a tenth of 60 a minute while sending: one round every 30 s.
    expect(gaps[1]).toBeGreaterThanOrEqual((3 / (POLL_SHARE_SENDING * 60)) * 60_000);
    expect(gaps[2]).toBeGreaterThanOrEqual(30_000);
    // Over the whole 10 minutes, polls took at most half the budget.
    expect(client.sent.length).toBeLessThanOrEqual(0.5 * 60 * 10 + 3);
    expect(client.sent.every((s) => s.path === '/servers')).toBe(true);
  });

  it('close() ends the waits still open with exit 130 and stops the rounds', async () => {
    const client = fakeClient(3, (i) => ({ id: id(i), status: { state: 'starting' } }));
    const poller = new StatusPoller(runtime(steppingClock()), client);
    const wait = poller.waitFor(id(0), 'running').catch((e: unknown) => e);
    poller.close();
    expect(((await wait) as { exitCode: number }).exitCode).toBe(Exit.interrupted);
  });
});
