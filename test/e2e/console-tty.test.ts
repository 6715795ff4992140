import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureRunning, GSH, setup, type E2E } from './helpers.js';

// `gsh console attach` under a real pseudo-terminal (issue 5, item 6), made by `script` from
// util-linux (present on Linux machines without installing anything): the prompt appears, a typed
// command is sent as `send command` (01-general-contract.md "Console socket") and its output is
// shown, and Ctrl-D detaches with exit 0 while the server keeps running.

let e: E2E;
beforeAll(async () => {
  e = await setup();
});
afterAll(async () => {
  await e.close();
});

/** `command` under a pseudo-terminal made by `script`; `screen` is everything it has drawn so far. */
function onTerminal(command: string, opts: { env?: Record<string, string | undefined>; timeout?: number } = {}) {
  const proc = execa('script', ['-qfec', command, '/dev/null'], {
    env: e.env({ TERM: 'xterm-256color', ...opts.env }), extendEnv: true, reject: false, timeout: opts.timeout ?? 30_000, stdin: 'pipe', buffer: false,
  });
  const term = {
    proc,
    screen: '',
    async waitFor(re: RegExp, ms = 15_000): Promise<void> {
      const end = Date.now() + ms;
      while (!re.test(term.screen)) {
        if (Date.now() > end) throw new Error(`terminal never showed ${re}: ${JSON.stringify(term.screen.slice(-800))}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
  };
  proc.stdout!.setEncoding('utf8');
  proc.stdout!.on('data', (d: string) => (term.screen += d));
  return term;
}

describe('gsh console attach on a terminal', () => {
  it('sends what is typed at the prompt, shows the answer, and detaches on Ctrl-D', async () => {
    const s = [...e.sandbox.state.servers.values()].find((x) => x.state === 'running')!;
    const command = `'${process.execPath}' '${GSH}' console attach -s ${s.id} --no-history`;
    const term = onTerminal(command, { env: { NO_COLOR: undefined } });
    const { proc, waitFor } = term;
    await waitFor(/attached to/);
    await waitFor(/> /);
    proc.stdin!.write('say typed at a terminal\r');
    await waitFor(/\[Server\] typed at a terminal/);
    // On a terminal console lines keep their ANSI colours (`tps` answers in green).
    proc.stdin!.write('tps\r');
    await waitFor(/TPS from last 1m, 5m, 15m: \x1b\[32m20\.0/);
    proc.stdin!.write('\x04');
    const r = await proc;
    expect(r.exitCode).toBe(0);
    // The prompt is drawn again after output arrives.
    expect(term.screen).toMatch(/\[Server\] typed at a terminal[^]*> /);
    expect(s.state).toBe('running');
  });

  // Issue 31's defect: on a terminal the matching line was still waiting in the output batch when
  // the prompt closed; printing it redrew the closed prompt, which resumed the terminal's input and
  // kept the process alive after the attach had returned (piped, there is no prompt to redraw).
  it('--until ends the attach on a terminal once the matching line is printed', async () => {
    const s = [...e.sandbox.state.servers.values()].find((x) => x.state === 'running')!;
    const command = `'${process.execPath}' '${GSH}' console attach ${s.id} --no-history --until MARK-done --timeout 20s; echo "exit=$?"`;
    const term = onTerminal(command, { timeout: 15_000 });
    await term.waitFor(/attached to/, 10_000);
    expect((await e.gsh(['console', 'send', '-s', s.id, 'say MARK-done'])).exitCode).toBe(0);
    const r = await term.proc;
    // Killed by execa's timeout (before --timeout's 20 s could end it) if it hangs.
    expect(r.timedOut).toBe(false);
    // The first line to match is the node's echo of the command (`> say MARK-done`).
    expect(term.screen).toMatch(/MARK-done\r?\n/);
    expect(term.screen).toContain('exit=0');
  });

  // Issue 31, item 3 on a terminal: one prompt for several servers (--broadcast), each server's
  // lines after its name in a colour of its own, and Ctrl-D detaches with exit 0.
  it('several servers: a typed line goes to each with --broadcast, names coloured per server', async () => {
    const all = [...e.sandbox.state.servers.values()];
    const a = all.find((x) => x.state === 'running')!;
    const b = all.find((x) => x !== a && !x.stored)!;
    await ensureRunning(e.sandbox, b);
    const command = `'${process.execPath}' '${GSH}' console attach -s ${a.id},${b.id} --no-history --broadcast`;
    const term = onTerminal(command, { env: { NO_COLOR: undefined } });
    const { proc, waitFor } = term;
    await waitFor(/all> /);
    proc.stdin!.write('say to-both\r');
    const colour = (s: { name: string }) => new RegExp(`\x1b\\[(\\d+)m${s.name}\x1b\\[39m *\\| \\S+ INFO\\]: \\[Server\\] to-both`);
    await waitFor(colour(a));
    await waitFor(colour(b));
    proc.stdin!.write('\x04');
    const r = await proc;
    expect(r.exitCode).toBe(0);
    expect(colour(a).exec(term.screen)![1]).not.toBe(colour(b).exec(term.screen)![1]);
  });

  // Subprocess under a pty: only a real terminal has a mode to leave wrong. A script in the pty
  // runs the attach in the foreground (so it owns the terminal), has it signalled from the
  // background, then prints its exit code and the terminal's mode.
  for (const [signal, code] of [['HUP', 129], ['QUIT', 131], ['TERM', 143]] as const) {
    it.concurrent(`SIG${signal} during attach exits ${code} and leaves the terminal in its normal (canonical, echoing) mode`, async () => {
      const s = [...e.sandbox.state.servers.values()].find((x) => x.state === 'running')!;
      const dir = mkdtempSync(join(tmpdir(), 'gsh-tty-'));
      try {
        const script = join(dir, 'run.sh');
        writeFileSync(script, [
          `(sleep 1; kill -${signal} "$(cat '${dir}/pid')") &`,
          `sh -c 'echo $$ > "${dir}/pid"; exec "${process.execPath}" "${GSH}" console attach -s ${s.id} --no-history'`,
          'echo "exit=$?"',
          'stty -a',
        ].join('\n'));
        const r = await execa('script', ['-qfec', `bash ${script}`, '/dev/null'], {
          env: e.env({ TERM: 'xterm-256color' }), extendEnv: true, reject: false, timeout: 30_000,
        });
        expect(r.stdout).toContain(`exit=${code}`);
        expect(r.stdout).toMatch(/(^|\s)icanon(\s|;|$)/m);
        expect(r.stdout).toMatch(/(^|\s)echo(\s|;|$)/m);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
