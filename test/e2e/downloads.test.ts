import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type E2E, runEnv, setup } from './helpers.js';
import { testContext } from '../helpers/context.js';
import { run } from '../../src/program.js';
import { needing, skipTitle } from '../helpers/tools.js';

// Answers that are short-lived signed URLs, followed to the bytes (03-endpoints-part-b.md "File
// transfers": files download; "Worlds": worlds download, "a signed short-lived URL of a
// compressed archive built on demand"; "Operation families that are only named": backups and
// database backups name a `download` action). One download path: --to FILE (atomic), DIR (named
// by Content-Disposition), - (stdout); --clobber; a cut transfer retried, exit 9 after retries
// with no file left; the URL's signature never printed by --debug or in an error.

let t: E2E;
let dir: string;
let S: string;
beforeAll(async () => {
  t = await setup({ servers: 3, clock: 'fast' });
  dir = mkdtempSync(join(tmpdir(), 'gsh-downloads-'));
  S = [...t.sandbox.state.servers.values()].find((s) => s.application === 'minecraft')?.id ?? [...t.sandbox.state.servers.keys()][0]!;
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

const json = (r: { stdout: unknown }) => JSON.parse(String(r.stdout));
/** A fresh empty directory for one test. */
const fresh = (name: string) => {
  const d = join(dir, name);
  mkdirSync(d);
  return d;
};
const since = (n: number) => t.sandbox.log.slice(n).filter((e) => !e.path.startsWith('/servers?') && e.path !== '/servers').map((e) => `${e.method} ${e.path.replace(S, 'S')} ${e.status}${e.fault ? ` ${e.fault}` : ''}`);
const tar = needing('tar lists what was downloaded', 'tar');
const list = (bytes: Buffer) => spawnSync('tar', ['tz'], { input: bytes }).stdout.toString().trim().split('\n');

describe('worlds download (03 "Worlds": a signed URL of a compressed archive)', () => {
  it('without --to prints the URL and its expiry; on a terminal a hint names --to', async () => {
    const r = await t.gsh(['worlds', 'download', '-s', S, '-f', 'world=world', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const data = json(r);
    expect(data.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/__node\/archive\?/);
    expect(data.expires_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(r.stderr).toBe('');
    const tty = await t.gsh(['worlds', 'download', '-s', S, '-f', 'world=world'], { tty: { stdout: true, stderr: true, columns: 120 } });
    expect(tty.exitCode).toBe(0);
    expect(tty.stdout).toContain('expires_at');
    expect(tty.stderr).toMatch(/Download it: add --to FILE, --to DIR\/ or --to - \(stdout\); the URL expires at \d{4}-/);
  });

  it.skipIf(tar.missing)(skipTitle('--to FILE writes the archive whole (size checked), through a temporary file', tar.missing, 'tar not installed'), async () => {
    const d = fresh('file');
    const out = join(d, 'world.tar.gz');
    const mark = t.sandbox.log.length;
    const r = await t.gsh(['worlds', 'download', '-s', S, '-f', 'world=world', '--to', out]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    const bytes = readFileSync(out);
    expect(r.stderr).toBe(`Saved ${bytes.length} bytes to ${out}`);
    expect(list(bytes)).toEqual(['world/level.dat']);
    expect(readdirSync(d)).toEqual(['world.tar.gz']);
    expect(since(mark)).toEqual(['POST /servers/S/worlds/download 200', 'GET /__node/archive 200']);
    const get = t.sandbox.log.slice(mark).find((e) => e.path === '/__node/archive')!;
    expect(get.keyId).toBeUndefined();
  });

  it('--to DIR names the file from Content-Disposition; an existing one needs --clobber', async () => {
    const d = fresh('dir');
    const first = await t.gsh(['worlds', 'download', '-s', S, '-f', 'world=world', '--to', d]);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(readdirSync(d)).toEqual(['world.tar.gz']);
    writeFileSync(join(d, 'world.tar.gz'), 'mine');
    const again = await t.gsh(['worlds', 'download', '-s', S, '-f', 'world=world', '--to', `${d}/`]);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain(`${join(d, 'world.tar.gz')} exists; nothing downloaded`);
    expect(again.stderr).toContain('--clobber');
    expect(readFileSync(join(d, 'world.tar.gz'), 'utf8')).toBe('mine');
    expect(readdirSync(d)).toEqual(['world.tar.gz']);
    const clobber = await t.gsh(['worlds', 'download', '-s', S, '-f', 'world=world', '--to', d, '--clobber']);
    expect(clobber.exitCode, clobber.stderr).toBe(0);
    expect(readFileSync(join(d, 'world.tar.gz')).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
  });

  it('an existing FILE is not overwritten without --clobber: exit 2 before any request (as gh release download)', async () => {
    const d = fresh('clobber');
    const out = join(d, 'w.tar.gz');
    writeFileSync(out, 'keep me');
    const mark = t.sandbox.log.length;
    const r = await t.gsh(['worlds', 'download', '-s', S, '-f', 'world=world', '--to', out]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`--to ${out}: the file exists`);
    expect(r.stderr).toContain('Add --clobber to replace it');
    expect(since(mark)).toEqual([]);
    expect(readFileSync(out, 'utf8')).toBe('keep me');
    const ok = await t.gsh(['worlds', 'download', '-s', S, '-f', 'world=world', '--to', out, '--clobber']);
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(readFileSync(out).length).toBeGreaterThan(100);
  });

  it('--to into a directory that does not exist is exit 2 before any request', async () => {
    const mark = t.sandbox.log.length;
    const r = await t.gsh(['worlds', 'download', '-s', S, '-f', 'world=world', '--to', join(dir, 'nope', 'w.tar.gz')]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('does not exist');
    expect(since(mark)).toEqual([]);
  });

  it('--dry-run shows the download step; the signed URL is a placeholder', async () => {
    const mark = t.sandbox.log.length;
    const r = await t.gsh(['worlds', 'download', '-s', S, '-f', 'world=world', '--to', join(dir, 'dry.tar.gz'), '--dry-run']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain(`POST ${t.sandbox.baseUrl}/servers/${S}/worlds/download`);
    expect(r.stdout).toContain('GET https://signed-url.invalid/(from-the-first-answer)');
    expect(r.stdout).toContain(`stream the bytes to ${join(dir, 'dry.tar.gz')} (through a temporary file, renamed at the end)`);
    expect(since(mark)).toEqual([]);
  });

  it('a bad world name is the service\'s 400, nothing written', async () => {
    const d = fresh('bad');
    const r = await t.gsh(['worlds', 'download', '-s', S, '-f', 'world=../etc', '--to', d]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('bad_request');
    expect(readdirSync(d)).toEqual([]);
  });
});

describe('a transfer cut halfway', () => {
  it('is retried: the second attempt writes the file whole', async () => {
    const d = fresh('cut-once');
    const out = join(d, 'w.tar.gz');
    t.sandbox.inject({ kind: 'cut', path: '/__node/archive' });
    const mark = t.sandbox.log.length;
    const r = await t.gsh(['worlds', 'download', '-s', S, '-f', 'world=world', '--to', out]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(since(mark)).toEqual(['POST /servers/S/worlds/download 200', 'GET /__node/archive 200 cut', 'GET /__node/archive 200']);
    expect(readdirSync(d)).toEqual(['w.tar.gz']);
    expect(statSync(out).size).toBe(json(await t.gsh(['worlds', 'download', '-s', S, '-f', 'world=world', '--json'])).size);
  });

  it('leaves no file (and no temporary file) and exits 9 after its retries; the signature is not printed', async () => {
    const d = fresh('cut');
    const out = join(d, 'w.tar.gz');
    t.sandbox.inject({ kind: 'cut', path: '/__node/archive', count: 3 });
    const mark = t.sandbox.log.length;
    const r = await t.gsh(['worlds', 'download', '-s', S, '-f', 'world=world', '--to', out, '--retries', '2', '--debug']);
    expect(r.exitCode).toBe(9);
    expect(since(mark).filter((l) => l.includes('archive'))).toEqual(['GET /__node/archive 200 cut', 'GET /__node/archive 200 cut', 'GET /__node/archive 200 cut']);
    expect(readdirSync(d)).toEqual([]);
    const last = r.stderr.trim().split('\n').filter((l) => l.startsWith('error:'));
    expect(last).toEqual([expect.stringMatching(/^error: could not download from http:\/\/127\.0\.0\.1:\d+\/__node\/archive: /)]);
    expect(r.stderr).toContain('signature=[redacted]');
    expect(r.stderr).not.toMatch(/signature=[0-9a-f]{16}/);
    expect(r.stderr).toContain('retry 2/2');
    // The signed URL's answer arrived whole: the download is the step that failed, and the replay
    // (the same line with the request's key) gets that URL back to download again.
    expect(r.stderr).not.toContain('did not arrive whole');
    expect(r.stderr).toMatch(/The change was applied \(Idempotency-Key [^)]+\); the download did not finish\./);
    expect(r.stderr).toMatch(/Resume with:\n {2}gsh worlds download .*--idempotency-key /);
  });

  it('to stdout, bytes already written are not repeated: exit 9 at once, saying the output is incomplete', async () => {
    t.sandbox.inject({ kind: 'cut', path: '/__node/archive' });
    const mark = t.sandbox.log.length;
    const r = await t.gsh(['worlds', 'download', '-s', S, '-f', 'world=world', '--to', '-']);
    expect(r.exitCode).toBe(9);
    expect(r.stderr).toContain('already written to standard output; the output is incomplete');
    expect(since(mark).filter((l) => l.includes('archive'))).toEqual(['GET /__node/archive 200 cut']);
  });

  it('files get goes the same way (one download path): cut once, retried, byte for byte', async () => {
    const d = fresh('files-cut');
    const out = join(d, 'server.properties');
    t.sandbox.inject({ kind: 'cut', path: '/__node/download' });
    const mark = t.sandbox.log.length;
    const r = await t.gsh(['files', 'get', '/server.properties', '-s', S, '--to', d]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(since(mark)).toEqual(['POST /servers/S/files/download 200', 'GET /__node/download 200 cut', 'GET /__node/download 200']);
    const direct = await t.gsh(['files', 'get', '/server.properties', '-s', S]);
    expect(readFileSync(out).equals(direct.stdoutBytes)).toBe(true);
    const again = await t.gsh(['files', 'get', '/server.properties', '-s', S, '--to', out]);
    expect(again.exitCode).toBe(2);
    expect((await t.gsh(['files', 'get', '/server.properties', '-s', S, '--to', out, '--clobber'])).exitCode).toBe(0);
  });
});

describe('interrupted', () => {
  it('Ctrl-C mid-transfer exits 130 and removes the temporary file: nothing saved', async () => {
    t.sandbox.families.setArchiveFillerBytes(200 * 1024 * 1024);
    try {
      const d = fresh('interrupt');
      const ctx = testContext({ env: runEnv(t.env()) });
      const running = run(['worlds', 'download', '-s', S, '-f', 'world=world', '--to', join(d, 'w.tar.gz')], ctx);
      // SIGINT once the temporary file exists, that is, while bytes are arriving.
      for (let i = 0; i < 4000 && !readdirSync(d).some((f) => f.endsWith('.part')); i++) await new Promise((r) => setTimeout(r, 2));
      expect(readdirSync(d)).toEqual([expect.stringMatching(/^\.w\.tar\.gz\.gsh-[0-9a-f]{12}\.part$/)]);
      ctx.signals.emit('SIGINT');
      expect(await running).toBe(130);
      expect(ctx.stderr.text()).toContain('interrupted: the download stopped and nothing was saved');
      expect(ctx.stderr.text()).not.toContain('the interrupt came before its answer was read');
      expect(ctx.stderr.text()).toContain('the download did not finish');
      expect(readdirSync(d)).toEqual([]);
      expect(ctx.signals.listenerCount('SIGINT')).toBe(0);
    } finally {
      t.sandbox.families.setArchiveFillerBytes(0);
    }
  });
});

describe('progress and pipes', () => {
  it('draws size, rate and time left on a terminal stderr, nothing when piped', async () => {
    t.sandbox.families.setArchiveFillerBytes(3 * 1024 * 1024);
    try {
      const d = fresh('progress');
      const tty = await t.gsh(['worlds', 'download', '-s', S, '-f', 'world=world', '--to', join(d, 'a.tar.gz')], { tty: { stderr: true, columns: 100 } });
      expect(tty.exitCode, tty.stderr).toBe(0);
      expect(tty.stderr).toMatch(/100% {2}3\.0 MiB \/ 3\.0 MiB {2}[\d.]+ [KMG]?i?B\/s {2}0 s left/);
      expect(tty.stderr).toContain('\r\x1b[K');
      const piped = await t.gsh(['worlds', 'download', '-s', S, '-f', 'world=world', '--to', join(d, 'b.tar.gz')]);
      expect(piped.stderr).toBe(`Saved ${statSync(join(d, 'b.tar.gz')).size} bytes to ${join(d, 'b.tar.gz')}`);
    } finally {
      t.sandbox.families.setArchiveFillerBytes(0);
    }
  });

  it.skipIf(tar.missing)(skipTitle('--to - writes the bytes to stdout (| tar tz works)', tar.missing, 'tar not installed'), async () => {
    const r = await t.gsh(['worlds', 'download', '-s', S, '-f', 'world=world', '--to', '-']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(list(r.stdoutBytes)).toEqual(['world/level.dat']);
  });

  it('files download (the generated command) takes --to as files get does', async () => {
    const r = await t.gsh(['files', 'download', '-s', S, '-f', 'file=/eula.txt', '--to', '-']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('eula=false');
    const d = fresh('files-download');
    const saved = await t.gsh(['files', 'download', '-s', S, '-f', 'file=/eula.txt', '--to', d]);
    expect(saved.exitCode, saved.stderr).toBe(0);
    expect(readFileSync(join(d, 'eula.txt'), 'utf8')).toBe('eula=false\n');
  });

  it('--to takes one server: several are exit 2 before any request', async () => {
    const ids = [...t.sandbox.state.servers.keys()].slice(0, 2);
    const mark = t.sandbox.log.length;
    const r = await t.gsh(['worlds', 'download', '-s', ids.join(','), '-f', 'world=world', '--to', dir]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--to downloads from one server');
    expect(t.sandbox.log.length).toBe(mark);
  });
});

describe('database backups download ("Database backups": a download action)', () => {
  it.skipIf(tar.missing)(skipTitle('downloads the backup archive of a database', tar.missing, 'tar not installed'), async () => {
    const db = json(await t.gsh(['databases', 'create', '-s', S, '-f', 'name=game', '--json'])).id as string;
    const backup = json(await t.gsh(['databases', 'backups', 'create', '-s', S, db, '--json'])).id as string;
    const r = await t.gsh(['databases', 'backups', 'download', '-s', S, db, backup, '--to', '-']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(list(r.stdoutBytes)).toEqual(['dump.sql']);
    const missing = await t.gsh(['databases', 'backups', 'download', '-s', S, db, 'nope', '--to', '-']);
    expect(missing.exitCode).toBe(5);
  });
});
