import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureRunning, type E2E, setup } from './helpers.js';

// Colour is decided in one place (src/core/terminal/io.ts) by gh's rules: `--color always|never` (and
// `--no-color`, the same as `--color never`) beats the environment; CLICOLOR_FORCE or FORCE_COLOR
// force colour even when piped; NO_COLOR or CLICOLOR=0 turn it off; otherwise a terminal decides.
// ARCHITECTURE.md "Output for scripts": piped, no colour. The bold table header and the red
// `error:` show it.

let t: E2E;
beforeAll(async () => {
  t = await setup({ servers: 2 });
});
afterAll(async () => {
  await t.close();
});

const BOLD_HEADER = /\x1b\[1mID/;
const ANSI = /\x1b\[/;
const tty = { stdout: true, stderr: true, columns: 120 };
const plainEnv = { NO_COLOR: undefined, FORCE_COLOR: undefined, CLICOLOR_FORCE: undefined, CLICOLOR: undefined };

async function list(args: string[], env: Record<string, string | undefined>, onTty: boolean): Promise<string> {
  const r = await t.gsh(['servers', 'list', ...args], { env: { ...plainEnv, ...env }, ...(onTty ? { tty } : {}) });
  expect(r.exitCode, r.stderr).toBe(0);
  return r.stdout;
}

describe('the colour decision', () => {
  it('a terminal has colour, a pipe has none', async () => {
    expect(await list([], {}, true)).toMatch(BOLD_HEADER);
    expect(await list(['-o', 'tsv'], {}, false)).not.toMatch(ANSI);
  });

  it('NO_COLOR and CLICOLOR=0 turn it off on a terminal; --no-color and --color never too', async () => {
    expect(await list([], { NO_COLOR: '1' }, true)).not.toMatch(ANSI);
    expect(await list([], { CLICOLOR: '0' }, true)).not.toMatch(ANSI);
    expect(await list(['--no-color'], {}, true)).not.toMatch(ANSI);
    expect(await list(['--color', 'never'], { CLICOLOR_FORCE: '1' }, true)).not.toMatch(ANSI);
  });

  it('CLICOLOR_FORCE and FORCE_COLOR force it when piped (0 does not); --color always beats NO_COLOR', async () => {
    const error = async (env: Record<string, string>, ...flags: string[]) => {
      const r = await t.gsh(['servers', 'get', 'no-such-server', ...flags], { env: { ...plainEnv, ...env } });
      expect(r.exitCode, r.stderr).toBe(5);
      return r.stderr;
    };
    expect(await error({ CLICOLOR_FORCE: '1' })).toMatch(/^\x1b\[31merror:/);
    expect(await error({ FORCE_COLOR: '1', NO_COLOR: '1' })).toMatch(/^\x1b\[31merror:/);
    expect(await error({ CLICOLOR_FORCE: '0' })).toMatch(/^error:/);
    expect(await error({ NO_COLOR: '1' }, '--color', 'always')).toMatch(/^\x1b\[31merror:/);
    expect(await error({ NO_COLOR: '1' }, '--color=always')).toMatch(/^\x1b\[31merror:/);
    expect(await error({ CLICOLOR_FORCE: '1' }, '--no-color')).toMatch(/^error:/);
  });

  it('--color takes auto, always or never (exit 2 otherwise)', async () => {
    const r = await t.gsh(['servers', 'list', '--color', 'sometimes']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--color.*sometimes/);
  });

  it("the console's --color is the global one: ANSI console lines kept when piped with --color always", async () => {
    const s = [...t.sandbox.state.servers.values()].find((x) => !x.stored)!;
    await ensureRunning(t.sandbox, s);
    const kept = await t.gsh(['console', 'history', '-s', s.id, '--limit', '500', '--color', 'always']);
    expect(kept.exitCode, kept.stderr).toBe(0);
    expect(kept.stdout).toMatch(ANSI);
    const stripped = await t.gsh(['--color', 'never', 'console', 'history', '-s', s.id, '--limit', '500'], { env: { CLICOLOR_FORCE: '1' } });
    expect(stripped.exitCode, stripped.stderr).toBe(0);
    expect(stripped.stdout).not.toMatch(ANSI);
    expect(stripped.stdout.split('\n').length).toBe(kept.stdout.split('\n').length);
  });
});
