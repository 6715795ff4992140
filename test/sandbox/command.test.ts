import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { childExitCode, register, runExec, sandboxOptions } from '../../src/commands/sandbox.js';
import { UsageError } from '../../src/core/errors.js';
import { runGsh, testContext } from '../helpers/context.js';

// `gsh sandbox start|exec` (issue 2, item 7; ARCHITECTURE.md "Sandbox"), run in a test context: CMD
// gets the context's env (PATH from the runner's) and its output lands in the captured streams.

const node = process.execPath;
const env = { PATH: process.env.PATH };

describe('gsh sandbox exec', () => {
  it('runs CMD with GSH_BASE_URL and GSH_API_KEY of a fresh sandbox and returns its exit code', async () => {
    const script = `
      const r = await fetch(process.env.GSH_BASE_URL + '/me', { headers: { authorization: 'Bearer ' + process.env.GSH_API_KEY } });
      const body = await r.json();
      console.log(process.env.ONLY_FROM_CONTEXT);
      process.exit(r.status === 200 && body.data.key.scopes[0] === '*' ? 7 : 1);`;
    const ctx = testContext({ env: { ...env, ONLY_FROM_CONTEXT: 'ctx-env' } });
    expect(await runExec(ctx, { servers: 1 }, node, ['--input-type=module', '-e', script])).toBe(7);
    expect(ctx.stdout.text()).toBe('ctx-env\n');
  });

  it('reports death by signal as 128+n and a missing command as a GshError 127', async () => {
    expect(await runExec(testContext({ env }), {}, node, ['-e', "process.kill(process.pid, 'SIGTERM')"])).toBe(143);
    await expect(runExec(testContext({ env }), {}, '/nonexistent/gsh-test-cmd', [])).rejects.toMatchObject({ exitCode: 127 });
    expect(childExitCode(0, null)).toBe(0);
    expect(childExitCode(null, 'SIGKILL')).toBe(137);
  });

  it('registers start and exec; exec passes CMD flags through after -- and returns its exit code', async () => {
    const program = new Command('gsh').exitOverride().option('--json');
    const sandbox = program.command('sandbox').exitOverride();
    register(sandbox);
    expect(sandbox.commands.map((c) => c.name()).sort()).toEqual(['ad-view', 'approve', 'claim-complete', 'disconnect', 'exec', 'reject', 'start']);
    const r = await runGsh(['sandbox', 'exec', '--servers', '2', '--', node, '-e', 'process.exit(process.argv.includes("--json") ? 5 : 1)', 'arg', '--json'], { env });
    expect(r.exitCode, r.stderr).toBe(5);
  });

  it('SIGTERM on the context is passed on to CMD (exit 128+15)', async () => {
    const ctx = testContext({ env });
    const running = runExec(ctx, {}, node, ['-e', 'console.log("up"); setTimeout(() => {}, 30000)']);
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (ctx.stdout.text().includes('up')) {
          clearInterval(poll);
          resolve();
        }
      }, 10);
    });
    ctx.signals.emit('SIGTERM');
    expect(await running).toBe(143);
    expect(ctx.signals.listenerCount('SIGTERM')).toBe(0);
  });
});

describe('option parsing', () => {
  it('validates numbers and maps flags to SandboxOptions', () => {
    expect(sandboxOptions({ port: '0', servers: '5', seed: '9', timeScale: '0.5', rateLimit: '60' }))
      .toEqual({ port: 0, servers: 5, seed: 9, timeScale: 0.5, rateLimit: 60 });
    for (const bad of [{ port: '70000' }, { servers: '-1' }, { seed: 'x' }, { timeScale: 'fast' }, { timeScale: '' }]) {
      expect(() => sandboxOptions(bad)).toThrow(UsageError);
    }
  });
});
