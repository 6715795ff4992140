import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import type { Clock } from '../../src/core/run/context.js';
import { realClock } from '../../src/core/run/context.js';
import { fastClock, runGsh, testContext } from '../helpers/context.js';
import { type E2E, idList, runEnv, setup, STRICT } from './helpers.js';

// Rollouts at fleet scale (issue 53; README "Rollouts"): waves, a failure budget, shards, and the
// checks of their flags, as properties of the fleet runner (core/fleet/), against the sandbox.
// Rate limits as the contract gives them (01-general-contract.md "Limits": per key per minute,
// X-RateLimit-Limit/Remaining/Reset, 429 when exceeded).

let t: E2E;
let names: string[];
beforeAll(async () => {
  t = await setup({ servers: 12, clock: 'fast' });
  names = [...t.sandbox.state.servers.values()].map((s) => s.name).sort();
});
afterAll(() => t.close());

const idOf = (name: string) => [...t.sandbox.state.servers.values()].find((s) => s.name === name)!.id;
const setState = (targets: string[], state: 'offline' | 'running') => {
  for (const n of targets) {
    const s = t.sandbox.state.servers.get(idOf(n))!;
    for (const cancel of s.timers) cancel();
    s.timers.clear();
    s.state = state;
  }
};
const powerPosts = (from: number) => t.sandbox.log.slice(from).filter((e) => e.method === 'POST' && e.path.endsWith('/power'));

describe('the rollout flags are checked before any request', () => {
  const bad: [string[], RegExp][] = [
    [['--batch', '0'], /--batch takes a comma list/],
    [['--batch', '1,,2'], /--batch takes a comma list/],
    [['--batch', '150%'], /--batch takes a comma list/],
    [['--shard', '3/2'], /--shard takes K\/N/],
    [['--shard', '0/2'], /--shard takes K\/N/],
    [['--max-fail', 'x'], /--max-fail takes a whole number/],
    [['--rate-share', '2'], /--rate-share takes a part/],
    [['--pause', '5s'], /--pause is the wait between waves: it needs --batch/],
    [['--batch', '2', '--pause', 'soon'], /--pause takes a duration/],
    [['--fail-fast', '--max-fail', '2'], /--fail-fast is --max-fail 0/],
  ];
  // A registry leaf, hand-written fleet commands, on several servers and on one.
  const commands = (servers: string) => [
    ['power', 'restart', '-s', servers, '--yes'],
    ['console', 'send', '-s', servers, 'say hi'],
    ['wait', '-s', servers, '--for', 'running'],
    ['files', 'get', '/server.properties', '-s', servers],
  ];
  it.each(bad)('%j: exit 2, nothing sent', async (flags, message) => {
    for (const servers of [names.slice(0, 3).join(','), names[0] as string]) {
      for (const cmd of commands(servers)) {
        const mark = t.sandbox.log.length;
        const r = await t.gsh([...cmd, ...flags]);
        expect(r.exitCode, `${cmd.join(' ')}\n${r.stderr}`).toBe(2);
        expect(r.stderr).toMatch(message);
        expect(t.sandbox.log.slice(mark), cmd.join(' ')).toEqual([]);
      }
    }
  });

  it('every fleet command declares the same rollout flags (one declaration)', async () => {
    for (const cmd of [['power', 'restart'], ['console', 'send'], ['wait', 'server'], ['files', 'put'], ['files', 'get'], ['init', 'status'], ['console', 'history']]) {
      const r = await t.gsh([...cmd, '--help']);
      for (const flag of ['--fail-fast', '--batch <sizes>', '--pause <duration>', '--max-fail <n|p%>', '--shard <k/n>', '--rate-share <part>', '--journal <file>', '--resume <file>']) {
        expect(r.stdout, `${cmd.join(' ')} ${flag}`).toContain(flag);
      }
    }
  });
});

