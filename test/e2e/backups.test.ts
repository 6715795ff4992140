import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type E2E, setup, STRICT } from './helpers.js';
import { needing, skipTitle } from '../helpers/tools.js';

// Backups followed to the end, then taken off the machine (document 3, "Operation families that
// are only named": Backups; "Players": migrate apply wants "a completed backup_id", 409 "backup
// incomplete"). The contract shows no backup fields or states: gsh follows what the answer
// carries (a status word, else completed_at), as core/fleet/wait.ts backupState documents; a record with
// neither cannot say, and the wait stops at once (exit 12). The sandbox's backups take 4 s scaled
// by its time scale. In the strict pass (GSH_TEST_SANDBOX=strict) the records show no progress
// field and name their id `id`: the tests that need a finished backup follow it in the default
// mode only, and "a server that shows no progress" runs in both passes on a strict sandbox of its own.

let t: E2E;
let dir: string;
let S: string;
beforeAll(async () => {
  t = await setup({ servers: 2, clock: 'fast' });
  dir = mkdtempSync(join(tmpdir(), 'gsh-backups-'));
  S = [...t.sandbox.state.servers.values()].find((s) => s.application === 'minecraft')?.id ?? [...t.sandbox.state.servers.keys()][0]!;
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

const json = (r: { stdout: unknown }) => JSON.parse(String(r.stdout));
const tar = needing('tar', 'tar');
/** Tests of a backup that finishes: registered in the default pass only (strict records show no progress; their case is below). */
const withProgress: typeof describe = STRICT ? (Object.assign(() => undefined, { skipIf: () => () => undefined }) as unknown as typeof describe) : describe;

withProgress('backups create --wait (follows the backup until it has finished)', () => {
  it('returns the finished backup, having polled it', async () => {
    const mark = t.sandbox.log.length;
    const r = await t.gsh(['backups', 'create', '-s', S, '-f', 'name=before-update', '--wait', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const b = json(r);
    expect(b).toMatchObject({ name: 'before-update', is_successful: true });
    expect(b.completed_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(b.bytes).toBeGreaterThan(0);
    const polls = t.sandbox.log.slice(mark).filter((e) => e.method === 'GET' && e.path === `/servers/${S}/backups/${b.id}`);
    expect(b.status).toBe('completed');
    expect(polls.length).toBeGreaterThanOrEqual(2);
  });

  it('without --wait returns at once (202) and names the gsh wait line that follows it', async () => {
    const r = await t.gsh(['backups', 'create', '-s', S, '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const b = json(r);
    expect(b.completed_at).toBeUndefined();
    expect(r.stderr).toBe(`Follow it: gsh wait backup ${b.id} -s ${S}`);
    const waited = await t.gsh(['wait', 'backup', b.id, '-s', S, '--json']);
    expect(waited.exitCode, waited.stderr).toBe(0);
    expect(json(waited).completed_at).toBeDefined();
  });

  it('an unfinished backup: its download is 409 (exit 6); gsh wait backup runs out of --timeout with exit 10 and the line that resumes it', async () => {
    // A sandbox at full time (the backup takes 4 s of real time) and gsh on a fast clock.
    const slow = await setup({ servers: 1, timeScale: 1, clock: 0.05 });
    try {
      const id = [...slow.sandbox.state.servers.keys()][0]!;
      const b = json(await slow.gsh(['backups', 'create', '-s', id, '--json']));
      // Not finished yet: the service refuses to hand out its archive (409, exit 6).
      const early = await slow.gsh(['backups', 'download', b.id, '-s', id, '--to', '-']);
      expect(early.exitCode).toBe(6);
      expect(early.stderr).toContain('has not finished yet');
      const r = await slow.gsh(['wait', 'backup', b.id, '-s', id, '--timeout', '3s']);
      expect(r.exitCode).toBe(10);
      expect(r.stderr).toContain(`gsh wait backup ${b.id} -s ${id}`);
    } finally {
      await slow.close();
    }
  });

  it('--dry-run says what it will follow', async () => {
    const r = await t.gsh(['backups', 'create', '-s', S, '--wait', '--dry-run']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('follow the backup (/servers/{server_id}/backups/{backup_uuid}) until its answer says it finished');
  });
});

withProgress.skipIf(tar.missing)(skipTitle('back up, wait, download, verify (the README "Backups" script)', tar.missing, 'tar not installed'), () => {
  it('the archive holds the server files as they were when the backup was made', async () => {
    const b = json(await t.gsh(['backups', 'create', '-s', S, '-f', 'name=nightly', '--wait', '--json']));
    const piped = await t.gsh(['backups', 'download', b.id, '-s', S, '--to', '-']);
    expect(piped.exitCode, piped.stderr).toBe(0);
    expect(piped.stdoutBytes.length).toBe(b.bytes);
    const names = spawnSync('tar', ['tz'], { input: piped.stdoutBytes }).stdout.toString().trim().split('\n');
    expect(names).toEqual(expect.arrayContaining(['server.properties', 'eula.txt', 'world/level.dat', 'plugins/EssentialsX.jar']));
    const eula = spawnSync('tar', ['xzO', 'eula.txt'], { input: piped.stdoutBytes }).stdout.toString();
    expect(eula).toBe('eula=false\n');

    const saved = await t.gsh(['backups', 'download', b.id, '-s', S, '--to', dir]);
    expect(saved.exitCode, saved.stderr).toBe(0);
    expect(readdirSync(dir)).toEqual([`backup-${b.id}.tar.gz`]);
    expect(readFileSync(join(dir, `backup-${b.id}.tar.gz`)).equals(piped.stdoutBytes)).toBe(true);
  });
});

describe('a server whose backup records show no progress (a strict sandbox, in both passes)', () => {
  let strict: E2E;
  let id: string;
  beforeAll(async () => {
    strict = await setup({ servers: 1, strict: true, clock: 'fast' });
    id = [...strict.sandbox.state.servers.keys()][0]!;
  });
  afterAll(async () => {
    await strict.close();
  });

  it('create --wait stops after the first read with exit 12, says what the record holds and how to check by hand, and invents no state', async () => {
    const mark = strict.sandbox.log.length;
    const r = await strict.gsh(['backups', 'create', '-s', id, '-f', 'name=nightly', '--wait', '-q']);
    expect(r.exitCode, r.stderr).toBe(12);
    expect(r.stdout).toBe('');
    const backupId = /backups\/([\w-]+)/.exec(r.stderr)?.[1];
    expect(r.stderr).toContain('cannot tell when backup ends');
    expect(r.stderr).toMatch(/its record holds object, id, name, is_locked, created_at, and none of status, state or completed_at/);
    expect(r.stderr).toContain(`gsh api /servers/${id}/backups/${backupId}`);
    expect(r.stderr).not.toMatch(/in progress/i);
    const polls = strict.sandbox.log.slice(mark).filter((e) => e.method === 'GET' && e.route === '/servers/{server_id}/backups/{backup_uuid}');
    expect(polls.length).toBe(1);
  });

  // Issue 46 item 7: a forward line only where it can succeed. Where the records show no field
  // that says when a backup ends (01-general-contract.md "Field lists … backups: not shown"), a
  // `gsh wait backup` would stop with exit 12 again, so neither "Resume with" nor "Follow it"
  // names it; the line printed instead (the download, refused with 409 while the backup is made,
  // retried) is run here as printed, in a directory of its own, and ends with the archive saved.
  it('create (with and without --wait): every forward line it prints runs to exit 0', async () => {
    for (const argv of [['backups', 'create', '-s', id, '--wait'], ['backups', 'create', '-s', id]]) {
      const r = await strict.gsh(argv);
      expect(r.exitCode, r.stderr).toBe(argv.includes('--wait') ? 12 : 0);
      expect(r.stderr).not.toMatch(/Resume with|Follow it|gsh wait backup/);
      const forward = [...r.stderr.matchAll(/^ {2}until (gsh [^;]+); do \[ \$\? -eq 6 \] \|\| break; sleep 20; done$/gm)].map((m) => m[1]!);
      expect(forward, r.stderr).toHaveLength(1);
      const words = forward[0]!.split(' ').slice(1);
      const here = process.cwd();
      const into = mkdtempSync(join(tmpdir(), 'gsh-forward-'));
      try {
        process.chdir(into);
        // The loop as printed: the download again while it answers exit 6 (the backup is being made).
        let code = 6;
        for (let tries = 0; code === 6 && tries < 100; tries++) {
          const d = await strict.gsh(words);
          code = d.exitCode;
          if (code === 6) await new Promise((done) => setTimeout(done, 20));
        }
        expect(code).toBe(0);
        expect(readdirSync(into)).toHaveLength(1);
      } finally {
        process.chdir(here);
        rmSync(into, { recursive: true, force: true });
      }
    }
  });

  it('-q prints the id the service named `id`; an empty or null id is a usage error before anything is sent', async () => {
    const created = await strict.gsh(['backups', 'create', '-s', id, '-q']);
    expect(created.exitCode, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^[0-9a-f-]{36}$/);
    // What the old README script got from `--jq .uuid` here.
    expect((await strict.gsh(['backups', 'create', '-s', id, '--jq', '.uuid'])).stdout).toBe('null');
    const mark = strict.sandbox.log.length;
    for (const bad of ['null', '', 'undefined', 'a/b']) {
      const r = await strict.gsh(['backups', 'download', bad, '-s', id, '--to', '-']);
      expect(r.exitCode, `${bad}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain('<backup-uuid>');
      const w = await strict.gsh(['wait', 'backup', bad, '-s', id]);
      expect(w.exitCode, `${bad}: ${w.stderr}`).toBe(2);
    }
    // Only the -s name lookups, if any: nothing under the backups.
    expect(strict.sandbox.log.slice(mark).filter((e) => e.path.includes('/backups'))).toEqual([]);
  });

  it('a server reference a script got as null or undefined is a usage error before anything is sent, -s or GSH_SERVER', async () => {
    const mark = strict.sandbox.log.length;
    for (const bad of ['null', 'undefined', ' ']) {
      for (const argv of [['backups', 'create', '-s', bad], ['servers', 'get', bad], ['power', 'restart', '-s', `${id},${bad}`]]) {
        const r = await strict.gsh(argv);
        expect(r.exitCode, `${argv.join(' ')}: ${r.stderr}`).toBe(2);
      }
      const viaEnv = await strict.gsh(['backups', 'list'], { env: { GSH_SERVER: bad } });
      expect(viaEnv.exitCode, viaEnv.stderr).toBe(2);
    }
    expect(strict.sandbox.log.slice(mark)).toEqual([]);
  });
});

// Issue 46: the same on several servers ("Many servers at once"). Each server's backup gets its own
// download line, on stderr after the table (and in its --json entry as error.forward); each one is
// run as printed, in a directory of its own, and ends with that backup's archive saved.
describe('backups create --wait on several servers whose backup records show no progress (strict sandbox, both passes)', () => {
  let strict: E2E;
  let ids: string[];
  beforeAll(async () => {
    strict = await setup({ servers: 3, strict: true, clock: 'fast' });
    ids = [...strict.sandbox.state.servers.keys()];
  });
  afterAll(async () => {
    await strict.close();
  });

  /** Runs the loop `line` prints the way a shell would: the download again while it exits 6. */
  async function runLoop(line: string): Promise<string[]> {
    const m = /^until (gsh [^;]+); do \[ \$\? -eq 6 \] \|\| break; sleep 20; done$/.exec(line);
    expect(m, line).not.toBeNull();
    const words = m![1]!.split(' ').slice(1);
    const here = process.cwd();
    const into = mkdtempSync(join(tmpdir(), 'gsh-forward-'));
    try {
      process.chdir(into);
      let code = 6;
      for (let tries = 0; code === 6 && tries < 100; tries++) {
        const d = await strict.gsh(words);
        code = d.exitCode;
        if (code === 6) await new Promise((done) => setTimeout(done, 20));
      }
      expect(code, line).toBe(0);
      return readdirSync(into);
    } finally {
      process.chdir(here);
      rmSync(into, { recursive: true, force: true });
    }
  }

  it('table and --json: one download line per server on stderr, no gsh wait line, and every line runs to exit 0', async () => {
    for (const extra of [[], ['--json']]) {
      const r = await strict.gsh(['backups', 'create', '-s', ids.join(','), '--wait', ...extra]);
      expect(r.exitCode, r.stderr).toBe(11);
      expect(r.stderr).not.toMatch(/Resume with|resume with|Follow it|gsh wait backup/);
      const forward = [...r.stderr.matchAll(/^ {2}(until gsh backups download .+)$/gm)].map((m) => m[1]!);
      expect(forward, r.stderr).toHaveLength(ids.length);
      // One line per server, each naming its own server and a backup of its own.
      expect(forward.map((l) => /-s (\S+)/.exec(l)?.[1]).sort()).toEqual([...ids].sort());
      expect(new Set(forward.map((l) => /download (\S+)/.exec(l)?.[1])).size).toBe(ids.length);
      if (extra.length) {
        const entries = json(r) as { server_id: string; error: { forward?: string; exit_code: number; step?: string } }[];
        expect(entries.map((e) => [e.error.exit_code, e.error.step])).toEqual(ids.map(() => [12, 'wait']));
        expect(entries.map((e) => `${e.error.forward}`).sort()).toEqual([...forward].sort());
      }
      for (const line of forward) {
        const saved = await runLoop(line);
        expect(saved).toEqual([`backup-${/download (\S+)/.exec(line)![1]}.tar.gz`]);
      }
    }
  });
});
