import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/core/run/context.js';
import { displayWidth } from '../../src/core/terminal/terminal-text.js';
import { run } from '../../src/program.js';
import { until, within } from '../console/in-process.js';
import { testContext, type TestContext, virtualClock } from '../helpers/context.js';
import { leaks } from '../helpers/terminal-leaks.js';
import { ensureRunning, runEnv, setup, type E2E } from './helpers.js';

// `gsh top`'s live view (the list, and a server opened with its console) at 80×24 on a colour
// terminal, in-process, against a sandbox hostile in everything it sends, states included
// (issue 44; src/sandbox/hostile.ts `hostile: { states: true }`): every name, state, status and
// console line carries CSI, OSC 0/8/52, DCS, C1, bidi, zero-width and wide characters, CR, LF and
// TAB. Only gsh's own sequences reach the terminal (test/helpers/terminal-leaks.ts, plus the
// screen's own: the alternate screen, home, erase), every screen line is at most 80 columns
// (displayWidth of the terminal door, gsh's SGR taken out), and the header is line 1 after every
// refresh.

const ENTER_ALT = '\x1b[?1049h';
const RESTORED = '\x1b[?25h\x1b[?1049l';
/** The screen's own sequences (top/screen.ts), besides what leaks() already knows as gsh's. */
const SCREEN = /\x1b\[H|\x1b\[J/g;
// eslint-disable-next-line no-control-regex
const SGR = /\x1b\[[0-9;]*m/g;

interface Terminal {
  ctx: TestContext;
  exit: Promise<number>;
  /** The last frame drawn: its lines as the terminal shows them (gsh's SGR and erases taken out). */
  screen(): string[];
  press(keys: string): void;
}

function onTerminal(e: E2E, args: string[], clock?: Clock): Terminal {
  const env = runEnv(e.env({ NO_COLOR: undefined, TERM: 'xterm-256color' }));
  const ctx = testContext({ env, tty: { stdin: true, stdout: true, stderr: true, columns: 80 }, stdinOpen: true, ...(clock ? { clock } : {}) });
  Object.assign(ctx.stdout, { rows: 24 });
  const exit = run(['top', ...args], ctx);
  return {
    ctx,
    exit,
    screen: () => (ctx.stdout.text().split('\x1b[H').at(-1) ?? '').replace(RESTORED, '').replace(/\x1b\[[KJ]/g, '').replace(SGR, '').split('\r\n'),
    press: (keys) => ctx.stdin.write(keys),
  };
}

/** Only gsh's own sequences reached the terminal: the alternate screen entered once and left once, at the end. */
function assertOwnOnly(out: string): void {
  expect(out.startsWith(ENTER_ALT)).toBe(true);
  expect(out.endsWith(RESTORED)).toBe(true);
  expect(out.split('\x1b[?1049l')).toHaveLength(2);
  const drawn = out.slice(ENTER_ALT.length, -RESTORED.length).replace(SCREEN, '');
  expect(leaks(drawn)).toEqual([]);
}

function assertFits(screen: string[], where: string): void {
  expect(screen, where).toHaveLength(24);
  for (const line of screen) expect(displayWidth(line), `${where}: ${JSON.stringify(line)}`).toBeLessThanOrEqual(80);
}

describe('gsh top against a hostile service, states included, at 80×24 (issue 44)', () => {
  let e: E2E;
  beforeAll(async () => {
    e = await setup({ servers: 6, hostile: { states: true } });
    for (const s of [...e.sandbox.state.servers.values()].filter((x) => !x.stored).slice(0, 2)) await ensureRunning(e.sandbox, s);
  });
  afterAll(async () => {
    await e?.close();
  });

  it('the sandbox sends hostile states: the list\'s JSON holds them', async () => {
    const r = await e.gsh(['top', '--once', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout) as { state?: string }[];
    expect(rows.some((x) => (x.state ?? '').includes('\x1b]52;'))).toBe(true);
  });

  it('the list: names and states reach the STATE column and the header counts as text, every line within 80 columns, the header first on every refresh', async () => {
    const clock = virtualClock();
    const screens: string[][] = [];
    let sleeps = 0;
    let t!: Terminal;
    t = onTerminal(e, [], { now: clock.now, sleep: async (ms) => {
      screens.push(t.screen());
      if (++sleeps === 4) return t.press('q');
      await clock.sleep(ms);
    } });
    expect(await within(20_000, 'gsh top', t.exit)).toBe(0);
    expect(t.ctx.stderr.text()).toBe('');
    expect(screens).toHaveLength(4);
    for (const [i, screen] of screens.entries()) {
      assertFits(screen, `refresh ${i + 1}`);
      expect(screen[0], `refresh ${i + 1}`).toMatch(/^gsh top · 6 servers/);
      expect(screen[2], `refresh ${i + 1}`).toMatch(/^ {2}NAME +STATE/);
      expect(screen.slice(3, -1).filter((l) => /^[› ] \S/.test(l)), `refresh ${i + 1}`).toHaveLength(6);
    }
    const last = screens.at(-1)!;
    // The counts name the service's states, shown as text (^[ is ESC shown), cut.
    expect(last[0]).toMatch(/ \d offline\^\[\[8m.*… · \d running\^\[\[8m.*…$/);
    // The STATE column: the service's state, cut, its escapes shown.
    const rows = last.slice(3, -1).filter((l) => /^[› ] \S/.test(l));
    for (const row of rows) expect(row).toMatch(/^[› ] \S+ (running|offline)\^?… /);
    assertOwnOnly(t.ctx.stdout.text());
  });

  it('the opened server with its console: hostile console lines and status, every line within 80 columns, the header first', async () => {
    const s = [...e.sandbox.state.servers.values()].find((x) => x.state === 'running')!;
    const t = onTerminal(e, ['-s', s.id]);
    await until(() => t.screen().some((l) => l.startsWith('›')), 10_000, 'the row');
    t.press('\r');
    // The header: the server's name cut to leave room for its id, the state the console's `status`
    // event sent (hostile, cut, its escapes shown) and the console's word.
    await until(() => /^gsh top › .* · running\^\[\[8m.* · console live$/.test(t.screen()[0] ?? ''), 10_000, 'the opened server');
    // The console's lines arrive (the sandbox node's game writes some), their escapes shown.
    await until(() => t.screen().slice(1).some((l) => l.includes('^[')), 10_000, 'hostile console lines');
    const screens: string[][] = [];
    // A few refreshes of the opened view, and a console status event in between.
    for (let i = 0; i < 3; i++) {
      const frames = t.ctx.stdout.text().split('\x1b[H').length;
      if (i === 1) e.sandbox.state.events.emit('server-state', s, 'running');
      await until(() => t.ctx.stdout.text().split('\x1b[H').length > frames, 10_000, 'a redraw');
      screens.push(t.screen());
    }
    for (const [i, screen] of screens.entries()) {
      assertFits(screen, `opened, frame ${i + 1}`);
      expect(screen[0], `opened, frame ${i + 1}`).toMatch(/^gsh top › .* · console live$/);
    }
    t.press('q');
    expect(await within(10_000, 'gsh top after q', t.exit)).toBe(0);
    expect(t.ctx.stderr.text()).toBe('');
    assertOwnOnly(t.ctx.stdout.text());
  });
});
