import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EffectEntry } from '../../src/sandbox/index.js';
import { type E2E, setup } from './helpers.js';

// Mutations under chaos (ARCHITECTURE.md "Requests": outcome of a mutation; 01-general-contract.md
// "Limits": a keyed request replays its first outcome for 24 hours, "Errors": retry rules).
// Gateway 5xx, lost answers (executed, then the connection dropped) and 429s are injected at
// random; the sandbox's own effect log (a mutation executed and answered below 400) is the truth:
//   - exit 0 ⇔ exactly one effect;
//   - every retry of a run keeps its one Idempotency-Key;
//   - a non-zero exit after an effect says `applied` or `unknown` and names that key;
//   - `not_applied` means no effect;
//   - replaying every `applied`/`unknown` ending with the command gsh printed never acts twice.
// Runs are in-process with a clock that passes each pause at a fraction of its length.

const FAULTS = { gateway5xx: 0.3, lostResponse: 0.25, rateLimit429: 0.1 };
const NO_FAULTS = { gateway5xx: 0, lostResponse: 0, rateLimit429: 0 };
/** Mutations per kind (5 kinds; GSH_CHAOS_PER_KIND for a larger run) and how many servers carry them (each server's run one at a time). */
const PER_KIND = Number(process.env.GSH_CHAOS_PER_KIND ?? 60);
const LANES = 10;
const FLEET = 50;

interface JsonError {
  message: string;
  code: string | null;
  status: number | null;
  request_id: string | null;
  exit_code: number;
  outcome: 'applied' | 'not_applied' | 'unknown' | null;
  idempotency_key: string | null;
  hint?: string;
  replay?: string;
  step?: string;
}

interface Ending {
  kind: string;
  exitCode: number;
  effects: EffectEntry[];
  keys: Set<string>;
  error?: JsonError;
}

let t: E2E;
beforeAll(async () => {
  // The key's limit is the contract's highest (01-general-contract.md "Limits"): the 429s here are the injected ones.
  t = await setup({ servers: FLEET, timeScale: 0.01, clock: 0.002, seed: 26, rateLimit: 10_000 });
});
afterAll(() => t.close());

/** The Idempotency-Keys the requests of `path` carried in the log after `mark`, and the effects they made. */
function seenSince(mark: number, method: string, path: string): { keys: Set<string>; effects: EffectEntry[] } {
  const entries = t.sandbox.log.filter((e) => e.seq > mark && e.method === method && e.path === path);
  const keys = new Set(entries.map((e) => e.idempotencyKey ?? '(none)'));
  return { keys, effects: t.sandbox.effects.filter((e) => e.idempotencyKey !== undefined && keys.has(e.idempotencyKey)) };
}

/** The last line of stderr as the --json error object. */
function jsonError(stderr: string): JsonError | undefined {
  const last = stderr.trim().split('\n').pop();
  try {
    return (JSON.parse(last ?? '') as { error?: JsonError }).error;
  } catch {
    return undefined;
  }
}

/** The replay command a --json error's hint ends with, as argv. */
function replayArgv(hint: string | undefined): string[] | undefined {
  const line = hint?.split('\n').pop()?.trim();
  if (!line?.startsWith('gsh ')) return undefined;
  return shellWords(line).slice(1);
}

