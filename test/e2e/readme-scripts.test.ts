import { execa } from 'execa';
import { createHmac } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/core/context.js';
import { virtualClock } from '../helpers/context.js';
import { readmeBlocks } from '../helpers/examples.js';
import { needing } from '../helpers/tools.js';
import { type E2E, ensureRunning, gshInProcess, setup } from './helpers.js';

// Issue 37 item 2: the README's scripts run as written, with sh, against a sandbox that serves
// only what the contract shows (strict mode: no backup state, ids named `id`). Each `gsh` in a
// script is a small program on PATH that hands its argv, standard input and GSH_* environment
// to this process, which runs the command in-process (run(argv, ctx)) on a virtual clock, so a
// countdown of minutes passes at once, and hands back its output and exit code. `sleep N` in a
// script lasts 50 ms. The scripts are read from the README itself, so an edit to one is tested.

let t: E2E;
let dir: string;
let bridge: Server;
let clock: Clock;

/** The README's block that starts with `first`, as the reader copies it. */
function script(first: RegExp): string {
  const block = readmeBlocks().find((b) => b.lang === 'sh' && first.test(b.text));
  if (!block) throw new Error(`no README script matching ${first}`);
  return block.text;
}

beforeAll(async () => {
  t = await setup({ strict: true, servers: 8 });
  // Three game servers, named as the scripts name them; the demo's others are removed.
  const servers = [...t.sandbox.state.servers.values()].filter((s) => !s.stored && s.application === 'minecraft').slice(0, 3);
  for (const s of [...t.sandbox.state.servers.values()]) if (!servers.includes(s)) t.sandbox.state.servers.delete(s.id);
  for (const [i, s] of servers.entries()) {
    s.name = i === 0 ? 'lobby' : `lobby-${i}`;
    await ensureRunning(t.sandbox, s);
  }
  dir = mkdtempSync(join(tmpdir(), 'gsh-scripts-'));
  // The scripts' relative paths (backups/, restart.jsonl) are read by gsh in this process.
  process.chdir(dir);
  clock = virtualClock();
  bridge = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const call = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { argv: string[]; stdin: string; env: Record<string, string> };
      gshInProcess(call.argv, { ...t.env(), ...call.env }, { input: Buffer.from(call.stdin, 'base64'), clock }).then(
        (r) => res.end(JSON.stringify({ exitCode: r.exitCode, stdout: r.ctx.stdout.bytes().toString('base64'), stderr: r.ctx.stderr.bytes().toString('base64') })),
        (err: unknown) => res.end(JSON.stringify({ exitCode: 70, stdout: '', stderr: Buffer.from(`bridge: ${String(err)}\n`).toString('base64') })),
      );
    });
  });
  await new Promise<void>((resolve) => bridge.listen(0, '127.0.0.1', resolve));
  const bin = join(dir, 'bin');
  const shim = join(dir, 'gsh-shim.mjs');
  writeFileSync(shim, `import { request } from 'node:http';
const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('GSH_') && k !== 'GSH_TEST_BRIDGE'));
const req = request(process.env.GSH_TEST_BRIDGE, { method: 'POST' }, (res) => {
  const out = [];
  res.on('data', (c) => out.push(c));
  res.on('end', () => {
    const r = JSON.parse(Buffer.concat(out).toString('utf8'));
    process.stdout.write(Buffer.from(r.stdout, 'base64'));
    process.stderr.write(Buffer.from(r.stderr, 'base64'));
    process.exitCode = r.exitCode;
  });
});
req.end(JSON.stringify({ argv: process.argv.slice(2), stdin: Buffer.concat(chunks).toString('base64'), env }));
`);
  await execa('mkdir', ['-p', bin]);
  writeFileSync(join(bin, 'gsh'), `#!/bin/sh\nexec "${process.execPath}" "${shim}" "$@"\n`);
  writeFileSync(join(bin, 'sleep'), '#!/bin/sh\nexec /bin/sleep 0.05\n');
  chmodSync(join(bin, 'gsh'), 0o755);
  chmodSync(join(bin, 'sleep'), 0o755);
});

