import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../../src/core/wire/http.js';
import { staticCredential } from '../../../src/core/auth/credentials.js';
import { fileBudget, sharedBudget } from '../../../src/core/run/shared-budget.js';
import { allowedFailures, parseMaxFail } from '../../../src/core/fleet/failure-budget.js';
import { rolloutOf } from '../../../src/core/fleet/rollout.js';
import { parseRateShare, parseShard, shardOf } from '../../../src/core/fleet/shards.js';
import { parseBatch, splitWaves, waveLengths } from '../../../src/core/fleet/waves.js';

// The rollout's pure parts (core/fleet/waves.ts, failure-budget.ts, shards.ts, rollout.ts) and
// the client's share of a key's per-minute budget (01-general-contract.md "Limits").

describe('waves', () => {
  it('counts and percentages of the whole selection, the last size repeating (Ansible serial)', () => {
    expect(waveLengths(parseBatch('1,50%'), 5)).toEqual([1, 2, 2]);
    expect(waveLengths(parseBatch('1,10%,50%'), 20)).toEqual([1, 2, 10, 7]);
    expect(waveLengths(parseBatch('3'), 7)).toEqual([3, 3, 1]);
    expect(waveLengths(parseBatch('1%'), 3)).toEqual([1, 1, 1]); // at least one server a wave
    expect(waveLengths(undefined, 4)).toEqual([4]);
    expect(waveLengths(parseBatch('2'), 0)).toEqual([]);
    expect(splitWaves(['a', 'b', 'c', 'd'], parseBatch('1,2'))).toEqual([['a'], ['b', 'c'], ['d']]);
  });
  it('refuses 0, fractions of a server and percentages outside (0, 100]', () => {
    for (const bad of ['0', '1.5', '0%', '101%', '', '1,', 'x', '-1']) expect(() => parseBatch(bad), bad).toThrow(/--batch takes/);
  });
});

describe('the failure budget', () => {
  it('N servers or P% of the selection, rounded down', () => {
    expect(allowedFailures(parseMaxFail('2'), 10)).toBe(2);
    expect(allowedFailures(parseMaxFail('25%'), 10)).toBe(2);
    expect(allowedFailures(parseMaxFail('0'), 10)).toBe(0);
    for (const bad of ['x', '-1', '1.5', '101%']) expect(() => parseMaxFail(bad), bad).toThrow(/--max-fail takes/);
    expect(rolloutOf({ failFast: true }).maxFail).toEqual({ count: 0 });
  });
});

describe('shards', () => {
  const ids = Array.from({ length: 23 }, (_, i) => ({ id: `s${((i * 7919) % 1000).toString(16).padStart(4, '0')}` }));
  const shuffled = (seed: number) => [...ids].sort((a, b) => ((a.id.charCodeAt(2) * seed) % 13) - ((b.id.charCodeAt(2) * seed) % 13) || (a.id < b.id ? -1 : 1));
  it('N disjoint slices covering the selection, sizes within one, the same for any order of the selection', () => {
    for (const n of [1, 2, 3, 5, 23, 30]) {
      const slices = Array.from({ length: n }, (_, k) => shardOf(ids, { k: k + 1, n }).map((t) => t.id));
      expect(slices.flat().sort()).toEqual(ids.map((t) => t.id).sort());
      const sizes = slices.map((s) => s.length);
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
      for (const seed of [3, 5, 11]) {
        expect(Array.from({ length: n }, (_, k) => shardOf(shuffled(seed), { k: k + 1, n }).map((t) => t.id).sort())).toEqual(slices.map((s) => [...s].sort()));
      }
    }
  });
  it('keeps the selection\'s order within a slice', () => {
    expect(shardOf([{ id: 'c' }, { id: 'a' }, { id: 'b' }, { id: 'd' }], { k: 1, n: 2 }).map((t) => t.id)).toEqual(['a', 'b']);
  });
  it('K/N with 1 <= K <= N; a rate share in (0, 1]; 1/N by default', () => {
    expect(parseShard('2/3')).toEqual({ k: 2, n: 3 });
    for (const bad of ['3/2', '0/2', '1/0', '1', 'a/b', '1/1001']) expect(() => parseShard(bad), bad).toThrow(/--shard takes K\/N/);
    expect(parseRateShare('1/4')).toBe(0.25);
    expect(parseRateShare('50%')).toBe(0.5);
    expect(parseRateShare('0.2')).toBe(0.2);
    for (const bad of ['0', '2', '150%', '3/2', 'x']) expect(() => parseRateShare(bad), bad).toThrow(/--rate-share takes/);
    expect(rolloutOf({ shard: '2/4' }).rateShare).toBe(0.25);
    expect(rolloutOf({ shard: '2/4', rateShare: '1/2' }).rateShare).toBe(0.5);
  });
});

