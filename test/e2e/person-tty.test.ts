import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerRecord } from '../../src/sandbox/index.js';
import { assertNoNodeWarning } from '../helpers/context.js';
import { type E2E, ensureRunning, GSH, setup } from './helpers.js';

// Ctrl-C pressed at each question on a real pseudo-terminal (issue 50 item 1, "Done when"; made by
// `script`, as tty.test.ts and top-tty.test.ts do): the test waits for the question's text on the
// terminal, then types the key \x03 into it, as a person does. The terminal is in raw mode at a
// question, so the key reaches gsh as a byte, not as a signal from the line discipline: only the
// person door turning it into the run's SIGINT makes these runs exit 130. The built binary
// (`npm run build`).

let e: E2E;
beforeAll(async () => {
  e = await setup({ servers: 10 });
});
afterAll(async () => {
  await e.close();
});

const used = new Set<string>();
function fresh(): ServerRecord {
  const s = [...e.sandbox.state.servers.values()].find((x) => !used.has(x.id))!;
  used.add(s.id);
  return s;
}

function onTerminal(args: string[], env: Record<string, string | undefined> = {}) {
  const command = `stty cols 200 rows 24; exec ${[process.execPath, GSH, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ')}`;
  const proc = execa('script', ['-qfec', command, '/dev/null'], {
    env: e.env({ TERM: 'xterm', COLUMNS: '200', ...env }) as Record<string, string>,
    extendEnv: true, reject: false, timeout: 30_000, stdin: 'pipe', buffer: false,
  });
  const t = {
    out: '',
    /** Waits for `text` on the terminal, then types `keys`. */
    async press(text: string, keys: string): Promise<void> {
      const end = Date.now() + 15_000;
      while (!t.out.includes(text)) {
        if (Date.now() > end) throw new Error(`the terminal never showed ${JSON.stringify(text)}: ${JSON.stringify(t.out)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      proc.stdin!.write(keys);
    },
    async exit(): Promise<number | undefined> {
      const r = await proc;
      proc.stdin!.destroy();
      assertNoNodeWarning(args, t.out);
      return r.exitCode;
    },
  };
  proc.stdout!.setEncoding('utf8');
  proc.stdout!.on('data', (d: string) => (t.out += d));
  return t;
}

const requests = (since: number, method: string, path: RegExp) => e.sandbox.log.slice(since).filter((x) => x.method === method && path.test(x.path));
/** The terminal's text without the escapes readline draws with. */
const text = (out: string) => out.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');

async function needsAd(): Promise<ServerRecord> {
  const s = fresh();
  if (s.state !== 'offline') {
    await ensureRunning(e.sandbox, s);
    e.sandbox.extensions.context.lifecycle.power(s, 'kill');
  }
  s.adRequired = true;
  return s;
}

describe('Ctrl-C pressed at a question on a terminal', () => {
  it('the delete question: exit 130, no internal error, nothing deleted', async () => {
    const s = fresh();
    const mark = e.sandbox.log.length;
    const t = onTerminal(['servers', 'delete', '-s', s.name]);
    await t.press(`Delete server ${s.name} (${s.id})? This cannot be undone. [y/N]`, '\x03');
    expect(await t.exit(), t.out).toBe(130);
    expect(t.out).not.toContain('internal error');
    expect(requests(mark, 'DELETE', /./)).toEqual([]);
    expect(e.sandbox.state.servers.has(s.id)).toBe(true);
  });

  it('the key prompt of auth login: exit 130, not 2 "cancelled"; nothing saved, nothing sent', async () => {
    const mark = e.sandbox.log.length;
    const t = onTerminal(['auth', 'login', '--profile', 'pressed'], { GSH_API_KEY: undefined });
    await t.press('API key: ', 'sk_typed_so_far');
    await t.press('API key: ', '\x03');
    expect(await t.exit(), t.out).toBe(130);
    expect(t.out).not.toContain('cancelled');
    expect(t.out).not.toContain('sk_typed_so_far');
    expect(requests(mark, 'GET', /\/me$/)).toEqual([]);
    expect((await e.gsh(['auth', 'profiles', '--json'])).stdout).not.toContain('pressed');
  });

  it('Announce anyway?: exit 130, nothing said, no restart', async () => {
    const s = fresh();
    await ensureRunning(e.sandbox, s);
    s.plan = 'free';
    const mark = e.sandbox.log.length;
    const t = onTerminal(['power', 'restart', '-s', s.id, '--announce', 'Restart in {left}', '--countdown', '30s,10s']);
    await t.press('Announce anyway? [y/N]', '\x03');
    expect(await t.exit(), t.out).toBe(130);
    expect(t.out).not.toContain('internal error');
    expect(requests(mark, 'POST', /\/(commands|power)$/)).toEqual([]);
  });

  it('the ad question: exit 130, no internal error, the start not sent again', async () => {
    const s = await needsAd();
    const mark = e.sandbox.log.length;
    const t = onTerminal(['power', 'start', '-s', s.id]);
    await t.press('Press Enter once the ad has played', '\x03');
    expect(await t.exit(), t.out).toBe(130);
    expect(t.out).not.toContain('internal error');
    expect(requests(mark, 'POST', /\/power$/)).toHaveLength(1);
    expect(s.state).toBe('offline');
  });

  it('the ad question in a fleet: every server listed, the rest line, exit 130 (not 11); nothing sent after the key', async () => {
    const a = await needsAd();
    const b = await needsAd();
    const c = fresh();
    const t = onTerminal(['power', 'start', '-s', a.id, '-s', b.id, '-s', c.id, '--parallel', '2']);
    await t.press('Press Enter once the ad has played', '\x03');
    const keyAt = e.sandbox.log.length;
    expect(await t.exit(), t.out).toBe(130);
    const shown = text(t.out);
    for (const s of [a, b, c]) expect(shown).toContain(s.id);
    expect(shown).toMatch(/Interrupted: \d of 3 finished\./);
    expect(shown).toMatch(/Run the servers not started or not sent with:\n {2}gsh power start .*-s \S+/);
    expect(shown).not.toContain('internal');
    expect(requests(keyAt, 'POST', /\/power$/)).toEqual([]);
  });
});
