import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertNoNodeWarning } from '../helpers/context.js';
import { type E2E, GSH, setup } from './helpers.js';

// ARCHITECTURE.md "Output for scripts": on a TTY, tables sized to the terminal with a header,
// spinners for waits, and confirmation prompts for destructive operations. `script` (util-linux)
// gives the CLI a real pseudo-terminal; what we type goes in through its stdin. Subprocess (the
// built binary): a real pty, raw-mode prompts and ora's cursor handling are what is checked, not a
// test context.

let t: E2E;
beforeAll(async () => {
  t = await setup({ servers: 3 });
});
afterAll(async () => {
  await t.close();
});

async function onTty(args: string[], input = '', extra: Record<string, string> = {}) {
  // A fresh pty has no size; give it the one a terminal would have.
  const command = `stty cols 60 rows 24; ${[process.execPath, GSH, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ')}`;
  const r = await execa('script', ['-qec', command, '/dev/null'], {
    input,
    reject: false,
    timeout: 30_000,
    env: { ...t.env(), COLUMNS: '60', TERM: 'xterm', ...extra } as Record<string, string>,
  });
  // The terminal shows stdout and stderr together: none of it is a line of Node's (issue 37 item 3).
  assertNoNodeWarning(args, String(r.stdout));
  return r;
}

describe('on a terminal', () => {
  it('prints a table with a header, fitted to the width', async () => {
    const r = await onTty(['servers', 'list']);
    expect(r.exitCode).toBe(0);
    const lines = String(r.stdout).replace(/\r/g, '').split('\n').filter(Boolean);
    expect(lines[0]).toMatch(/^ID\s+NAME\s+/);
    expect(lines).toHaveLength(4);
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(60);
  });

  it('colours the header unless NO_COLOR', async () => {
    const coloured = await onTty(['servers', 'list'], '', { NO_COLOR: '' });
    expect(String(coloured.stdout)).toMatch(/\x1b\[1mID/);
    const plain = await onTty(['servers', 'list'], '', { NO_COLOR: '1' });
    expect(String(plain.stdout)).not.toMatch(/\x1b\[/);
  });

  it('asks before deleting: n cancels, y deletes', async () => {
    const s = [...t.sandbox.state.servers.values()][0]!;
    const no = await onTty(['servers', 'delete', '-s', s.id], 'n\n');
    expect(no.exitCode).toBe(2);
    expect(String(no.stdout)).toContain('[y/N]');
    expect(t.sandbox.state.servers.has(s.id)).toBe(true);
    const yes = await onTty(['servers', 'delete', '-s', s.id], 'y\n');
    expect(yes.exitCode).toBe(0);
    expect(t.sandbox.state.servers.has(s.id)).toBe(false);
  });

  it('shows a spinner while waiting', async () => {
    const s = [...t.sandbox.state.servers.values()].find((x) => x.state === 'offline')!;
    const r = await onTty(['power', 'start', '-s', s.id, '--wait']);
    expect(r.exitCode).toBe(0);
    expect(String(r.stdout)).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏].*server/);
    expect(String(r.stdout)).toMatch(/state\s+running/);
  });

  it("draws the spinner in the run's colour decision: --color never beats FORCE_COLOR (ora's chalk would obey it)", async () => {
    const s = [...t.sandbox.state.servers.values()].find((x) => x.state === 'running' || x.state === 'offline')!;
    if (s.state === 'running') expect((await t.gsh(['power', 'stop', '-s', s.id, '--wait'])).exitCode).toBe(0);
    const r = await onTty(['power', 'start', '-s', s.id, '--wait', '--color', 'never'], '', { NO_COLOR: '', FORCE_COLOR: '1' });
    expect(r.exitCode).toBe(0);
    expect(String(r.stdout)).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏].*server/);
    expect(String(r.stdout)).not.toMatch(/\x1b\[3\dm/);
  });
});
