import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFullProgram, run, type RunSeen } from '../../src/program.js';
import { testContext, type TestContextOptions } from '../helpers/context.js';

// The launcher prints a help from its cache once this build has printed it at that width
// (src/boot/help-cache.ts). That is only right while a help is a function of the command line
// alone: here every command's --help is printed under two contexts as far apart as a user's can
// be (environment, stored profile, terminal or pipe) and must come out the same, and the run must
// say it printed commander's help, which is what the CLI keeps.

let configDir: string;
beforeAll(async () => {
  configDir = mkdtempSync(join(tmpdir(), 'gsh-help-purity-'));
  await testContext({ env: { GSH_CONFIG_DIR: configDir } }).store.update((data) => {
    data.current = 'prod';
    data.profiles.prod = { base_url: 'https://prod.example/api/v2', api_key: 'k_stored' };
  });
});
afterAll(() => rmSync(configDir, { recursive: true, force: true }));

function paths(cmd: Command, prefix: string[] = []): string[][] {
  return cmd.commands.flatMap((c) => [[...prefix, c.name()], ...paths(c, [...prefix, c.name()])]);
}

async function help(argv: string[], opts: TestContextOptions): Promise<{ code: number; out: string; err: string; seen: RunSeen }> {
  const ctx = testContext(opts);
  const seen: RunSeen = {};
  const code = await run(argv, ctx, seen);
  return { code, out: ctx.stdout.text(), err: ctx.stderr.text(), seen };
}

const bare: TestContextOptions = { env: {} };
const lived: TestContextOptions = {
  env: {
    GSH_CONFIG_DIR: '', GSH_PROFILE: 'prod', GSH_BASE_URL: 'https://elsewhere.example/api/v2', GSH_API_KEY: 'k_env',
    GSH_SERVER: 'lobby', GSH_REQUEST_TIMEOUT: '5s', FORCE_COLOR: '1', CLICOLOR_FORCE: '1', COLUMNS: '41', LANG: 'de_DE.UTF-8',
  },
  tty: { stdin: true, stdout: true, stderr: true, columns: 41 },
};

describe('a help is a function of the command line alone', () => {
  it('every command, plain gsh and gsh --help print the same help in any context, and say it was help', async () => {
    lived.env!.GSH_CONFIG_DIR = configDir;
    const all = [[], ...paths(await buildFullProgram()).filter((p) => p.at(-1) !== 'help')];
    expect(all.length).toBeGreaterThan(300);
    for (const words of all) {
      for (const argv of words.length === 0 ? [[], ['--help']] : [[...words, '--help'], [...words, '-h']].slice(0, words.length === 1 ? 2 : 1)) {
        const a = await help(argv, bare);
        const b = await help(argv, lived);
        expect({ code: a.code, err: a.err, helpShown: a.seen.helpShown }, argv.join(' ')).toEqual({ code: 0, err: '', helpShown: true });
        expect(b.out, argv.join(' ')).toBe(a.out);
        expect(a.out, argv.join(' ')).toMatch(/^Usage: gsh/);
      }
    }
  }, 120_000);

  it('a run that is not help does not say it was, whatever it printed', async () => {
    for (const argv of [['version'], ['servers', 'list', '--dry-run'], ['servers', 'lst', '--help'].slice(0, 2)]) {
      const r = await help(argv, { env: { GSH_BASE_URL: 'http://127.0.0.1:9/api/v2', GSH_API_KEY: 'k' } });
      expect(r.seen.helpShown, argv.join(' ')).toBeUndefined();
    }
  });
});
