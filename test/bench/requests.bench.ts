import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/core/run/context.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { runGsh } from '../helpers/context.js';

// Every request counts: the requests of common commands, counted in the sandbox's request log,
// and a 237-server restart with --wait on a key limited to 60 requests a minute, timed on the
// clock the sandbox's rate-limit windows and gsh share. Budgets: a remembered server costs one
// request per command; a 13-server restart with --wait at most 2 requests per server plus 5; the
// 237-server restart with --wait within 1.3x of the time the 237 restarts alone need at 60 a
// minute (237 / 60 minutes).
//
// The sandbox runs SCALE of its real time (a restart's 4 s takes 4 s × SCALE), and gsh's pauses
// (polls, rate-limit waits) last SCALE of their length while its clock moves on by all of it, so
// a run of minutes on that clock takes seconds. The clock starts on a minute boundary, the worst
// case for the fixed one-minute windows: a full first window, so every extra request can cost a
// whole further window.

const SCALE = 0.02;
const LIMIT = 60;
const FLEET = 237;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/**
 * gsh's pauses last SCALE of their length, and a pause of `ms` ends no earlier than `ms` after it
 * began on this clock (pauses side by side overlap, they do not add up). Starts on a minute boundary.
 */
function scaledClock(): Clock {
  let skipped = 60_000 - (Date.now() % 60_000);
  const now = () => Date.now() + skipped;
  return {
    now,
    sleep: (ms) => {
      const until = now() + ms;
      return new Promise((resolve) => setTimeout(() => {
        skipped = Math.max(skipped, until - Date.now());
        resolve();
      }, Math.max(0, Math.round(ms * SCALE))));
    },
  };
}

async function gsh(sb: Sandbox, argv: string[], opts: { configDir?: string; clock?: Clock } = {}) {
  const configDir = opts.configDir ?? mkdtempSync(join(tmpdir(), 'gsh-bench-requests-'));
  dirs.push(configDir);
  const env = { PATH: process.env.PATH ?? '', GSH_BASE_URL: sb.baseUrl, GSH_API_KEY: sb.keys.all, GSH_CONFIG_DIR: configDir, NO_COLOR: '1' };
  const mark = sb.log.length;
  const r = await runGsh(argv, { env, ...(opts.clock ? { clock: opts.clock } : {}) });
  return { ...r, requests: sb.log.slice(mark) };
}

function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [head, ...rows].map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
}

describe('requests per command', () => {
  it('a remembered server costs one request; a 13-server restart with --wait at most 2 per server plus 5', async () => {
    const sb = await startSandbox({ servers: 13, timeScale: SCALE });
    try {
      const s = [...sb.state.servers.values()][0]!;
      const rows: string[][] = [];
      const over: string[] = [];
      const cases: [string, (ref: string) => string[]][] = [
        ['servers get', (ref) => ['servers', 'get', ref, '--json']],
        ['power stop', (ref) => ['power', 'stop', '-s', ref]],
        ['settings update', (ref) => ['settings', 'update', '-s', ref, '--description', 'bench']],
      ];
      for (const [what, argv] of cases) {
        for (const [by, ref] of [['name', s.name], ['id', s.id]] as const) {
          const configDir = mkdtempSync(join(tmpdir(), 'gsh-bench-requests-'));
          const first = await gsh(sb, argv(ref), { configDir });
          const again = await gsh(sb, argv(ref), { configDir });
          rows.push([`${what} by ${by}`, String(first.requests.length), String(again.requests.length), '1']);
          if (again.requests.length > 1) over.push(`${what} by ${by}`);
        }
      }
      for (const x of sb.state.servers.values()) x.state = 'running';
      const restart = await gsh(sb, ['power', 'restart', '--all-servers', '--wait', '--yes', '-o', 'json'], { clock: scaledClock() });
      expect(restart.exitCode, restart.stderr).toBe(0);
      const budget = 2 * 13 + 5;
      rows.push(['power restart --wait, 13 servers', '', String(restart.requests.length), `${budget}`]);
      if (restart.requests.length > budget) over.push('13-server restart');
      console.log(`\nrequests (sandbox request log)\n${table(['command', 'first run', 'remembered / run', 'budget'], rows)}\n`);
      expect(over).toEqual([]);
    } finally {
      await sb.close();
    }
  });
});

describe(`${FLEET} servers restarted at ${LIMIT} requests a minute`, () => {
  /** One run on a fresh sandbox (a fresh budget), timed on the shared clock. */
  async function timed(argv: string[]) {
    const clock = scaledClock();
    const sb = await startSandbox({ servers: FLEET, rateLimit: LIMIT, timeScale: SCALE, now: clock.now });
    try {
      for (const s of sb.state.servers.values()) s.state = 'running';
      const t0 = clock.now();
      const r = await gsh(sb, argv, { clock });
      const seconds = (clock.now() - t0) / 1000;
      expect(r.exitCode, r.stderr).toBe(0);
      expect(sb.log.filter((e) => e.status === 429)).toEqual([]);
      const kinds = new Map<string, number>();
      for (const e of r.requests) {
        const k = `${e.method} ${e.path.replace(/^\/servers\/[^/]+/, '/servers/{id}')}${e.query.include ? `?include=${String(e.query.include)}` : ''}`;
        kinds.set(k, (kinds.get(k) ?? 0) + 1);
      }
      const states = [...sb.state.servers.values()].map((s) => s.state);
      return { seconds, requests: r.requests.length, kinds: [...kinds].map(([k, n]) => `${n} ${k}`).join(', '), running: states.filter((s) => s === 'running').length, actions: sb.state.powerActions.length };
    } finally {
      await sb.close();
    }
  }

  it(`--wait within 1.3x of the time the ${FLEET} restarts alone need`, async () => {
    const alone = await timed(['power', 'restart', '--all-servers', '--yes', '-o', 'json']);
    const waited = await timed(['power', 'restart', '--all-servers', '--yes', '--wait', '-o', 'json']);
    const need = (FLEET / LIMIT) * 60;
    const budget = 1.3 * need;
    console.log(`\n${FLEET}-server restart, key limited to ${LIMIT} requests a minute (clock of the rate-limit windows)\n${table(
      ['run', 'seconds', 'requests', 'x of 237/60 min', 'x of restarts alone (measured)', 'running at the end', 'requests by kind'],
      [
        ['restarts alone', alone.seconds.toFixed(1), String(alone.requests), (alone.seconds / need).toFixed(2), '1.00', String(alone.running), alone.kinds],
        ['with --wait', waited.seconds.toFixed(1), String(waited.requests), (waited.seconds / need).toFixed(2), (waited.seconds / alone.seconds).toFixed(2), String(waited.running), waited.kinds],
      ],
    )}\nbudget: ${budget.toFixed(0)} s (1.3 x ${need.toFixed(0)} s, the ${FLEET} restarts at ${LIMIT} a minute)\n`);
    expect(waited.actions).toBe(FLEET);
    expect(waited.running).toBe(FLEET);
    expect(waited.seconds).toBeLessThanOrEqual(budget);
  });
});
