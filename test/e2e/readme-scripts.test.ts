import { execa } from 'execa';
import { createHmac } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fastClock } from '../helpers/context.js';
import { readmeBlocks } from '../helpers/examples.js';
import { needing } from '../helpers/tools.js';
import { type E2E, ensureRunning, gshInProcess, setup } from './helpers.js';

// Issue 37 item 2: the README's scripts run as written, with sh, against a sandbox that serves
// only what the contract shows (strict mode: no backup state, ids named `id`). Each `gsh` in a
// script is a small program on PATH that hands its argv, standard input and GSH_* environment
// to this process, which runs the command in-process (run(argv, ctx)) on a fast clock (SCALE), so
// a countdown of minutes passes in seconds, and hands back its output and exit code. `sleep N` in
// a script lasts 50 ms, and a sandbox a script starts (`gsh sandbox exec`) runs at the same SCALE. The scripts are read from the README itself, so an edit to one is tested.

let t: E2E;
let dir: string;
let bridge: Server;
/**
 * The sandbox's simulated delays and gsh's pauses both last this fraction of their length, so the
 * two keep the same time: the Maintenance countdown of 10 minutes takes 3 s.
 */
const SCALE = 0.005;

/** The README's block that starts with `first`, as the reader copies it. */
function script(first: RegExp): string {
  const block = readmeBlocks().find((b) => b.lang === 'sh' && first.test(b.text));
  if (!block) throw new Error(`no README script matching ${first}`);
  return block.text;
}

beforeAll(async () => {
  t = await setup({ strict: true, servers: 8, timeScale: SCALE });
  // Three game servers, named as the scripts name them; the demo's others are removed.
  const servers = [...t.sandbox.state.servers.values()].filter((s) => !s.stored && s.application === 'minecraft').slice(0, 3);
  for (const s of [...t.sandbox.state.servers.values()]) if (!servers.includes(s)) t.sandbox.state.servers.delete(s.id);
  for (const [i, s] of servers.entries()) {
    s.name = i === 0 ? 'lobby' : `lobby-${i}`;
    // A paid fleet, as the nightly restart assumes: a free-plan restart needs a person's ad view,
    // so an announced one is refused before any say (README "Maintenance").
    s.plan = 'paid';
    await ensureRunning(t.sandbox, s);
  }
  dir = mkdtempSync(join(tmpdir(), 'gsh-scripts-'));
  // The scripts' relative paths (backups/, restart.jsonl) are read by gsh in this process.
  process.chdir(dir);
  bridge = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const call = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { argv: string[]; stdin: string; env: Record<string, string> };
      // A sandbox a line starts (`gsh sandbox exec`) keeps the same time as the clock.
      const argv = call.argv[0] === 'sandbox' && call.argv[1] === 'exec' && !call.argv.includes('--time-scale') ? ['sandbox', 'exec', '--time-scale', String(SCALE), ...call.argv.slice(2)] : call.argv;
      gshInProcess(argv, { ...t.env(), ...call.env }, { input: Buffer.from(call.stdin, 'base64'), clock: fastClock(SCALE) }).then(
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
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('GSH_') || k === 'PATH'));
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
    // The backup reads as unfinished for three downloads after it finished (the sandbox answers 409
    // `conflict` while `completed_at` is unset; 01-general-contract.md "Errors": "conflicts with current
    // resource state"), so the script's waiting loop runs whatever the timing.
    const lobby = [...t.sandbox.state.servers.values()].find((x) => x.name === 'lobby')!;
    const backups = t.sandbox.extensions.context.state.generic.collection(`/servers/${lobby.id}/backups`);
    const stop = t.sandbox.onRequest((e) => {
      if (e.method !== 'POST' || e.path !== `/servers/${lobby.id}/backups`) return;
      for (const record of backups.values()) {
        if (Object.getOwnPropertyDescriptor(record, 'completed_at')?.get) continue;
        let completedAt: unknown = record.completed_at;
        let refusals = 0;
        Object.defineProperty(record, 'completed_at', {
          get: () => (completedAt !== undefined && refusals++ < 3 ? undefined : completedAt),
          set: (v: unknown) => void (completedAt = v),
          enumerable: true,
          configurable: true,
        });
      }
    });
    const mark = t.sandbox.log.length;
    try {
      const r = await sh(script(/^#!\/bin\/sh\n# nightly-backup\.sh/));
      expect(r.exitCode, r.stderr).toBe(0);
      // stderr: the 202's note alone (the refused downloads' errors went to download.err). The
      // records show no state, so it names the download the script retries, not a `gsh wait
      // backup` that could only stop with exit 12 (issue 46 item 7).
      expect(r.stderr).toMatch(/^Its record shows no status, state or completed_at, so gsh cannot follow it\. .*\n {2}until gsh backups download \S+ -s \S+ --to \.\/; do \[ \$\? -eq 6 \] \|\| break; sleep 20; done\n$/);
    } finally {
      stop();
    }
    const day = new Date().toISOString().slice(0, 10);
    expect(existsSync(join(dir, `backups/lobby-${day}.tar.gz`))).toBe(true);
    // The script waited on the download: refused (409) until the backup had finished, then saved.
    const downloads = t.sandbox.log.slice(mark).filter((e) => e.method === 'POST' && /\/backups\/[^/]+\/download$/.test(e.path)).map((e) => e.status);
    expect(downloads.slice(-4)).toEqual([409, 409, 409, 200]);
    expect(t.sandbox.log.slice(mark).some((e) => /\/backups\/[^/]+\/restore$/.test(e.path) && e.status === 202)).toBe(true);
  });

  it('Trying it: every `gsh sandbox exec` line of the README and of `sandbox exec --help` runs (a sandbox of its own each)', async () => {
    // The help page's `sh nightly-backup.sh` is the README's backup script; the README's `lobby`
    // is a server of any sandbox: its first server is renamed.
    writeFileSync(join(dir, 'nightly-backup.sh'), script(/^#!\/bin\/sh\n# nightly-backup\.sh/).replaceAll('-s lobby', '-s "$(gsh servers list -q | head -n1)"'));
    const help = (await gshInProcess(['sandbox', 'exec', '--help'], t.env())).stdout;
    const lines = [...readmeBlocks().filter((b) => b.lang === 'sh').flatMap((b) => b.text.split('\n')), ...help.split('\n').map((l) => l.trim())]
      .filter((l) => l.startsWith('gsh sandbox exec ') && !l.includes('npm run e2e'));
    expect(lines.length).toBeGreaterThanOrEqual(5);
    for (const line of lines) {
      rmSync(join(dir, 'backups'), { recursive: true, force: true }); // what the Backups script saved before
      const r = await sh(line);
      expect(r.exitCode, `${line}\n${r.stderr}`).toBe(0);
      // A line whose comment names an exit code prints it (`echo "exit $?"`): the contract-only sandbox cannot tell when a backup ends.
      const said = /echo "exit \$\?"'\s+# (\d+):/.exec(line)?.[1];
      if (said) expect(r.stdout).toBe(`exit ${said}\n`);
    }
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