const previousCwd = process.cwd();
afterAll(async () => {
  process.chdir(previousCwd);
  await new Promise((resolve) => bridge?.close(resolve));
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `text` with sh in the scripts' directory, gsh and sleep on PATH as above. */
function sh(text: string, env: Record<string, string> = {}, input = '') {
  return execa('sh', ['-c', text], {
    cwd: dir,
    input,
    reject: false,
    stripFinalNewline: false,
    timeout: 120_000,
    env: {
      ...t.env(),
      PATH: `${join(dir, 'bin')}:${process.env.PATH}`,
      HOME: dir,
      GSH_TEST_BRIDGE: `http://127.0.0.1:${(bridge.address() as AddressInfo).port}/`,
      ...env,
    } as Record<string, string>,
    extendEnv: false,
  });
}

/** The servers `-s 'lobby-*'` names. */
const lobbies = () => [...t.sandbox.state.servers.values()].filter((s) => s.name.startsWith('lobby-'));

// The scripts call jq and tar as a reader's machine would.
const withTools = needing('the README scripts, against a contract-only sandbox', 'jq', 'tar');
describe.skipIf(withTools.missing)(withTools.title, () => {
  it('Backups: back up, wait on the download, verify, restore (exit 0, the archive saved)', async () => {
    const r = await sh(script(/^#!\/bin\/sh\n# nightly-backup\.sh/));
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/error/i);
    const day = new Date().toISOString().slice(0, 10);
    expect(existsSync(join(dir, `backups/lobby-${day}.tar.gz`))).toBe(true);
    // The script waited on the download, which was refused while the backup was being made.
    const downloads = t.sandbox.log.filter((e) => e.method === 'POST' && /\/backups\/[^/]+\/download$/.test(e.path));
    expect(downloads.at(-1)?.status).toBe(200);
    expect(t.sandbox.log.some((e) => /\/backups\/[^/]+\/restore$/.test(e.path) && e.status === 202)).toBe(true);
  });

  it('Trying it: `backups create --wait` on a contract-only service exits 12, as the README says', async () => {
    const line = readFileSync(new URL('../../README.md', import.meta.url), 'utf8').split('\n').find((l) => l.startsWith('gsh sandbox exec --strict -- sh -c'))!;
    const [, inner, said] = /sh -c '(.*)'\s+# (\d+):/.exec(line)!;
    const r = await sh(inner!.replace('survival', 'lobby'));
    expect(r.stdout).toBe(`exit ${said}\n`);
  });

  it('Maintenance: the nightly restart with a countdown and --ready (exit 0, every lobby ready)', async () => {
    const r = await sh(script(/^#!\/bin\/sh\n# 04:00: warn the players for 10 minutes/));
    expect(r.exitCode, r.stderr).toBe(0);
    const results = readFileSync(join(dir, 'restart.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { ok: boolean; server_name: string });
    expect(results.map((x) => x.server_name).sort()).toEqual(lobbies().map((s) => s.name).sort());
    expect(results.every((x) => x.ok)).toBe(true);
  });

  it('Waiting on many servers: the nightly restart, 8 at a time, then the lobbies not running (none)', async () => {
    const r = await sh(script(/^#!\/bin\/sh\n# 04:00: warn the players, restart every lobby 8 at a time/));
    expect(r.exitCode, r.stderr).toBe(0);
    // stdout: the announcement's result per lobby (console send), and no server that is not running.
    expect(r.stdout.trim().split('\n').map((l) => l.split('\t').slice(1, 3).join(' ')).sort()).toEqual(lobbies().map((s) => `${s.name} ok`).sort());
    expect(readFileSync(join(dir, 'restart.jsonl'), 'utf8').trim().split('\n')).toHaveLength(lobbies().length);
  });

  it('Webhooks: the CGI receiver accepts a signed delivery and refuses a changed one', async () => {
    const receiver = script(/^#!\/bin\/sh\n# hook\.cgi/);
    const body = '{"occurred_at":"2026-01-01T00:00:00Z","event":"server.started","server":{"id":"7a94c1e2"}}';
    const signature = `sha256=${createHmac('sha256', 'whsec_test').update(body).digest('hex')}`;
    const env = { GSH_WEBHOOK_SECRET: 'whsec_test', HTTP_X_SERVICE_SIGNATURE: signature, CONTENT_LENGTH: String(body.length) };
    const good = await sh(receiver, env, body);
    expect(good.stdout).toBe('Status: 204 No Content\r\n\r\n');
    expect(readFileSync(join(dir, 'gsh-events.log'), 'utf8')).toBe('2026-01-01T00:00:00Z server.started 7a94c1e2\n');
    const bad = await sh(receiver, env, body.replace('started', 'stopped'));
    expect(bad.stdout).toBe('Status: 401 Unauthorized\r\n\r\n');
  });
});