describe("a client's share of the key's per-minute budget", () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

  it('--rate-share 1/2 of a 10/min key: at most 5 requests a window, the 6th waits for the next one, no 429', async () => {
    let now = Date.UTC(2026, 0, 1, 0, 0, 10);
    const windows = new Map<number, number>();
    const statuses: number[] = [];
    server = createServer((req, res) => {
      // Fixed one-minute windows, as the contract's per-key limit (and the sandbox) count them.
      const start = Math.floor(now / 60_000);
      const used = (windows.get(start) ?? 0) + 1;
      windows.set(start, used);
      const status = used > 10 ? 429 : 200;
      statuses.push(status);
      res.writeHead(status, { 'content-type': 'application/json', 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': String(Math.max(0, 10 - used)), 'x-ratelimit-reset': String((start + 1) * 60) });
      res.end(JSON.stringify(status === 200 ? { data: {} } : { error: { code: 'rate_limit_exceeded', message: 'slow' } }));
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const sleeps: number[] = [];
    const client = new ApiClient({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v2`, credential: staticCredential('k', 'test'),
      now: () => now, sleep: async (ms) => void (sleeps.push(ms), (now += ms)), retries: 0,
    });
    client.rateShare = 0.5;
    try {
      for (let i = 0; i < 12; i++) await client.request({ method: 'GET', path: '/servers' });
    } finally {
      await client.close();
    }
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect([...windows.values()]).toEqual([5, 5, 2]);
    expect(sleeps).toHaveLength(2);
  });
});

describe('one budget between processes (core/run/shared-budget.ts)', () => {
  let server: Server | undefined;
  const dirs: string[] = [];
  afterEach(async () => {
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  /** A service with fixed one-minute windows of `limit` whose answers come `lagMs` after it counted them. */
  async function service(limit: number, now: () => number, lagMs: number) {
    const windows = new Map<number, number>();
    const statuses: number[] = [];
    server = createServer((_req, res) => {
      const start = Math.floor(now() / 60_000);
      const used = (windows.get(start) ?? 0) + 1;
      windows.set(start, used);
      const status = used > limit ? 429 : 200;
      statuses.push(status);
      setTimeout(() => {
        res.writeHead(status, { 'content-type': 'application/json', 'x-ratelimit-limit': String(limit), 'x-ratelimit-remaining': String(Math.max(0, limit - used)), 'x-ratelimit-reset': String((start + 1) * 60), ...(status === 429 ? { 'retry-after': '1' } : {}) });
        res.end(JSON.stringify(status === 200 ? { data: {} } : { error: { code: 'rate_limit_exceeded', message: 'slow' } }));
      }, lagMs);
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v2`, statuses, windows };
  }

  /** Two clients (two processes' worth: nothing shared but the account file, when given), 8 requests at once each. */
  async function twoScripts(shared: boolean) {
    let now = Date.UTC(2026, 0, 1, 0, 0, 10);
    const svc = await service(10, () => now, 30);
    const dir = mkdtempSync(join(tmpdir(), 'gsh-budget-'));
    dirs.push(dir);
    // The account, counting the requests it let go.
    let granted = 0;
    const account = fileBudget(join(dir, 'account.json'));
    const counted = { take: (n: number) => account.take(n) || void granted++ || 0, seen: account.seen };
    const clients = [0, 1].map(() => new ApiClient({
      baseUrl: svc.base, credential: staticCredential('k', 'test'), retries: 0,
      // A pause ends when its time has come, once the requests let go before it have arrived:
      // time moves for the waiting, not under the requests already sent.
      now: () => now, sleep: async (ms) => {
        const due = now + ms;
        while (svc.statuses.length < granted) await new Promise((r) => setTimeout(r, 5));
        now = Math.max(now, due);
      },
      ...(shared ? { sharedBudget: counted } : {}),
    }));
    try {
      // Each learns the limit first, then both send 8 at once: 2 + 16 requests on a 10 a minute key.
      for (const c of clients) await c.request({ method: 'GET', path: '/servers' });
      const all = await Promise.allSettled(clients.flatMap((c) => Array.from({ length: 8 }, () => c.request({ method: 'GET', path: '/servers' }))));
      return { ...svc, rejected: all.filter((r) => r.status === 'rejected').length };
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  }

  it('two scripts at once on one key: without the account they collect 429s; with it, none, at most the limit a window', async () => {
    const alone = await twoScripts(false);
    expect(alone.statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    await new Promise<void>((r) => server!.close(() => r()));
    server = undefined;
    const together = await twoScripts(true);
    expect(together.statuses.filter((s) => s === 429)).toEqual([]);
    expect(together.rejected).toBe(0);
    expect(Math.max(...together.windows.values())).toBeLessThanOrEqual(10);
    expect([...together.windows.values()].reduce((a, b) => a + b, 0)).toBe(18);
  });

  it('a wait the account asks for, after this run has used whole windows of its own, names the account and the window, not a share nobody asked for', async () => {
    let now = Date.UTC(2026, 0, 1, 0, 0, 10);
    const svc = await service(3, () => now, 0);
    const lines: string[] = [];
    // The account lets three a minute go; this run alone sends them (share 1, no --rate-share).
    let taken = 0;
    const account = { take: () => (++taken % 4 === 0 ? 30_000 : 0), seen: () => {} };
    const client = new ApiClient({
      baseUrl: svc.base, credential: staticCredential('k', 'test'), retries: 0, sharedBudget: account,
      now: () => now, sleep: async (ms) => void (now += ms), notify: (line) => lines.push(line),
    });
    try {
      for (let i = 0; i < 7; i++) await client.request({ method: 'GET', path: '/servers' });
    } finally {
      await client.close();
    }
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(/^rate limit: (this minute's requests are taken by the gsh processes on this key \(this one included\)|all 3 requests of this minute are used); waiting \d+ s for the window to reset$/);
    expect(lines.join('\n')).not.toContain('share');
    expect(lines.join('\n')).toContain('gsh processes on this key');
  });

  it('the account is named by a hash of the base URL and the key, never the key', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsh-budget-'));
    dirs.push(dir);
    const budget = sharedBudget({ GSH_CONFIG_DIR: dir }, 'https://api.example.test/api/v2', 'gsh_live_secret_123');
    expect(budget).toBeDefined();
    budget!.take(Date.now());
    budget!.seen(60, 59, Math.ceil(Date.now() / 60_000) * 60);
    // One request and its answer: the account is not opened yet (a one-request run touches nothing).
    expect(existsSync(join(dir, 'rate'))).toBe(false);
    budget!.take(Date.now());
    const files = readdirSync(join(dir, 'rate'));
    expect(files).toEqual([expect.stringMatching(/^[0-9a-f]{32}\.json$/)]);
    expect(readFileSync(join(dir, 'rate', files[0]!), 'utf8')).not.toContain('secret');
    expect(JSON.parse(readFileSync(join(dir, 'rate', files[0]!), 'utf8'))).toMatchObject({ limit: 60, used: 2 });
  });

  it('the requests each process sent before it opened the account are added to it, not lost in the larger of two counts', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsh-budget-'));
    dirs.push(dir);
    const [a, b] = [0, 1].map(() => sharedBudget({ GSH_CONFIG_DIR: dir }, 'https://api.example.test/api/v2', 'gsh_live_secret_123')!);
    const now = Date.now();
    const reset = Math.ceil(now / 60_000) * 60;
    // Both send their first request before any answer, then each learns the limit from its own.
    a!.take(now);
    b!.take(now);
    a!.seen(60, 59, reset);
    b!.seen(60, 58, reset);
    // Each opens the account with its next request: four requests sent in all, four counted.
    a!.take(now);
    b!.take(now);
    const [file] = readdirSync(join(dir, 'rate')).filter((f) => f.endsWith('.json'));
    expect(JSON.parse(readFileSync(join(dir, 'rate', file!), 'utf8'))).toMatchObject({ limit: 60, reset, used: 4 });
  });
});
