import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  EVENT_TABLE, initialState, type Observation, PHASES, QUIET_RUNNING_MS, SEEN, type Seen, step, STREAM_TABLE, type WaitState,
} from '../../src/leaf/ready-wait.js';

// Issue 43: the ready wait is a state machine over one ordered stream of observations (socket
// events, poll answers, console lines, the clock). 01-general-contract.md "Server runtime states":
// the transitions between runtime states are not shown, so gsh must expect any order of them, and
// a socket event and a poll answer may arrive in either order. This file checks that the tables in
// src/ARCHITECTURE.md "The ready wait" are the code's, then runs every interleaving of socket
// events and poll answers for start, restart, stop, crash and never-ready boots.

const DOC = readFileSync(new URL('../../src/ARCHITECTURE.md', import.meta.url), 'utf8');

/** The rows of the first markdown table after `heading` whose header starts with `first`. */
function docTable(first: string): string[][] {
  const section = DOC.slice(DOC.indexOf('## The ready wait'));
  const lines = section.split('\n');
  const at = lines.findIndex((l) => l.startsWith(`| ${first} |`));
  if (at < 0) throw new Error(`no table starting with "${first}" in ARCHITECTURE.md "The ready wait"`);
  const rows: string[][] = [];
  for (const l of lines.slice(at)) {
    if (!l.startsWith('|')) break;
    rows.push(l.split('|').slice(1, -1).map((c) => c.trim()));
  }
  return rows;
}

const SEEN_DOC: Record<string, Seen> = { starting: 'starting', running: 'running', 'running, new run': 'running-new', stopping: 'stopping', offline: 'offline', other: 'other' };

describe('the tables in ARCHITECTURE.md are the code\'s', () => {
  it('phase × state seen', () => {
    const [head, , ...rows] = docTable('phase');
    const cols = head!.slice(1).map((c) => SEEN_DOC[c]);
    expect(cols).toEqual([...SEEN]);
    expect(rows.map((r) => r[0])).toEqual([...PHASES]);
    const fromDoc = Object.fromEntries(rows.map((r) => [r[0], Object.fromEntries(cols.map((c, i) => [c, r[i + 1]]))]));
    expect(fromDoc).toEqual(STREAM_TABLE);
  });

  it('the other observations', () => {
    const [, , ...rows] = docTable('observation');
    expect(Object.fromEntries(rows.map((r) => [r[0], r[1]]))).toEqual(EVENT_TABLE);
  });
});

type Tagged = { o: Observation; at: number };
type Outcome = 'ready' | 'crashed' | 'timed out' | 'waiting';

const DEADLINE = 100_000;

/** Runs the machine over a stream; the outcome, and how many notices it gave. */
function runMachine(restart: boolean, stream: readonly Tagged[]): { outcome: Outcome; notices: number; noticeAt?: number } {
  let w: WaitState = initialState(restart);
  let notices = 0;
  let noticeAt: number | undefined;
  for (const { o, at } of stream) {
    const r = step(w, o, at, DEADLINE);
    w = r.next;
    if (r.effect === 'notice') {
      notices++;
      noticeAt ??= at;
    }
  }
  return { outcome: w.end ?? 'waiting', notices, ...(noticeAt !== undefined ? { noticeAt } : {}) };
}

/** Every merge of two sequences that keeps the order within each. */
function* merges<T>(a: readonly T[], b: readonly T[]): Generator<T[]> {
  if (a.length === 0) return yield [...b];
  if (b.length === 0) return yield [...a];
  for (const rest of merges(a.slice(1), b)) yield [a[0]!, ...rest];
  for (const rest of merges(a, b.slice(1))) yield [b[0]!, ...rest];
}

/** Every subsequence (the socket may leave any transition unshown). */
function* subsequences<T>(xs: readonly T[]): Generator<T[]> {
  if (xs.length === 0) return yield [];
  for (const rest of subsequences(xs.slice(1))) {
    yield [xs[0]!, ...rest];
    yield rest;
  }
}

/** Every sequence of up to `n` poll answers: each reads the timeline at a moment no earlier than the last. */
function* pollSamples(timeline: readonly Seen[], n: number, from = 0): Generator<Seen[]> {
  yield [];
  if (n === 0) return;
  for (let i = from; i < timeline.length; i++) for (const rest of pollSamples(timeline, n - 1, i)) yield [timeline[i]!, ...rest];
}

const socketState = (seen: Seen): Tagged => ({ o: { kind: 'state', source: 'socket', seen }, at: 0 });
const pollState = (seen: Seen): Tagged => ({ o: { kind: 'state', source: 'poll', seen }, at: 0 });
const READY_LINE: Tagged = { o: { kind: 'line', matches: true }, at: 0 };
const OTHER_LINE: Tagged = { o: { kind: 'line', matches: false }, at: 0 };

/**
 * Every order: socket transitions (all of them, or any subset), poll answers sampled from the
 * timeline, every merge of the two; `expected` says each stream's outcome. Gives the count of
 * streams run and the first ones whose outcome differed.
 */
