import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerRecord } from '../../src/sandbox/index.js';
import { runGsh, testContext } from '../helpers/context.js';
import { idList, runEnv, setup, type E2E } from './helpers.js';

// `gsh config apply` through the fleet runner (README "Configuration as code" and "Rollouts"):
// one target per server the files manage, so waves, the failure budget, shards and journals hold
// there as on `power restart`, and every change still acts once (01-general-contract.md
// "Idempotency": each write has its own key). Writes to a suspended server answer 403
// server_suspended (01-general-contract.md "Errors"), which is how a server fails here.

let t: E2E;
let root: string;
let servers: ServerRecord[];
beforeAll(async () => {
  t = await setup({ servers: 8, clock: 'fast' });
  root = mkdtempSync(join(tmpdir(), 'gsh-config-rollouts-'));
  servers = [...t.sandbox.state.servers.values()].slice(0, 6);
  servers.forEach((s, i) => {
    s.application = 'minecraft';
    s.plan = 'paid';
    s.name = `roll-${i}`;
  });
});
afterAll(async () => {
  await t.close();
  rmSync(root, { recursive: true, force: true });
});

let files = 0;
/** A fleet file declaring `motd` and a description on every roll-* server: each apply of a new one writes two changes per server. */
function declare(motd: string): string {
  const file = join(root, `fleet-${++files}.yaml`);
  writeFileSync(file, `version: 1\nservers:\n  "roll-*":\n    properties:\n      motd: ${motd}\n    settings:\n      description: ${motd}\n`);
  return file;
}

const byId = (id: string) => servers.find((s) => s.id === id)!;
/** The servers a run's writes went to, in the order the service took them. */
const written = (from: number) => t.sandbox.log.slice(from).filter((e) => e.method !== 'GET').map((e) => e.path.split('/')[2]!);
/** The servers in the order apply takes them: the fleet line of a dry run (`name (id), …`). */
async function order(file: string): Promise<string[]> {
  const r = await t.gsh(['config', 'apply', file, '--dry-run', '--batch', '100%']);
  expect(r.exitCode, r.stderr).toBe(14);
  const line = /^then: run on \d+ servers, .*?: (.*)$/m.exec(r.stdout)![1]!;
  return [...line.matchAll(/\((\w[\w-]*)\)/g)].map((m) => m[1]!);
}

describe('the rollout flags on config apply', () => {
  it('are declared (the same help as every fleet command) and checked before any request: exit 2, nothing sent', async () => {
    const help = await t.gsh(['config', 'apply', '--help']);
    for (const flag of ['--fail-fast', '--batch <sizes>', '--pause <duration>', '--max-fail <n|p%>', '--shard <k/n>', '--rate-share <part>', '--journal <file>', '--resume <file>']) expect(help.stdout).toContain(flag);
    const file = declare('Checked');
    for (const flags of [['--batch', '0'], ['--shard', '3/2'], ['--max-fail', 'x'], ['--pause', '5s'], ['--fail-fast', '--max-fail', '1'], ['--resume', join(root, 'none.jsonl')]]) {
      const mark = t.sandbox.log.length;
      const r = await t.gsh(['config', 'apply', file, '--yes', ...flags]);
      expect(r.exitCode, `${flags.join(' ')}\n${r.stderr}`).toBe(2);
      expect(t.sandbox.log.slice(mark), flags.join(' ')).toEqual([]);
    }
  });

  it('--dry-run shows the waves by server, sized as asked, and sends no write', async () => {
    const file = declare('Dry waves');
    const ids = await order(file);
    const mark = t.sandbox.log.length;
    const r = await t.gsh(['config', 'apply', file, '--dry-run', '--batch', '1,50%', '--pause', '10s', '--max-fail', '1']);
    expect(r.exitCode, r.stderr).toBe(14);
    expect(written(mark)).toEqual([]);
    const label = (id: string) => `${byId(id).name} (${id})`;
    expect(r.stdout).toContain(`then: run on 6 servers, 4 at a time, starting none once more than 1 failed: `);
    expect(r.stdout).toContain(`then: wave 1 of 3 (1 server): ${label(ids[0]!)}\n`);
    expect(r.stdout).toContain(`then: wave 2 of 3 (3 servers, after wave 1 has finished, 10 s apart): ${ids.slice(1, 4).map(label).join(', ')}\n`);
    expect(r.stdout).toContain(`then: wave 3 of 3 (2 servers, after wave 2 has finished, 10 s apart): ${ids.slice(4).map(label).join(', ')}`);
  });
});