describe('waves (--batch)', () => {
  it('--dry-run shows the waves, sized as asked (counts and percentages, the last repeating)', async () => {
    const five = names.slice(0, 5);
    const r = await t.gsh(['power', 'restart', '-s', five.join(','), '--batch', '1,50%', '--pause', '2s', '--yes', '--dry-run']);
    expect(r.exitCode, r.stderr).toBe(0);
    const label = (n: string) => `${n} (${idOf(n)})`;
    expect(r.stdout).toContain(`then: wave 1 of 3 (1 server): ${label(five[0]!)}\n`);
    expect(r.stdout).toContain(`then: wave 2 of 3 (2 servers, after wave 1 has finished, 2 s apart): ${five.slice(1, 3).map(label).join(', ')}\n`);
    expect(r.stdout).toContain(`then: wave 3 of 3 (2 servers, after wave 2 has finished, 2 s apart): ${five.slice(3).map(label).join(', ')}`);
  });

  it('power restart --batch 1,50% --wait: no request of a wave is sent before every server of the wave before it was seen running again', async () => {
    const five = names.slice(0, 5);
    setState(five, 'running');
    const waves = [[five[0]!], five.slice(1, 3), five.slice(3)].map((w) => w.map(idOf));
    // At each power request: which servers had been sent theirs, and the state of each.
    const seen: { id: string; sent: string[]; states: Record<string, string> }[] = [];
    const sent: string[] = [];
    const onPower = (a: { serverId: string }) => {
      seen.push({ id: a.serverId, sent: [...sent], states: Object.fromEntries([...t.sandbox.state.servers.values()].map((s) => [s.id, s.state])) });
      sent.push(a.serverId);
    };
    t.sandbox.state.events.on('power', onPower);
    try {
      const r = await t.gsh(['power', 'restart', '-s', five.join(','), '--batch', '1,50%', '--wait', '--yes', '-o', 'json']);
      expect(r.exitCode, r.stderr).toBe(0);
      expect((JSON.parse(r.stdout) as { ok: boolean }[]).every((x) => x.ok)).toBe(true);
    } finally {
      t.sandbox.state.events.off('power', onPower);
    }
    expect(seen.map((s) => s.id).sort()).toEqual(five.map(idOf).sort());
    for (const [w, ids] of waves.entries()) {
      for (const id of ids) {
        const at = seen.find((s) => s.id === id)!;
        const before = waves.slice(0, w).flat();
        // Every server of the earlier waves had its restart sent and was running again.
        expect(at.sent.slice(0, before.length).sort()).toEqual([...before].sort());
        for (const b of before) expect(at.states[b], `${id} sent while ${b} was ${at.states[b]}`).toBe('running');
        // No server of a later wave went before it.
        expect(at.sent.filter((s) => waves.slice(w + 1).flat().includes(s))).toEqual([]);
      }
    }
  });

  it('--pause waits between waves on the run\'s clock, and says so', async () => {
    const three = names.slice(0, 3);
    const r = await t.gsh(['servers', 'status', '-s', three.join(','), '--batch', '1', '--pause', '30s', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(3);
    expect(r.stderr).toContain('wave 1 of 3 finished; wave 2 starts in 30 s');
    expect(r.stderr).toContain('wave 2 of 3 finished; wave 3 starts in 30 s');
  });
});

describe('the failure budget (--max-fail)', () => {
  it('--max-fail 1 with two failing servers: none starts after the second failure, exit 11, and the printed line runs exactly the rest', async () => {
    const five = names.slice(0, 5);
    setState(five, 'offline');
    const bad = [five[0]!, five[1]!].map((n) => t.sandbox.state.servers.get(idOf(n))!);
    for (const s of bad) s.suspended = true;
    let rest: string;
    try {
      const mark = t.sandbox.log.length;
      const r = await t.gsh(['power', 'start', '-s', five.join(','), '--parallel', '1', '--max-fail', '1', '-o', 'json']);
      expect(r.exitCode, r.stderr).toBe(11);
      const results = JSON.parse(r.stdout) as { server_id: string; ok: boolean; not_started?: true; error?: { rerun?: string; message: string } }[];
      expect(results.map((x) => x.server_id)).toEqual(five.map(idOf));
      expect(results.filter((x) => !x.ok && !x.not_started).map((x) => x.server_id)).toEqual(bad.map((s) => s.id));
      const left = five.slice(2).map(idOf);
      expect(results.filter((x) => x.not_started).map((x) => x.server_id)).toEqual(left);
      for (const x of results.filter((x) => x.not_started)) expect(x.error?.message).toBe('not started: the failure budget was spent');
      // Only the two failing servers were sent a request.
      expect(powerPosts(mark).map((e) => e.path.split('/')[2])).toEqual(bad.map((s) => s.id));
      expect(r.stderr).toMatch(/2 failed, more than --max-fail 1 allows: not started on /);
      const line = /^ {2}(gsh .*)$/m.exec(r.stderr.slice(r.stderr.indexOf('not started on')))?.[1];
      expect(line).toBe(`gsh power start --parallel 1 --max-fail 1 -o json -s ${idList(left)}`);
      rest = line!;
    } finally {
      for (const s of bad) s.suspended = false;
    }
    // The line, run: exactly the rest start.
    const mark = t.sandbox.log.length;
    const again = await t.gsh(rest.split(' ').slice(1));
    expect(again.exitCode, again.stderr).toBe(0);
    expect(powerPosts(mark).map((e) => e.path.split('/')[2]).sort()).toEqual(five.slice(2).map(idOf).sort());
  });

  it('a percentage of the selection: --max-fail 25% of 4 allows one failure', async () => {
    const four = names.slice(0, 4);
    setState(four, 'offline');
    const bad = t.sandbox.state.servers.get(idOf(four[0]!))!;
    bad.suspended = true;
    try {
      const r = await t.gsh(['power', 'start', '-s', four.join(','), '--parallel', '1', '--max-fail', '25%', '-o', 'json']);
      expect(r.exitCode).toBe(11);
      const results = JSON.parse(r.stdout) as { ok: boolean; not_started?: true }[];
      expect(results.filter((x) => x.ok)).toHaveLength(3);
      expect(results.filter((x) => x.not_started)).toEqual([]);
    } finally {
      bad.suspended = false;
    }
  });
});

describe('shards (--shard K/N)', () => {
  const shardIds = async (k: number, n: number, selection: string[]) => {
    const r = await t.gsh(['servers', 'status', '-s', selection.join(','), '--shard', `${k}/${n}`, '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    return (JSON.parse(r.stdout) as { server_id: string }[]).map((x) => x.server_id);
  };

  it('1/3, 2/3 and 3/3 partition the selection, sizes within one, the same whatever order it was named in', async () => {
    const all = names.slice(0, 11);
    const shards = [await shardIds(1, 3, all), await shardIds(2, 3, all), await shardIds(3, 3, all)];
    expect(shards.flat().sort()).toEqual(all.map(idOf).sort());
    expect(new Set(shards.flat()).size).toBe(all.length);
    const sizes = shards.map((s) => s.length);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    const reversed = [await shardIds(1, 3, [...all].reverse()), await shardIds(2, 3, [...all].reverse()), await shardIds(3, 3, [...all].reverse())];
    expect(reversed.map((s) => [...s].sort())).toEqual(shards.map((s) => [...s].sort()));
  });

  it('a shard of one server still runs as a fleet (its slice may be empty)', async () => {
    const one = [await shardIds(1, 2, [names[0]!]), await shardIds(2, 2, [names[0]!])];
    expect(one.flat()).toEqual([idOf(names[0]!)]);
  });

  it('the rest line of a shard keeps its share of the rate limit, not the slice', async () => {
    const r = await t.gsh(['power', 'restart', '-s', names.slice(0, 6).join(','), '--shard', '1/2', '--yes', '--dry-run']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/then: run on 3 servers \(shard 1\/2\), 4 at a time, using 50% of the key's rate limit: /);
  });
});

describe('shards share a key\'s budget', () => {
  // Two sandboxes: one for the shards that take their 1/N share, one for the same shards taking
  // the whole budget each (--rate-share 1), run at the same time. Time is real, its offset moved
  // (as test/e2e/shared-budget.test.ts does): the first request fixes it so that the key's
  // one-minute window ends 5 s later, and the runs wait seconds for the next one, not up to a
  // minute; the sandboxes' clock and the runs' are the same. Latency after the count, as over a
  // slow network: an answer's X-RateLimit-Remaining is already behind what the other shard sent
  // meanwhile, so pacing on the answers alone (the whole budget each) goes over the limit; 400 ms,
  // so that both listings are counted before either shard's first burst lands, however busy the
  // machine is.
  let shift = 0;
  let armed = false;
  const clock: Clock = { now: () => Date.now() + shift, sleep: realClock.sleep };
  const sandboxNow = () => {
    if (armed) {
      armed = false;
      shift = ((55_000 - (Date.now() % 60_000) + 60_000) % 60_000) - 60_000;
    }
    return clock.now();
  };
  const sandboxes: Sandbox[] = [];
  const dirs: string[] = [];
  beforeAll(async () => {
    for (let i = 0; i < 2; i++) sandboxes.push(await startSandbox({ strict: STRICT, servers: 80, rateLimit: 60, timeScale: 0.01, now: sandboxNow, faults: { latencyMs: 400 } }));
  });
  afterAll(async () => {
    await Promise.all(sandboxes.map((sb) => sb.close()));
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const machine = () => {
    const d = mkdtempSync(join(tmpdir(), 'gsh-shard-'));
    dirs.push(d);
    return d;
  };
  /** Both shards of every server at once, each on a machine of its own (no shared state), on a 60/min key: the 429s they got. */
  const twoShards = async (sb: Sandbox, extra: string[]) => {
    for (const s of sb.state.servers.values()) s.state = 'offline';
    const key = sb.createKey(['*'], { rateLimit: 60 });
    // The next request the sandboxes see fixes the clocks' offset.
    armed = true;
    const shard = (k: number) => runGsh(['power', 'start', '--all-servers', '--shard', `${k}/2`, ...extra, '--parallel', '32', '-o', 'json'], testContext({ env: runEnv({ GSH_BASE_URL: sb.baseUrl, GSH_API_KEY: key, GSH_CONFIG_DIR: machine() }), clock }));
    const [a, b] = await Promise.all([shard(1), shard(2)]);
    expect(a.exitCode, a.stderr).toBe(0);
    expect(b.exitCode, b.stderr).toBe(0);
    const ids = [a, b].map((r) => (JSON.parse(r.stdout) as { server_id: string }[]).map((x) => x.server_id));
    expect(ids[0]!.length + ids[1]!.length).toBe(80);
    expect(sb.state.powerActions).toHaveLength(80);
    // More than the window holds was asked: 80 starts and two listings.
    expect(sb.log.length).toBeGreaterThan(60);
    return sb.log.filter((e) => e.status === 429).length;
  };

  it('two shards at once on a 60/min key, on two machines (no shared state), get no 429; the same two with --rate-share 1 (each the whole budget) get 429s', async () => {
    const [shared, whole] = await Promise.all([twoShards(sandboxes[0]!, []), twoShards(sandboxes[1]!, ['--rate-share', '1'])]);
    expect(whole).toBeGreaterThan(0);
    expect(shared).toBe(0);
  });
});

describe('journals (--journal, --resume, gsh fleet report)', () => {
  let sb: Sandbox;
  const dirs: string[] = [];
  beforeAll(async () => {
    sb = await startSandbox({ strict: STRICT, servers: 20, timeScale: 0.05 });
  });
  afterAll(async () => {
    await sb.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const scratch = () => {
    const d = mkdtempSync(join(tmpdir(), 'gsh-journal-'));
    dirs.push(d);
    return d;
  };
  const gshOn = (argv: string[], configDir: string, ctx = testContext({ env: runEnv({ GSH_BASE_URL: sb.baseUrl, GSH_API_KEY: sb.keys.all, GSH_CONFIG_DIR: configDir }), clock: fastClock(0.05) })) => runGsh(argv, ctx);
  const lines = (file: string) => readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

  it('a journaled 20-server restart interrupted mid-way and resumed from its journal restarts each server exactly once; fleet report counts it', async () => {
    for (const s of sb.state.servers.values()) s.state = 'running';
    const dir = scratch();
    const journal = join(dir, 'restart.jsonl');
    const argv = ['power', 'restart', '--all-servers', '--wait', '--yes', '--journal', journal, '-o', 'json'];
    const restarts = new Map<string, number>();
    let n = 0;
    const ctx = testContext({ env: runEnv({ GSH_BASE_URL: sb.baseUrl, GSH_API_KEY: sb.keys.all, GSH_CONFIG_DIR: dir }), clock: fastClock(0.05) });
    const onPower = (a: { serverId: string }) => {
      restarts.set(a.serverId, (restarts.get(a.serverId) ?? 0) + 1);
      // Ctrl-C once six restarts were sent: some servers are waiting, some not started.
      if (++n === 6) setImmediate(() => (ctx.signals as EventEmitter).emit('SIGINT'));
    };
    sb.state.events.on('power', onPower);
    try {
      const first = await gshOn(argv, dir, ctx);
      expect(first.exitCode, first.stderr).toBe(130);
      const listed = JSON.parse(first.stdout) as { server_id: string; not_started?: true }[];
      expect(listed).toHaveLength(20);
      expect(listed.filter((x) => x.not_started).length).toBeGreaterThan(0);
      // One run line naming all 20, then one synced line per target that finished or was stopped.
      const written = lines(journal);
      expect(written[0]).toMatchObject({ journal: 1, kind: 'run', command: `gsh power restart --all-servers --wait` });
      expect((written[0]!.targets as unknown[]).length).toBe(20);
      expect(written.slice(1).map((l) => l.server_id).sort()).toEqual(listed.filter((x) => !x.not_started).map((x) => x.server_id).sort());

      // The same command line (another output format) with --resume: only what the journal does not show done.
      const resumed = await gshOn(['power', 'restart', '--all-servers', '--wait', '--yes', '--resume', journal], dir);
      expect(resumed.exitCode, resumed.stderr).toBe(0);
      expect(resumed.stderr).toMatch(/--resume .*restart\.jsonl: \d+ of 20 done already/);
      // The waits the interrupt stopped: their own gsh wait line, run with the journal.
      // Those the interrupt stopped after their restart was sent: their own lines (the wait's
      // resume; the replay with its key, which the service answers with the first outcome), run
      // with the journal.
      const finish = resumed.stderr.slice(resumed.stderr.indexOf('finish with:'));
      const own = [...finish.matchAll(/^ {2}(gsh (wait|power restart) .*)$/gm)].map((m) => m[1]!);
      for (const line of own) {
        const w = await gshOn([...line.split(' ').slice(1), '--journal', journal], dir);
        expect(w.exitCode, `${line}\n${w.stderr}`).toBe(0);
      }
    } finally {
      sb.state.events.off('power', onPower);
    }
    expect([...sb.state.servers.keys()].sort()).toEqual([...restarts.keys()].sort());
    expect([...restarts.values()].every((c) => c === 1), JSON.stringify([...restarts])).toBe(true);

    const report = await gshOn(['fleet', 'report', journal, '-o', 'json'], dir);
    expect(report.exitCode, report.stderr).toBe(0);
    const rows = JSON.parse(report.stdout) as { server_id: string; status: string }[];
    expect(rows.map((r) => r.server_id).sort()).toEqual([...sb.state.servers.keys()].sort());
    expect(rows.every((r) => r.status === 'ok')).toBe(true);
    expect(report.stderr).toContain('20 servers: 20 ok, 0 failed, 0 interrupted, 0 did not run');
  });

  it('fleet report merges shards\' journals; a failed target, or one that never ran, makes it exit 11', async () => {
    for (const s of sb.state.servers.values()) s.state = 'offline';
    const dir = scratch();
    const bad = [...sb.state.servers.values()][3]!;
    bad.suspended = true;
    try {
      for (const k of [1, 2]) {
        const r = await gshOn(['power', 'start', '--all-servers', '--shard', `${k}/2`, '--journal', join(dir, `shard-${k}.jsonl`)], dir);
        expect([0, 11]).toContain(r.exitCode);
      }
    } finally {
      bad.suspended = false;
    }
    const report = await gshOn(['fleet', 'report', join(dir, 'shard-1.jsonl'), join(dir, 'shard-2.jsonl'), '-o', 'json'], dir);
    expect(report.exitCode).toBe(11);
    const rows = JSON.parse(report.stdout) as { server_id: string; status: string }[];
    expect(rows).toHaveLength(20);
    expect(rows.filter((r) => r.status !== 'ok')).toEqual([expect.objectContaining({ server_id: bad.id, status: 'failed' })]);
    // A journal whose run never finished a target: not_run.
    const cut = join(dir, 'cut.jsonl');
    writeFileSync(cut, `${readFileSync(join(dir, 'shard-1.jsonl'), 'utf8').split('\n')[0]}\n`);
    const partial = await gshOn(['fleet', 'report', cut], dir);
    expect(partial.exitCode).toBe(11);
    expect(partial.stderr).toMatch(/10 servers: 0 ok, 0 failed, 0 interrupted, 10 did not run/);
    // Not a journal: a usage error.
    writeFileSync(join(dir, 'junk.jsonl'), '{"a":1}\n{"b":2}\n');
    const junk = await gshOn(['fleet', 'report', join(dir, 'junk.jsonl')], dir);
    expect(junk.exitCode).toBe(2);
    expect(junk.stderr).toMatch(/junk\.jsonl:1: not a gsh journal line/);
  });

  it('--resume checks its journal before any request: missing, or of another command (exit 2)', async () => {
    const dir = scratch();
    const mark = sb.log.length;
    const missing = await gshOn(['power', 'start', '--all-servers', '--resume', join(dir, 'none.jsonl')], dir);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(/--resume .*none\.jsonl: no such file/);
    const other = join(dir, 'other.jsonl');
    writeFileSync(other, `${JSON.stringify({ journal: 1, kind: 'run', at: new Date().toISOString(), command: 'gsh power stop --all-servers', targets: [] })}\n`);
    const wrong = await gshOn(['power', 'start', '--all-servers', '--resume', other], dir);
    expect(wrong.exitCode).toBe(2);
    expect(wrong.stderr).toMatch(/the journal is of another command: gsh power stop --all-servers/);
    const noDir = await gshOn(['power', 'start', '--all-servers', '--journal', join(dir, 'no', 'such', 'j.jsonl')], dir);
    expect(noDir.exitCode).toBe(2);
    expect(sb.log.slice(mark)).toEqual([]);
  });
});

describe('an interrupted fleet names what failed before it (issue 50 item 8)', () => {
  it('Ctrl-C after one server failed with ad_required: the summary names it with its exit code, code and what to do; -o json lists every target', async () => {
    const four = names.slice(0, 4);
    setState(four, 'offline');
    const ad = t.sandbox.state.servers.get(idOf(four[0]!))!;
    ad.adRequired = true;
    const ctx = testContext({ env: runEnv(t.env()) });
    let posts = 0;
    const off = t.sandbox.onRequest((e) => {
      if (e.method === 'POST' && e.path.endsWith('/power') && ++posts === 2) setImmediate(() => (ctx.signals as EventEmitter).emit('SIGINT'));
    });
    try {
      const r = await runGsh(['power', 'start', '-s', four.join(','), '--parallel', '1', '-o', 'json'], ctx).finally(off);
      expect(r.exitCode, r.stderr).toBe(130);
      const all = JSON.parse(r.stdout) as { server_id: string; ok: boolean; exit_code: number; action_url?: string }[];
      expect(all.map((x) => x.server_id).sort()).toEqual(four.map(idOf).sort());
      const failed = all.find((x) => x.server_id === ad.id)!;
      expect(failed).toMatchObject({ ok: false, exit_code: 7 });
      expect(r.stderr).toMatch(/Interrupted: 1 of 4 finished, 1 of them failed\./);
      expect(r.stderr).toContain(`Failed before the interrupt:\n  ${four[0]}: exit 7 (ad_required): `);
      expect(r.stderr).toContain(failed.action_url!);
    } finally {
      ad.adRequired = false;
    }
  });
});
