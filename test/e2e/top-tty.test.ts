import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { width } from '../../src/top/cells.js';
import { GSH, setup, type E2E } from './helpers.js';

// `gsh top` under a real pseudo-terminal (made by `script`, as console-tty.test.ts does): only a
// real terminal has modes to leave wrong and a size to change. A script in the pty sets the size,
// runs the view in the foreground, changes the size when the test asks (the kernel then sends
// SIGWINCH), and prints the exit code and the terminal's modes after the view has ended.

let e: E2E;
let dir: string;
beforeAll(async () => {
  e = await setup({ servers: 40 });
  dir = mkdtempSync(join(tmpdir(), 'gsh-top-tty-'));
});
afterAll(async () => {
  await e.close();
  rmSync(dir, { recursive: true, force: true });
});

const ENTER_ALT = '\x1b[?1049h';
const RESTORED = '\x1b[?25h\x1b[?1049l';

function onTerminal(name: string, args: string[] = []) {
  const resize = join(dir, `${name}.resize`);
  const term = join(dir, `${name}.term`);
  const pid = join(dir, `${name}.pid`);
  const script = join(dir, `${name}.sh`);
  writeFileSync(script, [
    'stty cols 80 rows 24',
    // Background jobs of a script read /dev/null: the size is set on the terminal itself.
    `(while [ ! -e '${resize}' ]; do sleep 0.05; done; stty cols 60 rows 14 < /dev/tty) &`,
    `(while [ ! -e '${term}' ]; do sleep 0.05; done; kill -"$(cat '${term}')" "$(cat '${pid}')") &`,
    `sh -c 'echo $$ > "${pid}"; exec "${process.execPath}" "${GSH}" top --interval 2s ${args.join(' ')}'`,
    'echo "exit=$?"',
    'stty -a',
  ].join('\n'));
  const proc = execa('script', ['-qfec', `bash ${script}`, '/dev/null'], {
    env: e.env({ TERM: 'xterm-256color' }), extendEnv: true, reject: false, timeout: 30_000, stdin: 'pipe', buffer: false,
  });
  const t = {
    proc,
    out: '',
    /** The last frame drawn, as lines of text. */
    screen(): string[] {
      const last = t.out.split('\x1b[H').at(-1) ?? '';
      return last.split(RESTORED)[0]!.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').split(/\r*\n/);
    },
    async waitFor(check: (screen: string[]) => boolean, what: string, ms = 15_000): Promise<void> {
      const end = Date.now() + ms;
      while (!check(t.screen())) {
        if (Date.now() > end) throw new Error(`the terminal never showed ${what}: ${JSON.stringify(t.screen())}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    resize: () => writeFileSync(resize, ''),
    /** A signal to gsh from outside (a supervisor, `kill`). */
    signal: (name: string) => writeFileSync(term, name),
  };
  proc.stdout!.setEncoding('utf8');
  proc.stdout!.on('data', (d: string) => (t.out += d));
  return t;
}

/** What the script printed after the view ended: the exit code and the modes of the terminal. */
function after(out: string): string {
  return out.slice(out.lastIndexOf(RESTORED) + RESTORED.length);
}

describe('gsh top on a terminal', () => {
  it('draws the fleet at 80 columns, sorts and filters by key, redraws on a resize, and q gives the terminal back', async () => {
    const t = onTerminal('keys');
    await t.waitFor((s) => /^gsh top · 40 servers/.test(s[0] ?? '') && s.some((l) => l.startsWith('›')), 'the fleet');
    expect(t.screen()).toHaveLength(24);
    for (const line of t.screen()) expect([...line].length).toBeLessThanOrEqual(80);
    // Names first (up to 20 columns whole): the memory sparkline is the first column dropped for them.
    expect(t.screen()[2]).toMatch(/^ {2}NAME +STATE +CPU trend MEM\/LIMIT +DISK NET RX\/TX\/s +UP$/);
    t.proc.stdin!.write('c');
    await t.waitFor((s) => /sort cpu↓/.test(s.at(-1) ?? ''), 'sorted by cpu');
    const first = [...e.sandbox.state.servers.values()].map((s) => s.name).sort()[0]!;
    t.proc.stdin!.write(`/${first}\r`);
    await t.waitFor((s) => (s.at(-1) ?? '').includes(`filter "${first}"`), 'the filter');
    expect(t.screen().slice(3, -1).filter((l) => /^[› ] \S/.test(l)).every((l) => l.slice(2).startsWith(first))).toBe(true);
    t.resize();
    await t.waitFor((s) => s.length === 14 && /^ {2}NAME +STATE +CPU MEM\/LIMIT/.test(s[2] ?? ''), 'a redraw at 60 × 14');
    for (const line of t.screen()) expect([...line].length).toBeLessThanOrEqual(60);
    t.proc.stdin!.write('q');
    const r = await t.proc;
    expect(r.timedOut).toBe(false);
    expect(t.out.split(ENTER_ALT)).toHaveLength(2);
    const rest = after(t.out);
    expect(rest).toContain('exit=0');
    // Input mode back: canonical and echoing (raw mode would show -icanon -echo).
    expect(rest).toMatch(/(^|\s)icanon(\s|;|$)/m);
    expect(rest).toMatch(/(^|\s)echo(\s|;|$)/m);
  });

  it('a hostile service (issue 44): its state and names reach the terminal as text, every line within 80 columns, the header first', async () => {
    const list = [...e.sandbox.state.servers.values()].sort((a, b) => (a.name < b.name ? -1 : 1)).slice(0, 4);
    const before = list.map((s) => ({ name: s.name, state: s.state }));
    const hostile = '\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;pwned\x07\x1bP+q544e\x1b\\\x9b2J\x1b[8m\r\x1b[?1049l';
    (list[0] as { state: string }).state = `running${hostile}`;
    list[1]!.name = '黄金の島サーバー第一ロビー番号';
    list[2]!.name = 'line one\nline two\nline three';
    list[3]!.name = 'tab\there\tand\tthere';
    try {
      const t = onTerminal('hostile');
      await t.waitFor((s) => s.some((l) => l.startsWith('›')), 'the fleet');
      // Two refreshes at least (every 2 s).
      await new Promise((r) => setTimeout(r, 4500));
      const screen = t.screen();
      expect(screen).toHaveLength(24);
      expect(screen[0]).toMatch(/^gsh top · 40 servers: /);
      for (const line of screen) expect(width(line), line).toBeLessThanOrEqual(80);
      t.proc.stdin!.write('q');
      await t.proc;
      const drawn = t.out.slice(t.out.indexOf(ENTER_ALT), t.out.lastIndexOf(RESTORED) + RESTORED.length);
      // Only gsh's own: the alternate screen once each way, the cursor, home, clears, line ends (a pty adds a CR to each).
      const own = /\x1b\[\?1049h|\x1b\[\?25[lh]|\x1b\[\?1049l$|\x1b\[[HKJ]|\x1b\[\d{1,2}m|\r+\n/g;
      // eslint-disable-next-line no-control-regex
      expect(drawn.replace(own, '').match(/[\x00-\x1f\x7f-\x9f]/g) ?? []).toEqual([]);
      expect(drawn.split('\x1b[?1049l')).toHaveLength(2);
      expect(drawn).toContain('^[]52;c;cm0g');
    } finally {
      list.forEach((s, i) => Object.assign(s, before[i]));
    }
  });

  for (const [how, code] of [['Ctrl-C', 130], ['SIGTERM', 143], ['SIGHUP', 129], ['SIGQUIT', 131]] as const) {
    it(`${how} exits ${code} with the alternate screen left, the cursor shown and the input mode back`, async () => {
      const t = onTerminal(how);
      await t.waitFor((s) => s.some((l) => l.startsWith('›')), 'the fleet');
      if (how === 'Ctrl-C') t.proc.stdin!.write('\x03');
      else t.signal(how.slice(3));
      const r = await t.proc;
      expect(r.timedOut).toBe(false);
      expect(t.out).toContain(RESTORED);
      const rest = after(t.out);
      expect(rest).toContain(`exit=${code}`);
      expect(rest).toMatch(/(^|\s)icanon(\s|;|$)/m);
      expect(rest).toMatch(/(^|\s)echo(\s|;|$)/m);
    });
  }
});
