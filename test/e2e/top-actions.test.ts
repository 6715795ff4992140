import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { GSH, setup, type E2E } from './helpers.js';

// Acting from `gsh top` on a real pseudo-terminal (made by `script`, as top-tty.test.ts does;
// issue 53): two servers marked with space and restarted with r, after the confirmation line
// showed the equivalent gsh command, are exactly the two the service restarted.

let e: E2E;
let dir: string;
beforeAll(async () => {
  e = await setup({ servers: 6 });
  dir = mkdtempSync(join(tmpdir(), 'gsh-top-act-'));
});
afterAll(async () => {
  await e.close();
  rmSync(dir, { recursive: true, force: true });
});

const RESTORED = '\x1b[?25h\x1b[?1049l';

it('space marks two servers, r shows the gsh command for exactly them, y restarts exactly them and the view shows the outcome', async () => {
  const script = join(dir, 'top.sh');
  writeFileSync(script, ['stty cols 100 rows 24', `"${process.execPath}" "${GSH}" top --interval 2s`, 'echo "exit=$?"'].join('\n'));
  const proc = execa('script', ['-qfec', `bash ${script}`, '/dev/null'], { env: e.env({ TERM: 'xterm-256color' }), extendEnv: true, reject: false, timeout: 30_000, stdin: 'pipe', buffer: false });
  let out = '';
  proc.stdout!.setEncoding('utf8');
  proc.stdout!.on('data', (d: string) => (out += d));
  const screen = () => (out.split('\x1b[H').at(-1) ?? '').split(RESTORED)[0]!.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').split(/\r*\n/);
  const waitFor = async (check: (s: string[]) => boolean, what: string) => {
    const end = Date.now() + 15_000;
    while (!check(screen())) {
      if (Date.now() > end) throw new Error(`the terminal never showed ${what}: ${JSON.stringify(screen())}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  const byName = [...e.sandbox.state.servers.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const s of byName) s.state = 'running';
  const picked = [byName[0]!, byName[2]!];
  try {
    await waitFor((s) => s.some((l) => l.startsWith('›')), 'the fleet');
    proc.stdin!.write(' ');
    proc.stdin!.write('jj');
    proc.stdin!.write(' ');
    await waitFor((s) => s.filter((l) => /^[› ]\*/.test(l)).length === 2, 'two marked rows');
    const before = e.sandbox.state.powerActions.length;
    proc.stdin!.write('r');
    const command = `gsh power restart -s ${picked.map((s) => s.id).join(',')} --yes`;
    await waitFor((s) => (s.at(-1) ?? '').includes('y runs'), 'the confirmation line');
    expect(screen().at(-1)?.trim()).toBe(`y runs, other keys cancel: ${command}`);
    // Nothing is sent before y.
    expect(e.sandbox.state.powerActions.length).toBe(before);
    proc.stdin!.write('y');
    await waitFor((s) => /restart on 2 servers: 2 ok/.test(s.at(-1) ?? ''), 'the outcome');
    expect(screen().at(-1)).toContain(`(${command})`);
    const sent = e.sandbox.state.powerActions.slice(before);
    expect(sent.map((a) => [a.serverId, a.signal]).sort()).toEqual(picked.map((s) => [s.id, 'restart']).sort());
    // The marks are cleared after the action.
    await waitFor((s) => s.filter((l) => /^[› ]\*/.test(l)).length === 0, 'no marked rows');
    proc.stdin!.write('q');
    const r = await proc;
    expect(r.timedOut).toBe(false);
    expect(out).toContain('exit=0');
  } finally {
    proc.kill();
  }
});