describe('waves (--batch) on config apply', () => {
  it('--batch 1,50%: every write of a wave was answered before the next wave\'s first write arrived; each change written once', async () => {
    const file = declare('In waves');
    const ids = await order(file);
    const waves = [ids.slice(0, 1), ids.slice(1, 4), ids.slice(4)];
    // For each request answered: the last request that had arrived by then (the log is in arrival order).
    const answeredWhen = new Map<number, number>();
    const off = t.sandbox.onRequest((e) => void answeredWhen.set(e.seq, t.sandbox.log.at(-1)!.seq));
    const mark = t.sandbox.log.length;
    try {
      const r = await t.gsh(['config', 'apply', file, '--yes', '--batch', '1,50%', '--parallel', '8', '-o', 'json']);
      expect(r.exitCode, r.stderr).toBe(0);
      const rows = JSON.parse(r.stdout) as { status: string }[];
      expect(rows).toHaveLength(12);
      expect(rows.every((x) => x.status === 'applied')).toBe(true);
    } finally {
      off();
    }
    const writes = t.sandbox.log.slice(mark).filter((e) => e.method !== 'GET').map((e) => ({ seq: e.seq, id: e.path.split('/')[2]! }));
    expect(writes.map((w) => w.id).sort()).toEqual(ids.flatMap((id) => [id, id]).sort());
    for (const [k, wave] of waves.entries()) {
      const first = Math.min(...writes.filter((w) => wave.includes(w.id)).map((w) => w.seq));
      for (const earlier of writes.filter((w) => waves.slice(0, k).flat().includes(w.id))) {
        expect(answeredWhen.get(earlier.seq), `${byId(earlier.id).name}'s write answered before wave ${k + 1} began`).toBeLessThan(first);
      }
    }
  });
});

describe('the failure budget (--max-fail) on config apply', () => {
  it('--max-fail 1 with two failing servers: no server is written after the second failure, exit 11, and the printed line applies exactly the rest', async () => {
    const file = declare('Budgeted');
    const ids = await order(file);
    const bad = ids.slice(0, 2).map(byId);
    for (const s of bad) s.suspended = true;
    let rest: string;
    try {
      const mark = t.sandbox.log.length;
      const r = await t.gsh(['config', 'apply', file, '--yes', '--parallel', '1', '--max-fail', '1', '-o', 'json']);
      expect(r.exitCode, r.stderr).toBe(11);
      // Only the two failing servers were sent a write (each its first, which failed; the second went on).
      expect([...new Set(written(mark))]).toEqual(bad.map((s) => s.id));
      const rows = JSON.parse(r.stdout) as { server_id: string; status: string; idempotency_key: string | null }[];
      const left = ids.slice(2);
      for (const id of left) expect(rows.filter((x) => x.server_id === id).map((x) => x.status)).toEqual(['not_started', 'not_started']);
      for (const s of bad) expect(rows.filter((x) => x.server_id === s.id).every((x) => x.status === 'failed')).toBe(true);
      expect(r.stderr).toMatch(/2 failed, more than --max-fail 1 allows: not started on /);
      const line = /^ {2}(gsh .*)$/m.exec(r.stderr.slice(r.stderr.indexOf('not started on')))?.[1];
      expect(line).toBe(`gsh config apply ${file} --yes --parallel 1 --max-fail 1 -o json -s ${idList(left)}`);
      rest = line!;
    } finally {
      for (const s of bad) s.suspended = false;
    }
    // The line, run: exactly the rest written, two changes each.
    const mark = t.sandbox.log.length;
    const again = await t.gsh(rest.split(' ').slice(1));
    expect(again.exitCode, again.stderr).toBe(0);
    expect(written(mark).sort()).toEqual(ids.slice(2).flatMap((id) => [id, id]).sort());
  });

  it('--fail-fast: the first failed server stops the run (a server that cannot be read counts as failed)', async () => {
    const file = declare('Fail fast');
    const ids = await order(file);
    const unreadable = byId(ids[0]!);
    unreadable.nodeUnreachable = true;
    try {
      const mark = t.sandbox.log.length;
      const r = await t.gsh(['config', 'apply', file, '--yes', '--parallel', '1', '--fail-fast', '-o', 'json']);
      expect(r.exitCode, r.stderr).toBe(11);
      expect(written(mark)).toEqual([]);
      expect(r.stderr).toMatch(/1 failed, more than --fail-fast \(--max-fail 0\) allows: not started on /);
      const rows = JSON.parse(r.stdout) as { server_id: string; status: string }[];
      expect(rows.filter((x) => x.status === 'not_started').map((x) => x.server_id)).toEqual(ids.slice(1).flatMap((id) => [id, id]));
    } finally {
      unreadable.nodeUnreachable = false;
    }
  });
});