/** The words a POSIX shell makes of `line` (single quotes and backslashes; all replayCommand writes). */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === '\\') {
      word = (word ?? '') + line[++i];
    } else if (c === ' ') {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

describe('chaos: every ending of a mutation states its outcome', () => {
  it(`${PER_KIND * 5} single mutations of five kinds, then a fleet of ${FLEET}, and the replays`, async () => {
    const servers = [...t.sandbox.state.servers.values()];
    // server.properties (properties update) lives on Minecraft servers.
    const lanes = servers.filter((s) => s.application === 'minecraft').slice(0, LANES);
    expect(lanes.length).toBeGreaterThanOrEqual(5);
    // Webhooks go to servers of their own, a few per lane, so none reaches the per-server webhook limit.
    const others = servers.filter((s) => !lanes.includes(s));
    const hookServer = (lane: string, n: number) => {
      const i = lanes.findIndex((l) => l.id === lane);
      const own = others.filter((_, j) => j % lanes.length === i);
      // The lane's k-th webhook goes to its k-th server, round the lane's servers.
      return own[Math.floor(n / (kinds.length * lanes.length)) % own.length]!.id;
    };
    const kinds: { kind: string; method: string; path: (id: string, n: number) => string; argv: (id: string, n: number) => string[] }[] = [
      { kind: 'hooks create', method: 'POST', path: (id, n) => `/servers/${hookServer(id, n)}/hooks`, argv: (id, n) => ['hooks', 'create', '-s', hookServer(id, n), '--url', `https://example.com/chaos-${n}`, '--events', 'server.started'] },
      { kind: 'properties update', method: 'PUT', path: (id) => `/servers/${id}/properties`, argv: (id, n) => ['properties', 'update', '-s', id, '-f', `motd=chaos-${n}`] },
      { kind: 'settings update', method: 'PATCH', path: (id) => `/servers/${id}/settings`, argv: (id, n) => ['settings', 'update', '-s', id, '-f', `description=chaos-${n}`] },
      { kind: 'files content update', method: 'PUT', path: (id) => `/servers/${id}/files/content`, argv: (id, n) => ['files', 'content', 'update', '-s', id, '-f', `path=/chaos/${n}.txt`, '-f', `content=run ${n}`] },
      { kind: 'power restart', method: 'POST', path: (id) => `/servers/${id}/power`, argv: (id) => ['power', 'restart', '-s', id] },
    ];
    // Each lane takes the five kinds in turn.
    const plan = Array.from({ length: PER_KIND * kinds.length }, (_, n) => ({ n, kind: kinds[n % kinds.length]!, lane: lanes[Math.floor(n / kinds.length) % lanes.length]! }));

    const endings: (Ending & { argv: string[] })[] = [];
    t.sandbox.setFaults(FAULTS);
    try {
      // One run at a time per server (so the log entries of a path after a mark are that run's), the lanes in parallel.
      await Promise.all(lanes.map(async (lane) => {
        for (const { n, kind } of plan.filter((p) => p.lane === lane)) {
          const mark = t.sandbox.log.length ? t.sandbox.log[t.sandbox.log.length - 1]!.seq : 0;
          const argv = [...kind.argv(lane.id, n), '--json'];
          const r = await t.gsh(argv);
          endings.push({ kind: kind.kind, argv, exitCode: r.exitCode, ...seenSince(mark, kind.method, kind.path(lane.id, n)), ...(r.exitCode ? { error: jsonError(r.stderr) } : {}) });
        }
      }));
    } finally {
      t.sandbox.setFaults(NO_FAULTS);
    }
    expect(endings).toHaveLength(PER_KIND * kinds.length);
    checkEndings(endings);

    // The fleet: one restart per server with --wait, under the same faults.
    for (const s of servers) {
      for (const cancel of s.timers) cancel();
      s.timers.clear();
      s.state = 'running';
    }
    const fleetMark = t.sandbox.log[t.sandbox.log.length - 1]!.seq;
    t.sandbox.setFaults(FAULTS);
    let fleet;
    try {
      // --retries 10: the listing that resolves the fleet's targets must get through the faults too.
      fleet = await t.gsh(['power', 'restart', '-s', servers.map((s) => s.id).join(','), '--wait', '--parallel', '10', '--retries', '10', '-o', 'json']);
    } finally {
      t.sandbox.setFaults(NO_FAULTS);
    }
    const entries = JSON.parse(fleet.stdout) as { server_id: string; ok: boolean; exit_code: number; error?: JsonError }[];
    expect(entries.map((e) => e.server_id).sort()).toEqual(servers.map((s) => s.id).sort());
    expect(fleet.exitCode).toBe(entries.every((e) => e.ok) ? 0 : 11);
    const fleetEndings = entries.map((e) => ({
      kind: 'fleet power restart',
      exitCode: e.exit_code,
      ...seenSince(fleetMark, 'POST', `/servers/${e.server_id}/power`),
      ...(e.error ? { error: { ...e.error, hint: e.error.replay } } : {}),
    }));
    checkEndings(fleetEndings);

    // Replays, without faults: each applied/unknown ending's command, key included.
    const open = [...endings, ...fleetEndings].filter((e) => e.exitCode !== 0 && (e.error?.outcome === 'unknown' || (e.error?.outcome === 'applied' && !e.error.step)));
    const counts = summarise([...endings, ...fleetEndings]);
    for (const e of open) {
      const argv = replayArgv(e.error?.hint);
      expect(argv, JSON.stringify(e.error)).toBeDefined();
      expect(argv).toContain(e.error!.idempotency_key!);
      // A restart needs a settled server (its restart from the chaos run may still be going).
      const server = t.sandbox.state.servers.get(argv![argv!.indexOf('-s') + 1]!);
      if (server && e.kind.includes('power')) {
        for (const cancel of server.timers) cancel();
        server.timers.clear();
        server.state = 'running';
      }
      const r = await t.gsh(argv!);
      const effects = t.sandbox.effects.filter((x) => x.idempotencyKey === e.error!.idempotency_key);
      const what = `${argv!.join(' ')}\n${r.stderr}`;
      // Exactly one effect: the first run's (the replay got its stored answer) or, where no
      // attempt had acted, the replay's own; never a second.
      expect(effects.length, what).toBe(1);
      expect(r.exitCode, what).toBe(0);
      if (e.effects.length === 1) expect(effects[0], what).toEqual(e.effects[0]);
    }
    // Enough of each ending happened for the test to mean something.
    expect(counts.ok).toBeGreaterThan(0);
    expect(counts.unknownWithEffect + counts.appliedWithEffect).toBeGreaterThan(0);
    expect(open.length).toBeGreaterThan(0);
    console.log(JSON.stringify({ mutations: endings.length + fleetEndings.length, ...counts, replays: open.length }));
  }, 30_000 + PER_KIND * 500);
});

/** The rules of every ending (see the top of this file). */
function checkEndings(endings: Ending[]): void {
  for (const e of endings) {
    const what = `${e.kind} exit ${e.exitCode}: ${JSON.stringify(e.error)} keys ${[...e.keys].join(',')} effects ${e.effects.length}`;
    expect(e.keys.size, what).toBeLessThanOrEqual(1); // every attempt of a run carried the same key
    if (e.keys.size === 0) {
      // Failed before the change was sent (a lookup gave up): nothing happened, and it says so.
      expect(e.exitCode, what).not.toBe(0);
      expect(e.error?.outcome, what).toBe('not_applied');
      continue;
    }
    expect(e.effects.length, what).toBeLessThanOrEqual(1); // never acted twice
    if (e.exitCode === 0) {
      expect(e.effects.length, what).toBe(1);
      continue;
    }
    expect(e.error, what).toBeDefined();
    if (e.effects.length === 1) {
      expect(['applied', 'unknown'], what).toContain(e.error!.outcome);
      expect(e.error!.idempotency_key, what).toBe(e.effects[0]!.idempotencyKey);
    }
    if (e.error!.outcome === 'not_applied') expect(e.effects.length, what).toBe(0);
    if (e.error!.outcome === 'unknown' || e.error!.outcome === 'applied') {
      expect(e.error!.idempotency_key, what).toBe([...e.keys][0]);
    }
  }
}

function summarise(endings: Ending[]) {
  const c = { ok: 0, failed: 0, applied: 0, appliedWithEffect: 0, unknown: 0, unknownWithEffect: 0, notApplied: 0, effects: 0 };
  for (const e of endings) {
    c.effects += e.effects.length;
    if (e.exitCode === 0) {
      c.ok++;
      continue;
    }
    c.failed++;
    if (e.error?.outcome === 'applied') {
      c.applied++;
      if (e.effects.length) c.appliedWithEffect++;
    } else if (e.error?.outcome === 'unknown') {
      c.unknown++;
      if (e.effects.length) c.unknownWithEffect++;
    } else c.notApplied++;
  }
  return c;
}
