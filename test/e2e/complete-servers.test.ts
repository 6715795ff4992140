import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CACHE_FILE } from '../../src/commands/complete.js';
import type { Clock } from '../../src/core/run/context.js';
import { type E2E, gshInProcess, setup } from './helpers.js';

// `gsh __complete servers`: the server names behind `-s <TAB>` in bash, zsh and fish (the shells
// themselves: completion.test.ts). Hidden, one GET /servers, a minute's cache in the config dir
// (0600, keyed by base URL and credential, never holding it), silent and exit 0 on any failure,
// never a prompt, and bounded in time.

let t: E2E;
const dirs: string[] = [];
const freshDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'gsh-complete-'));
  dirs.push(d);
  return d;
};
beforeAll(async () => {
  t = await setup({ servers: 4 });
});
afterAll(async () => {
  await t.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const names = () => [...t.sandbox.state.servers.values()].map((s) => s.name).sort();
const listings = () => t.sandbox.log.filter((e) => e.method === 'GET' && e.path === '/servers').length;
/** The real clock moved on by `ms`. */
const later = (ms: number): Clock => ({ now: () => Date.now() + ms, sleep: (n) => new Promise((r) => setTimeout(r, n)) });

async function complete(configDir: string, extra: Record<string, string | undefined> = {}, clock?: Clock) {
  const r = await t.gsh(['__complete', 'servers'], { env: t.env({ GSH_CONFIG_DIR: configDir, ...extra }), ...(clock ? { clock } : {}) });
  expect(r.stderr).toBe('');
  expect(r.exitCode).toBe(0);
  return r.stdout.split('\n').filter(Boolean).sort();
}

describe('gsh __complete servers', () => {
  it('prints the server names, one per line', async () => {
    expect(await complete(freshDir())).toEqual(names());
  });

  it('answers from its cache for a minute (one request), then asks again', async () => {
    const dir = freshDir();
    const before = listings();
    expect(await complete(dir)).toEqual(names());
    expect(await complete(dir)).toEqual(names());
    expect(await complete(dir, {}, later(30_000))).toEqual(names());
    expect(listings() - before).toBe(1);
    expect(await complete(dir, {}, later(61_000))).toEqual(names());
    expect(listings() - before).toBe(2);
  });

  it('keeps the cache 0600, without the credential, and per base URL and credential', async () => {
    const dir = freshDir();
    await complete(dir);
    const file = join(dir, CACHE_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(t.sandbox.keys.all);
    expect(text).not.toContain(t.sandbox.baseUrl);
    const before = listings();
    await complete(dir, { GSH_API_KEY: t.sandbox.keys.readOnly });
    expect(listings() - before).toBe(1);
  });

  it('takes --profile and --base-url as typed on the line', async () => {
    const r = await t.gsh(['__complete', 'servers', '--base-url', t.sandbox.baseUrl], { env: t.env({ GSH_CONFIG_DIR: freshDir(), GSH_BASE_URL: undefined }) });
    expect(r.stdout.split('\n').filter(Boolean).sort()).toEqual(names());
    const missing = await t.gsh(['__complete', 'servers', '--profile', 'nope'], { env: t.env({ GSH_CONFIG_DIR: freshDir() }) });
    expect([missing.exitCode, missing.stdout, missing.stderr]).toEqual([0, '', '']);
  });

  it('is silent with exit 0 on any failure: no base URL, a refused key, nothing listening, a corrupt cache, an unknown kind', async () => {
    const dir = freshDir();
    expect(await complete(dir, { GSH_BASE_URL: undefined })).toEqual([]);
    expect(await complete(dir, { GSH_API_KEY: 'gsh_live_not_a_key' })).toEqual([]);
    expect(await complete(dir, { GSH_API_KEY: undefined })).toEqual([]);
    expect(await complete(dir, { GSH_BASE_URL: 'http://127.0.0.1:9/api/v2' })).toEqual([]);
    writeFileSync(join(dir, CACHE_FILE), '{"key": [');
    expect(await complete(dir)).toEqual(names());
    const other = await t.gsh(['__complete', 'widgets'], { env: t.env({ GSH_CONFIG_DIR: dir }) });
    expect([other.exitCode, other.stdout, other.stderr]).toEqual([0, '', '']);
    const before = listings();
    const dry = await t.gsh(['__complete', 'servers', '--dry-run'], { env: t.env({ GSH_CONFIG_DIR: freshDir() }) });
    expect([dry.exitCode, dry.stdout, dry.stderr, listings() - before]).toEqual([0, '', '', 0]);
  });

  it('gives up within its budget on a service that never answers, and never prompts', async () => {
    const sockets = new Set<import('node:net').Socket>();
    const silent: Server = createServer(() => {});
    silent.on('connection', (s) => sockets.add(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const base = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/api/v2`;
      const started = Date.now();
      const r = await gshInProcess(['__complete', 'servers'], { GSH_BASE_URL: base, GSH_API_KEY: 'k', GSH_CONFIG_DIR: freshDir() }, { tty: { stdin: true, stdout: true, stderr: true } });
      expect(Date.now() - started).toBeLessThan(5000);
      expect([r.exitCode, r.stdout, r.stderr]).toEqual([0, '', '']);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  });

  it('is hidden: not in the help or the reference', async () => {
    const help = await t.gsh(['--help']);
    expect(help.stdout).not.toContain('__complete');
    const reference = await t.gsh(['reference', '--json']);
    expect(reference.stdout).not.toContain('__complete');
  });
});

describe('gsh __complete servers --prefix (more than 100 servers)', () => {
  let many: E2E;
  beforeAll(async () => {
    many = await setup({ servers: 130 });
  });
  afterAll(async () => {
    await many.close();
  });
  const listed = () => many.sandbox.log.filter((e) => e.method === 'GET' && e.path === '/servers');

  it('asks the service with the typed word as its search, so a name past the first 100 completes; a longer word is served from the cache', async () => {
    const all = [...many.sandbox.state.servers.values()].map((s) => s.name).sort();
    const last = all.at(-1)!;
    const dir = freshDir();
    const ask = async (prefix: string) => {
      const r = await many.gsh(['__complete', 'servers', '--prefix', prefix], { env: many.env({ GSH_CONFIG_DIR: dir }) });
      expect([r.exitCode, r.stderr]).toEqual([0, '']);
      return r.stdout.split('\n').filter(Boolean);
    };
    const first = await ask('');
    expect(first.length).toBe(100);
    expect(first).not.toContain(last);
    const word = last.slice(0, 3);
    expect(await ask(word)).toContain(last);
    expect(listed().at(-1)!.query).toMatchObject({ search: word, limit: '100' });
    const requests = listed().length;
    // Every match of the shorter word was in its answer: the longer one needs no request.
    expect(await ask(last)).toEqual([last]);
    expect(listed().length).toBe(requests);
  });
});

describe('gsh __complete servers on a hostile service', () => {
  let hostile: E2E;
  beforeAll(async () => {
    hostile = await setup({ servers: 3, hostile: true });
  });
  afterAll(async () => {
    await hostile.close();
  });

  // Issue 51 item 1: a name that cannot be one safe word (control characters, a newline: the
  // hostile sandbox puts ESC, CR and LF in every name) is not offered.
  it('offers no name that holds a control character', async () => {
    const r = await hostile.gsh(['__complete', 'servers'], { env: hostile.env({ GSH_CONFIG_DIR: freshDir() }) });
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toBe('');
    expect(hostile.sandbox.log.some((e) => e.method === 'GET' && e.path === '/servers')).toBe(true);
  });
});