describe('a saved plan through the fleet (apply --plan)', () => {
  it('--fail-fast stops after the first failed server; the rest line (-s narrows the plan) makes exactly the plan\'s writes on the rest', async () => {
    const file = declare('Planned');
    const plan = join(root, 'plan.json');
    const diff = await t.gsh(['config', 'diff', file, '--out', plan]);
    expect(diff.exitCode, diff.stderr).toBe(14);
    const ids = await order(file);
    const bad = byId(ids[0]!);
    bad.suspended = true;
    let rest: string;
    try {
      const mark = t.sandbox.log.length;
      const r = await t.gsh(['config', 'apply', '--plan', plan, '--yes', '--parallel', '1', '--fail-fast']);
      expect(r.exitCode, r.stderr).toBe(11);
      expect([...new Set(written(mark))]).toEqual([bad.id]);
      rest = /^ {2}(gsh .*)$/m.exec(r.stderr.slice(r.stderr.indexOf('not started on')))![1]!;
      expect(rest).toBe(`gsh config apply --plan ${plan} --yes --parallel 1 --fail-fast -s ${idList(ids.slice(1))}`);
    } finally {
      bad.suspended = false;
    }
    const mark = t.sandbox.log.length;
    const again = await t.gsh(rest.split(' ').slice(1));
    expect(again.exitCode, again.stderr).toBe(0);
    expect(written(mark).sort()).toEqual(ids.slice(1).flatMap((id) => [id, id]).sort());
  });
});

