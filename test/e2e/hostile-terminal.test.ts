import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realClock } from '../../src/core/run/context.js';
import { HOSTILE, HOSTILE_BARE_CR } from '../../src/sandbox/hostile.js';
import { agent, asProfile, until } from '../agent/helpers.js';
import { type E2E, ensureRunning, type GshResult, setup } from './helpers.js';
import { leaks } from '../helpers/terminal-leaks.js';
import { type Step, makeFixtures, planOf, reference, registryOps } from './walk-plan.js';

// The terminal door (issue #44; src/ARCHITECTURE.md "Doors"): against a hostile sandbox
// (src/sandbox/hostile.ts: every name, message, URL to open and console line carries CSI, OSC
// 0/8/52, DCS, C1, bidi, zero-width and wide characters, CR, LF and TAB), every command of the
// registry walk (test/e2e/walk-plan.ts) runs on a terminal with colour on (every Example: line of
// the help pages: hostile-examples.test.ts; top's live view: hostile-top.test.ts), and only gsh's own sequences reach it: the SGR colours gsh emits, and
// the cursor and erase sequences of its spinners and progress lines (ALLOWED below). Also `gsh top
// --once`, `console attach` and the approval notice; and csv with the service's CR parses to rows
// of the header's width. What counts as gsh's own: test/helpers/terminal-leaks.ts.

const TTY = { stdout: true, stderr: true, columns: 100 };
const COLOUR = { NO_COLOR: undefined, TERM: 'xterm' };
const CONCURRENCY = 6;

let t: E2E;
let dir: string;
let steps: Step[];
const problems: string[] = [];
const ran = new Set<string>();
/** Runs whose terminal showed the service's escapes as text (so the hostile text did reach it). */
let shown = 0;

function check(where: string, r: GshResult, gameColours = false): void {
  if (r.timedOut && !/console attach|logs|--follow/.test(where)) problems.push(`${where}: timed out`);
  if (`${r.stdout}${r.stderr}`.includes('^[]52;c;')) shown += 1;
  for (const [name, text] of [['stdout', r.stdout], ['stderr', r.stderr]] as const) {
    const bad = leaks(text, gameColours);
    if (bad.length) problems.push(`${where} (${name}): ${bad.slice(0, 3).join(' ')}`);
  }
}

async function runStep(step: Step): Promise<void> {
  const argv = step.argv.filter((a) => a !== '--json');
  const r = await t.gsh(argv, { env: COLOUR, tty: TTY, input: `${t.sandbox.keys.all}\n`, timeout: step.streaming ? 1500 : 20_000 });
  ran.add(step.command);
  check(`gsh ${argv.join(' ')}`, r, step.command.startsWith('console'));
}

async function pool<T>(items: readonly T[], n: number, fn: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (next < items.length) await fn(items[next++]!);
  }));
}

beforeAll(async () => {
  t = await setup({ servers: 4, clock: 'fast', hostile: true });
  dir = mkdtempSync(join(tmpdir(), 'gsh-hostile-'));
  const ops = await registryOps();
  const fx = await makeFixtures(t.sandbox, ops, dir);
  ({ steps } = planOf(await reference(t.env()), ops, fx));
}, 60_000);

