import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertNoNodeWarning, listeningClock, withoutNodeWarnings } from '../helpers/context.js';
import { type E2E, GSH, setup } from './helpers.js';

// Issue 37 item 3: stderr is gsh's own. Every gsh() and gshProcess() of the e2e helpers fails its
// test on a warning Node emits during the run (test/helpers/context.ts withoutNodeWarnings,
// assertNoNodeWarning). Here, the run that printed one: a tree upload of 14 files on a key of 10
// requests a minute, whose workers all wait out the window on the run's abort signal (a listening
// clock whose pauses last 100 ms in real time, so they wait together).

let t: E2E;
let dir: string;
const clock = listeningClock(Date.now(), 100);
beforeAll(async () => {
  t = await setup({ rateLimit: 10, now: clock.now });
  dir = mkdtempSync(join(tmpdir(), 'gsh-warn-'));
  mkdirSync(join(dir, 'plugins'));
  for (let i = 0; i < 14; i++) writeFileSync(join(dir, 'plugins', `p${i}.yml`), `n: ${i}\n`);
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('no Node warning on stderr', () => {
  it('the helpers fail a run during which Node warned, and a subprocess whose stderr holds a line of Node\'s', async () => {
    // The warning event alone, without Node's own printer (which would put it on the runner's stderr).
    const printers = process.listeners('warning');
    process.removeAllListeners('warning');
    try {
      const warning = Object.assign(new Error('Possible EventTarget memory leak detected'), { name: 'MaxListenersExceededWarning' });
      await expect(withoutNodeWarnings(['x'], async () => void process.emit('warning', warning))).rejects.toThrow(
        /gsh x printed a Node warning on stderr: \(node:\d+\) MaxListenersExceededWarning: Possible EventTarget/,
      );
      // 12 runs at once share one listener on the process.
      await Promise.all(Array.from({ length: 12 }, () => withoutNodeWarnings(['y'], async () => expect(process.listenerCount('warning')).toBe(1))));
      expect(process.listenerCount('warning')).toBe(0);
    } finally {
      for (const p of printers) process.on('warning', p);
    }
    expect(() => assertNoNodeWarning(['z'], 'ok\n(node:42) [DEP0040] DeprecationWarning: The `punycode` module is deprecated.')).toThrow(/DeprecationWarning/);
    expect(() => assertNoNodeWarning(['z'], 'warning: plain http to a host that is not loopback')).not.toThrow();
  });

  it('a tree upload of 14 files that waits for the rate-limit window, 8 at a time', async () => {
    const server = [...t.sandbox.extensions.context.state.servers.values()].find((s) => s.state === 'running')!;
    const r = await t.gsh(['files', 'put', join(dir, 'plugins'), '-s', server.id, '--dir', '/plugins', '--parallel', '8'], { clock });
    expect(r.stderr).toMatch(/waiting \d+ s for the window to reset/);
    expect(r.stderr).toMatch(/14 of 14 files uploaded/);
    expect(r.exitCode).toBe(0);
  });

  it('NO_COLOR and FORCE_COLOR both set, on a terminal: the built binary prints no Node colour warning, and colours as FORCE_COLOR says', async () => {
    // Node warns "The 'NO_COLOR' env is ignored due to the 'FORCE_COLOR' env being set" when
    // undici loads node:assert with a terminal on stderr. `script` gives the run a pseudo-terminal.
    const command = `'${process.execPath}' '${GSH}' servers get no-such-server`;
    const r = await execa('script', ['-qec', command, '/dev/null'], { reject: false, timeout: 30_000, env: t.env({ NO_COLOR: '1', FORCE_COLOR: '1', TERM: 'xterm' }), extendEnv: true });
    assertNoNodeWarning(['servers', 'get', 'no-such-server'], String(r.stdout));
    expect(String(r.stdout)).toMatch(/\x1b\[31merror:/);
  });
});