describe('shards (--shard K/N) on config apply', () => {
  it('1/2 and 2/2 write disjoint halves of the managed servers that together are all of them, with half the rate limit each', async () => {
    const file = declare('Sharded');
    const dry = await t.gsh(['config', 'apply', file, '--shard', '1/2', '--dry-run']);
    expect(dry.stdout).toMatch(/then: run on 3 servers \(shard 1\/2\), 4 at a time, using 50% of the key's rate limit: /);
    const halves: string[][] = [];
    for (const k of [1, 2]) {
      const mark = t.sandbox.log.length;
      const r = await t.gsh(['config', 'apply', file, '--yes', '--shard', `${k}/2`]);
      expect(r.exitCode, r.stderr).toBe(0);
      // Only the shard's servers are read too.
      const read = new Set(t.sandbox.log.slice(mark).filter((e) => e.method === 'GET' && e.path !== '/servers').map((e) => e.path.split('/')[2]!));
      halves.push([...new Set(written(mark))].sort());
      expect([...read].sort()).toEqual(halves[k - 1]);
    }
    expect(halves.map((h) => h.length)).toEqual([3, 3]);
    expect([...halves[0]!, ...halves[1]!].sort()).toEqual(servers.map((s) => s.id).sort());
  });
});

describe('journals (--journal, --resume) on config apply', () => {
  const lines = (file: string) => readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

  it('a failed server journaled as failed is the only one --resume reads and writes; fleet report then counts every server ok', async () => {
    const file = declare('Journaled');
    const journal = join(root, 'apply.jsonl');
    const bad = servers[3]!;
    bad.suspended = true;
    try {
      const r = await t.gsh(['config', 'apply', file, '--yes', '--journal', journal]);
      expect(r.exitCode, r.stderr).toBe(11);
    } finally {
      bad.suspended = false;
    }
    const j = lines(journal);
    expect(j[0]).toMatchObject({ kind: 'run', command: `gsh config apply ${file}` });
    expect((j[0]!.targets as unknown[]).length).toBe(6);
    expect(j.slice(1).filter((l) => !l.ok).map((l) => l.server_id)).toEqual([bad.id]);
    const mark = t.sandbox.log.length;
    const resumed = await t.gsh(['config', 'apply', file, '--yes', '--resume', journal, '-o', 'json']);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/--resume .*apply\.jsonl: 5 of 6 done already/);
    // Only the failed server is read (besides the listing) and written.
    expect(t.sandbox.log.slice(mark).filter((e) => e.path !== '/servers').every((e) => e.path.split('/')[2] === bad.id)).toBe(true);
    expect(written(mark)).toEqual([bad.id, bad.id]);
    // Resumed again: every server is done, so none is read; nothing to apply.
    const mark2 = t.sandbox.log.length;
    const done = await t.gsh(['config', 'apply', file, '--yes', '--resume', journal]);
    expect(done.exitCode, done.stderr).toBe(0);
    expect(done.stderr).toMatch(/6 of 6 done already/);
    expect(t.sandbox.log.slice(mark2).map((e) => e.path)).toEqual(['/servers']);
    const report = await t.gsh(['fleet', 'report', journal, '-o', 'json']);
    expect(report.exitCode, report.stderr).toBe(0);
    expect(report.stderr).toContain('6 servers: 6 ok, 0 failed, 0 interrupted, 0 did not run');
  });

  it('interrupted after its third write and resumed from its journal: every change acts exactly once', async () => {
    const file = declare('Interrupted');
    const journal = join(root, 'cut.jsonl');
    const ctx = testContext({ env: runEnv(t.env()) });
    let writes = 0;
    const off = t.sandbox.onRequest((e) => {
      if (e.method !== 'GET' && ++writes === 3) setImmediate(() => (ctx.signals as EventEmitter).emit('SIGINT'));
    });
    const mark = t.sandbox.effects.length;
    try {
      const first = await runGsh(['config', 'apply', file, '--yes', '--parallel', '1', '--journal', journal, '-o', 'json'], ctx);
      expect(first.exitCode, first.stderr).toBe(130);
      const rows = JSON.parse(first.stdout) as { status: string }[];
      expect(rows).toHaveLength(12);
      expect(rows.filter((x) => x.status === 'not_started').length).toBeGreaterThan(0);
      expect(first.stderr).toMatch(/Run the servers not started( or not finished)? with:\n {2}gsh config apply /);
    } finally {
      off();
    }
    const resumed = await t.gsh(['config', 'apply', file, '--yes', '--parallel', '1', '--resume', journal]);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    // Two writes per server over both runs, none twice.
    const acted = t.sandbox.effects.slice(mark).map((e) => `${e.method} ${e.path}`).sort();
    expect(acted).toEqual(servers.flatMap((s) => [`PATCH /servers/${s.id}/settings`, `PUT /servers/${s.id}/properties`]).sort());
    const diff = await t.gsh(['config', 'diff', file]);
    expect(diff.exitCode, diff.stderr).toBe(0);
  });
});