function everyOrder(
  opts: { restart: boolean; socket: Seen[]; timeline: Seen[]; subsets: boolean; after?: Tagged[]; polls?: number },
  expected: (stream: Tagged[]) => Outcome,
): { runs: number; wrong: string[] } {
  let runs = 0;
  const wrong: string[] = [];
  const sockets = opts.subsets ? [...subsequences(opts.socket)] : [opts.socket];
  for (const socket of sockets) {
    for (const polls of pollSamples(opts.timeline, opts.polls ?? 3)) {
      for (const order of merges(socket.map(socketState), polls.map(pollState))) {
        const stream = [...order, ...(opts.after ?? [])];
        const got = runMachine(opts.restart, stream).outcome;
        const want = expected(stream);
        runs++;
        if (got !== want && wrong.length < 5) wrong.push(`${stream.map(({ o }) => (o.kind === 'state' ? `${o.source}:${o.seen}` : o.kind)).join(' ')} → ${got}, not ${want}`);
      }
    }
  }
  return { runs, wrong };
}

describe('every interleaving of socket events and poll answers', () => {
  it('restart (running → stopping → offline → starting → running, then the line): ready in every order, never a crash', () => {
    // The socket may repeat the old state first, and may leave out any transition.
    const r = everyOrder(
      { restart: true, socket: ['running', 'stopping', 'offline', 'starting', 'running'], timeline: ['running', 'stopping', 'offline', 'starting', 'running'], subsets: true, after: [READY_LINE] },
      () => 'ready',
    );
    expect(r.wrong).toEqual([]);
    expect(r.runs).toBeGreaterThan(10_000);
  });

  it('the order that failed (issue 43): a poll\'s starting, then the socket\'s offline of the same stop', () => {
    const stream = [socketState('stopping'), pollState('starting'), socketState('offline'), socketState('starting'), socketState('running'), READY_LINE];
    expect(runMachine(true, stream).outcome).toBe('ready');
    // What the wait did before: one flag for both sources, set by the poll's starting.
    let booted = false;
    let crashed = false;
    for (const { o } of stream) {
      if (o.kind !== 'state') continue;
      if (o.seen === 'starting') booted = true;
      else if (booted && o.seen === 'offline') crashed = true;
    }
    expect(crashed).toBe(true);
  });

  it('start (offline → starting → running, then the line): ready in every order, a stale offline poll included', () => {
    expect(everyOrder({ restart: false, socket: ['starting', 'running'], timeline: ['offline', 'starting', 'running'], subsets: true, after: [READY_LINE] }, () => 'ready').wrong).toEqual([]);
  });

  it('crash while starting after a restart: 13 in every order while the socket shows its transitions', () => {
    const timeline: Seen[] = ['running', 'stopping', 'offline', 'starting', 'offline'];
    expect(everyOrder({ restart: true, socket: ['stopping', 'offline', 'starting', 'offline'], timeline, subsets: false }, () => 'crashed').wrong).toEqual([]);
  });

  it('crash with the socket gone after the stop: 13 once a poll has seen the new boot and then offline', () => {
    const r = everyOrder({ restart: true, socket: ['stopping', 'offline'], timeline: ['starting', 'offline'], subsets: true, polls: 2 }, (stream) => {
      const polls = stream.filter((t) => t.o.kind === 'state' && t.o.source === 'poll').map((t) => (t.o as { seen: Seen }).seen);
      return polls.join(',') === 'starting,offline' ? 'crashed' : 'waiting';
    });
    expect(r.wrong).toEqual([]);
  });

  it('crash restart pending ends the wait in any phase', () => {
    const after: Tagged[] = [{ o: { kind: 'crash restart pending' }, at: 0 }];
    expect(everyOrder({ restart: true, socket: ['stopping', 'offline', 'starting'], timeline: ['running', 'stopping', 'offline', 'starting'], subsets: true, after }, () => 'crashed').wrong).toEqual([]);
  });

  it('stop after the start (starting → running → stopping → offline, no line): 13 in every order', () => {
    const timeline: Seen[] = ['offline', 'starting', 'running', 'stopping', 'offline'];
    expect(everyOrder({ restart: false, socket: ['starting', 'running', 'stopping', 'offline'], timeline, subsets: false }, () => 'crashed').wrong).toEqual([]);
  });

  it('never ready (a Node.js application, a Minecraft pattern): one notice 60 s after it runs, then timed out at --timeout', () => {
    const ticks: Tagged[] = [];
    for (let at = 250; at <= DEADLINE; at += 250) ticks.push({ o: { kind: 'clock' }, at });
    const runningAt = 4_000;
    const later = ticks.filter((t) => t.at > runningAt);
    let runs = 0;
    for (const polls of pollSamples(['offline', 'starting', 'running'], 3)) {
      for (const order of merges([socketState('starting'), socketState('running')], polls.map(pollState))) {
        // Everything before the clock moves on happens by 4 s; other lines go on.
        const stream = [...order.map((t) => ({ ...t, at: runningAt })), { ...OTHER_LINE, at: runningAt }, ...later];
        expect(runMachine(false, stream)).toEqual({ outcome: 'timed out', notices: 1, noticeAt: runningAt + QUIET_RUNNING_MS });
        runs++;
      }
    }
    expect(runs).toBeGreaterThan(100);
  });

  it('nothing running yet gives no notice; the clock alone ends at --timeout', () => {
    const r = runMachine(true, [{ o: { kind: 'clock' }, at: 70_000 }, { o: { kind: 'clock' }, at: DEADLINE }]);
    expect(r).toEqual({ outcome: 'timed out', notices: 0 });
  });
});