afterAll(async () => {
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a hostile service reaches the terminal only through the door', () => {
  it('leaks() passes gsh\'s own sequences and names every other', () => {
    expect(leaks('\x1b[1mID\x1b[22m \x1b[36mx\x1b[39m\r\x1b[2Kdone\x1b[K\r\n\x1b[?25l')).toEqual([]);
    for (const bad of ['\x1b[8mx', '\x1b]8;;https://e/\x07', '\x1b]52;c;QQ==\x07', '\x1bP+q\x1b\\', '\u009b2J', 'a\u202eb', 'a\u200bb', 'x\ry', '\x1b[2J', '\x1b[1;1H']) {
      expect(leaks(bad).length, JSON.stringify(bad)).toBeGreaterThan(0);
    }
    expect(leaks('\x1b[8mhidden\x1b[0m', true)).toEqual([]);
    expect(leaks('\x1b[8mhidden', true)).toHaveLength(1);
  });

  it('the sandbox is hostile: names carry the escapes', async () => {
    const r = await t.gsh(['servers', 'list', '-o', 'json']);
    const names = (JSON.parse(r.stdout) as { name: string }[]).map((s) => s.name);
    expect(names.length).toBeGreaterThan(0);
    for (const n of names) expect(n.endsWith(HOSTILE) || n.endsWith(HOSTILE_BARE_CR)).toBe(true);
  });

  it('every command of the walk, on a terminal with colour', async () => {
    for (const s of steps.filter((x) => x.anonymous)) await runStep(s);
    await pool(steps.filter((x) => !x.anonymous && !x.last), CONCURRENCY, runStep);
    const depth = (x: Step) => x.path.split('/').length;
    await pool(steps.filter((x) => !x.anonymous && x.last).sort((a, b) => depth(b) - depth(a)), 1, runStep);
    expect(steps.length).toBeGreaterThan(300);
    expect(ran.size).toBe(new Set(steps.map((s) => s.command)).size);
    expect(problems).toEqual([]);
    expect(shown).toBeGreaterThan(100);
  }, 120_000);

  it('gsh top --once, console attach and --debug on a terminal', async () => {
    const before = problems.length;
    const { id } = await ensureRunning(t.sandbox, [...t.sandbox.state.servers.values()][0]!);
    check('gsh top --once', await t.gsh(['top', '--once'], { env: COLOUR, tty: TTY }));
    check('gsh servers list --debug', await t.gsh(['servers', 'list', '--debug'], { env: COLOUR, tty: TTY }));
    const attached = await t.gsh(['console', 'attach', '-s', id], { env: COLOUR, tty: TTY, timeout: 1500 });
    expect(attached.stdout).toContain('^[]52;c;'); // the console's lines arrived, their escapes shown
    check('gsh console attach', attached, true);
    check('gsh console attach --no-color', await t.gsh(['console', 'attach', '-s', id, '--no-color'], { env: COLOUR, tty: TTY, timeout: 1500 }));
    expect(problems.slice(before)).toEqual([]);
  }, 30_000);

  // 01-general-contract.md "Output formats" asks RFC 4180 csv: a field with CR is quoted.
  it('servers list --all -o csv and top --once -o csv: the service\'s CR, LF, commas and quotes stay inside their fields', async () => {
    for (const argv of [['servers', 'list', '--all', '-o', 'csv'], ['top', '--once', '-o', 'csv']]) {
      const r = await t.gsh(argv);
      expect(r.exitCode, r.stderr).toBe(0);
      // Read as the readers that take CR, LF or CRLF as a line end do (Python's csv module, spreadsheet
      // imports): csv-parse would throw on a row of another width.
      const rows = parseCsv(r.stdoutBytes.toString('utf8'), { record_delimiter: ['\r\n', '\n', '\r'] }) as string[][];
      expect(rows.length).toBeGreaterThan(1);
      for (const row of rows) expect(row.length, `${argv.join(' ')}: ${JSON.stringify(row)}`).toBe(rows[0]!.length);
      // Both kinds reached the csv: a field with a LF, and one with a bare CR and no LF.
      expect(rows.slice(1).some((row) => row.some((cell) => cell.includes(HOSTILE)))).toBe(true);
      expect(rows.slice(1).some((row) => row.some((cell) => cell.endsWith(HOSTILE_BARE_CR)))).toBe(true);
    }
  });
});

// 01-general-contract.md "Agent registration flow", Approvals: the answer's action_url is shown
// to the person; here it hides part of itself (SGR 8) and carries a link (OSC 8).
describe('the approval notice', () => {
  it('shows a hostile action_url as text on a terminal, never obeyed', async () => {
    const login = t.gsh(['auth', 'login', '--agent', '--email', 'demo@example.com'], { env: asProfile('hostile-agent'), clock: realClock });
    let exited = false;
    void login.finally(() => (exited = true));
    const claim = await until(() => exited || [...agent(t).claims.values()].find((c) => c.userCode && !c.completed && !c.spent), 20_000);
    if (claim !== true) agent(t).completeClaim(claim.userCode);
    expect((await login).exitCode).toBe(0);
    agent(t).configure({ approvalIntervalS: 0.05 });
    const victim = [...t.sandbox.state.servers.values()].at(-1)!;
    const stop = t.sandbox.onRequest((entry) => {
      if (entry.method !== 'GET' || entry.route !== '/agent/approvals/{approval_id}') return;
      const a = agent(t).approvals.get(entry.path.split('/').pop()!);
      if (a?.status === 'pending') agent(t).decide(a.id, 'rejected');
    });
    try {
      const r = await t.gsh(['servers', 'delete', '-s', victim.id, '--wait', '--yes'], { env: { ...asProfile('hostile-agent'), ...COLOUR }, tty: TTY });
      expect(r.stderr).toContain('Approve at: ');
      const line = r.stderr.split('\n').find((l) => l.includes('Approve at: '))!;
      expect(line).toContain('^[[8m'); // the conceal, shown
      expect(line).toContain('^[]8;;https://evil.example/^G'); // the link, shown
      expect(leaks(r.stderr)).toEqual([]);
    } finally {
      stop();
    }
  }, 30_000);
});
