import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GSH, type E2E, idList, setup } from './helpers.js';

// The few tests that need the built binary (bin/gsh.js → bin/dist/cli.cjs main() → run(argv,
// processContext())): every other e2e test runs gsh in-process. Each test says why it must be a
// subprocess. The pty tests are tty.test.ts and console-tty.test.ts.

let t: E2E;
let dir: string;
beforeAll(async () => {
  t = await setup({ servers: 3 });
  dir = mkdtempSync(join(tmpdir(), 'gsh-e2e-bin-'));
  writeFileSync(join(dir, 'ok.yaml'), '#service-init\nversion: 1\n');
  writeFileSync(join(dir, 'bad.yaml'), '#service-init\nversion: 1\nhooks:\n  - url: http://10.0.0.1/x\n    events: [server.started]\n');
  writeFileSync(join(dir, 'compose.yml'), 'services:\n  web: {image: nginx}\n');
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

describe('the launcher', () => {
  // Subprocess: bin/gsh.js sets process.exitCode from main(), and processContext() reads the
  // real process's env, stdin and stdout; only a real process shows that wiring.
  it("exits with run()'s code and reads the process's environment and stdin", async () => {
    const list = await t.gshProcess(['servers', 'list', '--json']);
    expect(list.exitCode, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toHaveLength(3);
    expect((await t.gshProcess(['servers', 'get', '-s', 'ffffffff'])).exitCode).toBe(5);
    const usage = await t.gshProcess(['servers', 'lst']);
    expect(usage.exitCode).toBe(2);
    expect(usage.stderr).toContain("unknown command 'lst'");
    const login = await t.gshProcess(['auth', 'login', '--profile', 'bin', '--base-url', t.sandbox.baseUrl], {
      env: { GSH_API_KEY: undefined, GSH_BASE_URL: undefined }, input: `${t.sandbox.keys.readOnly}\n`,
    });
    expect(login.exitCode, login.stderr).toBe(0);
  });

  // Subprocess: the bundle's jq reads its WebAssembly from bin/dist/jq.wasm, which the build moves
  // out of jq-wasm's factory; run from source, jq takes it from the factory (core/terminal/jq.ts wasmBytes).
  it('--jq runs on the WebAssembly module beside the bundle', async () => {
    const ids = await t.gshProcess(['servers', 'list', '--jq', '.[].id']);
    expect(ids.exitCode, ids.stderr).toBe(0);
    expect(ids.stdout.trim().split('\n')).toHaveLength(3);
    const bad = await t.gshProcess(['servers', 'list', '--jq', '.[']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--jq: syntax error');
  });

  // Subprocess: the fast path is in the launcher (bin/gsh.js), which answers before bin/dist/cli.cjs is loaded.
  it('--version and -V print the version from package.json and exit 0', async () => {
    for (const flag of ['--version', '-V']) {
      const r = await execa(process.execPath, [GSH, flag], { reject: false, env: {}, extendEnv: false });
      expect([r.exitCode, r.stdout, r.stderr]).toEqual([0, VERSION, '']);
    }
  });

  // Subprocess: EPIPE comes from a real pipe whose reader has gone (`gsh … | head`).
  it('stops quietly with exit 0 when the reader of stdout goes away', async () => {
    const script = `set -o pipefail; "${process.execPath}" "${GSH}" reference --json | head -c 16 >/dev/null`;
    const r = await execa('bash', ['-c', script], { reject: false, timeout: 30_000, env: t.env() as Record<string, string>, extendEnv: true });
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
  });

  // Subprocess: a full disk is a real file descriptor (`> /dev/full` answers ENOSPC).
  it('a write error on stdout is one line and exit 1, never a stack trace', async () => {
    const script = `"${process.execPath}" "${GSH}" reference --json > /dev/full`;
    const r = await execa('bash', ['-c', script], { reject: false, timeout: 30_000, env: t.env() as Record<string, string>, extendEnv: true });
    expect([r.exitCode, r.stderr]).toEqual([1, 'gsh: cannot write to standard output: ENOSPC']);
  });
});

describe('the code cache', () => {
  // Subprocess: V8 reads a code cache only in a process that has not compiled the source yet.
  const cacheState = (cache: string) => {
    const files = readdirSync(join(cache, `code-${process.version}-${process.arch}`)).sort();
    return Object.fromEntries(files.map((f) => [f, statSync(join(cache, `code-${process.version}-${process.arch}`, f)).mtimeMs]));
  };

  it('is written by the first run and accepted whole by the next, which writes nothing; both print the same', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'gsh-e2e-cache-'));
    try {
      // An upload (`files put`: a streamed request body) loads undici, which changes V8's flags
      // halfway: its chunks are cached on both sides of the change. servers list sends through
      // node:http, and a download with no proxy on a connection of its own (direct-body.ts): no change.
      const server = [...t.sandbox.state.servers.values()][0]!.id;
      for (const args of [['--help'], ['servers', 'list', '--json'], ['api', '/servers', '--to', '-'], ['files', 'put', join(dir, 'ok.yaml'), '-s', server, '--dir', '/'], ['init', 'lint', join(dir, 'ok.yaml')]]) {
        const first = await t.gshProcess(args, { env: { GSH_CACHE_DIR: cache } });
        const written = cacheState(cache);
        const second = await t.gshProcess(args, { env: { GSH_CACHE_DIR: cache } });
        expect([second.exitCode, second.stdout, second.stderr]).toEqual([first.exitCode, first.stdout, first.stderr]);
        expect(first.exitCode, first.stderr).toBe(0);
        // A rejected cache would have been compiled again and rewritten.
        expect(cacheState(cache), args.join(' ')).toEqual(written);
      }
      const names = Object.keys(cacheState(cache));
      expect(names.some((n) => n.endsWith('.default')) && names.some((n) => n.endsWith('.liftoffonly'))).toBe(true);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });

  it('the start pack is written again by the first run of each other kind of command, holding what both compiled', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'gsh-e2e-cache-'));
    const build = readFileSync(new URL('../../bin/dist/build-id', import.meta.url), 'latin1').trim();
    const pack = join(cache, `code-${process.version}-${process.arch}`, `${build}-start.cjs.default`);
    const head = () => readFileSync(pack, 'latin1').split('\n')[0]!.split('\t')[1];
    try {
      expect((await t.gshProcess(['servers', '--help'], { env: { GSH_CACHE_DIR: cache } })).exitCode).toBe(0);
      expect(head()).toBe('help');
      const helpOnly = statSync(pack).size;
      expect((await t.gshProcess(['servers', 'list', '--json'], { env: { GSH_CACHE_DIR: cache } })).exitCode).toBe(0);
      expect(head()).toBe('help,servers');
      // servers list compiles functions of the pack that a help never runs.
      expect(statSync(pack).size).toBeGreaterThan(helpOnly);
      const written = cacheState(cache);
      // Another servers run rewrites none of them (-o yaml only adds the caches of its own chunks).
      expect((await t.gshProcess(['servers', 'list', '-o', 'yaml'], { env: { GSH_CACHE_DIR: cache } })).exitCode).toBe(0);
      expect(cacheState(cache)).toMatchObject(written);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });

  it('NODE_DISABLE_COMPILE_CACHE writes none; a cache directory that cannot be made changes nothing', async () => {
    const root = mkdtempSync(join(tmpdir(), 'gsh-e2e-cache-'));
    try {
      const off = await t.gshProcess(['--help'], { env: { GSH_CACHE_DIR: join(root, 'off'), NODE_DISABLE_COMPILE_CACHE: '1' } });
      expect(off.exitCode).toBe(0);
      expect(readdirSync(root)).toEqual([]);
      writeFileSync(join(root, 'file'), 'not a directory');
      const blocked = await t.gshProcess(['--help'], { env: { GSH_CACHE_DIR: join(root, 'file') } });
      expect([blocked.exitCode, blocked.stdout, blocked.stderr]).toEqual([0, off.stdout, '']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('signals', () => {
  // Subprocess: SIGTERM and SIGINT sent to a real process reach the run through processContext().
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`sandbox start serves until ${signal}, then stops and exits 0`, async () => {
      const proc = execa(process.execPath, [GSH, 'sandbox', 'start', '--quiet', '--servers', '1'], { reject: false, timeout: 30_000 });
      try {
        const baseUrl = await new Promise<string>((resolve, reject) => {
          let seen = '';
          proc.stdout!.on('data', (c: Buffer) => {
            seen += c.toString();
            const m = /listening on (\S+)/.exec(seen);
            if (m) resolve(m[1]!);
          });
          proc.once('exit', () => reject(new Error(`exited before listening: ${seen}`)));
        });
        expect((await fetch(`${baseUrl}/health`)).status).toBe(200);
        proc.kill(signal);
        const r = await proc;
        expect(r.exitCode).toBe(0);
        expect(r.stderr).toContain('sandbox stopped');
      } finally {
        proc.kill('SIGKILL');
      }
    });
  }
});

describe('Ctrl-C and SIGTERM on a fleet', () => {
  // Subprocess: the signal must reach a real process, cancel its requests and pauses, and the
  // process must then end by itself (nothing left holding it) with its output whole.
  // Two moments of the waits: a poll on the wire, and the pause between polls (issue 36: the
  // pause's interrupt once escaped as `internal error: interrupted`, exit 1, nothing on stdout).
  for (const [signal, code, moment] of [['SIGINT', 130, 'poll'], ['SIGTERM', 143, 'pause']] as const) {
    it(`${signal} during a ${moment}: exit ${code}, -o json lists every target, stderr resumes the wait and names those not started`, async () => {
      const servers = [...t.sandbox.state.servers.values()];
      for (const s of servers) {
        for (const cancel of s.timers) cancel();
        s.timers.clear();
        s.state = 'running';
      }
      const mark = t.sandbox.log.length;
      t.sandbox.setFaults({ latencyMs: 300 });
      const proc = execa(process.execPath, [GSH, 'power', 'restart', '--all-servers', '--wait', '--parallel', '1', '-o', 'json'], {
        reject: false, timeout: 30_000, env: t.env(), extendEnv: true,
      });
      try {
        // Interrupted once the first restart is accepted and the waits have begun polling (the
        // list with statuses: a fleet's waits are read together, core/fleet/status-poller.ts).
        await new Promise<void>((resolve) => {
          const timer = setInterval(() => {
            const poll = t.sandbox.log.slice(mark).find((e) => e.method === 'GET' && e.path === '/servers' && e.query.include === 'status');
            // The pause: the poll answered, the next one a second or more away.
            if (poll && (moment === 'poll' || poll.status !== null)) {
              clearInterval(timer);
              setTimeout(resolve, moment === 'poll' ? 0 : 100);
            }
          }, 10);
        });
        proc.kill(signal);
        const r = await proc;
        expect(r.exitCode, r.stderr).toBe(code);
        const entries = JSON.parse(r.stdout) as { server_id: string; ok: boolean; interrupted?: true; not_started?: true; error: Record<string, unknown> }[];
        expect(entries.map((e) => e.server_id).sort()).toEqual(servers.map((s) => s.id).sort());
        // A server whose restart was accepted frees its --parallel slot while it waits, so the next
        // one may be under way when the signal comes: every entry says what its change did.
        const waiting = entries.filter((e) => e.interrupted && e.error.step === 'wait');
        expect(waiting.length).toBeGreaterThanOrEqual(1);
        for (const e of waiting) expect(e.error).toMatchObject({ exit_code: code, outcome: 'applied' });
        for (const e of entries.filter((x) => x.interrupted && x.error.step !== 'wait')) expect(['applied', 'unknown', 'not_applied']).toContain(e.error.outcome);
        const notStarted = entries.filter((e) => e.not_started);
        for (const e of notStarted) expect(e.error.outcome).toBe('not_applied');
        expect(entries.every((e) => e.interrupted || e.not_started || e.ok)).toBe(true);
        expect(r.stderr).toContain(`gsh wait -s ${idList(waiting.map((e) => e.server_id))} --for running`);
        if (notStarted.length) expect(r.stderr).toMatch(/Not started: /);
      } finally {
        t.sandbox.setFaults({ latencyMs: 0 });
        proc.kill('SIGKILL');
      }
    });
  }
});

describe('the pre-commit hook (.pre-commit-hooks.yaml)', () => {
  const [hook] = parse(readFileSync(new URL('../../.pre-commit-hooks.yaml', import.meta.url), 'utf8')) as {
    id: string; entry: string; args: string[]; language: string; files: string;
  }[];

  it('is gsh-init-lint, a node hook running gsh init lint on YAML files', () => {
    expect(hook).toMatchObject({ id: 'gsh-init-lint', entry: 'gsh init lint', language: 'node' });
    const files = new RegExp(hook!.files);
    expect(['a.yaml', 'dir/b.yml', 'nested/dir/c.yaml'].every((f) => files.test(f))).toBe(true);
    expect(['a.json', 'yaml.md', 'a.yaml.bak'].some((f) => files.test(f))).toBe(false);
  });

  // Subprocess: pre-commit runs the `gsh` launcher (its entry) in the repository, with `args`
  // and the staged files matching `files`, named relative to that working directory.
  async function commit(staged: string[]) {
    const files = staged.filter((f) => new RegExp(hook!.files).test(f));
    return execa(process.execPath, [GSH, ...hook!.entry.split(' ').slice(1), ...hook!.args, ...files], {
      cwd: dir, reject: false, timeout: 30_000, env: { NO_COLOR: '1', FORCE_COLOR: undefined }, extendEnv: true, stdin: 'ignore',
    });
  }

  it('passes a commit of a valid manifest next to other YAML', async () => {
    const r = await commit(['ok.yaml', 'compose.yml', 'README.md']);
    expect([r.exitCode, r.stdout]).toEqual([0, '']);
  });

  it('fails a commit of an invalid manifest and says where', async () => {
    const r = await commit(['ok.yaml', 'bad.yaml', 'compose.yml']);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain('bad.yaml:4:10: error:');
  });
});
