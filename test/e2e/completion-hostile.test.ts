import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { needing } from '../helpers/tools.js';
import { GSH } from './helpers.js';

// Issue 51 item 1: a completion answer is a word, never code. Server names a subuser with
// `settings.rename` can choose (02-endpoints-part-a.md "Servers": `name` is free text) are
// completed after `-s` in real bash, zsh and fish on a pseudo-terminal (tmux): the line is typed,
// TAB pressed, then Enter, and the command run is a stub `gsh` that logs its argv (and answers
// `__complete` with the built binary against the sandbox). Done when the name arrives as the one
// argument it is and nothing in it ran; a name that cannot be one safe word is not offered.

const completions = fileURLToPath(new URL('../../completions/', import.meta.url));
const home = mkdtempSync(join(tmpdir(), 'gsh-completion-hostile-'));
const work = join(home, 'cwd');
const argvDir = join(home, 'argv');
const answered = join(home, 'answered');

const NAMES = {
  dollar: '$(touch F)x',
  flags: 'zz --all-servers --yes',
  backticks: 'b`touch G`',
  quotes: `q'uo"te`,
  space: 'sp ace;touch H',
  newline: 'nl\n--yes',
} as const;

let sandbox: Sandbox;
let env: Record<string, string>;
beforeAll(async () => {
  sandbox = await startSandbox({ servers: Object.keys(NAMES).length });
  [...sandbox.state.servers.values()].forEach((s, i) => {
    s.name = Object.values(NAMES)[i] as string;
  });
  const bin = join(home, 'bin');
  for (const d of [bin, work, argvDir]) mkdirSync(d);
  writeFileSync(answered, '');
  // The stub: `__complete` is the real one; anything else writes its arguments, NUL-separated, to
  // a file of its own (written aside, then moved in whole, so a reader never sees half).
  writeFileSync(join(bin, 'gsh'), [
    '#!/bin/sh',
    `if [ "$1" = __complete ]; then '${process.execPath}' '${GSH}' "$@"; echo >> '${answered}'; exit 0; fi`,
    `f=$(mktemp '${home}/argv.XXXXXX'); printf '%s\\0' "$@" > "$f"; mv "$f" '${argvDir}/'`,
    '',
  ].join('\n'));
  chmodSync(join(bin, 'gsh'), 0o755);
  env = {
    PATH: `${bin}:/usr/bin:/bin`, HOME: home, TERM: 'xterm', LANG: 'C.UTF-8', XDG_CONFIG_HOME: join(home, '.config'), XDG_DATA_HOME: join(home, '.local/share'),
    GSH_BASE_URL: sandbox.baseUrl, GSH_API_KEY: sandbox.keys.all, GSH_CONFIG_DIR: join(home, 'gsh'),
  };
});
afterAll(async () => {
  await sandbox?.close();
  rmSync(home, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, screen?: () => Promise<string>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${screen ? `; the screen:\n${await screen()}` : ''}`);
    await sleep(50);
  }
}

/** An interactive shell in a tmux session of its own (its own server socket), in `work`. */
class Pty {
  private readonly socket = `gsh-hostile-${process.pid}-${Math.random().toString(36).slice(2)}`;
  constructor(private readonly shell: string[]) {}

  private tmux(...args: string[]) {
    return execa('tmux', ['-L', this.socket, '-f', '/dev/null', ...args], { timeout: 10_000 });
  }
  screen = async () => (await this.tmux('capture-pane', '-p', '-t', 'c')).stdout;
  keys = (...keys: string[]) => this.tmux('send-keys', '-t', 'c', ...keys);
  text = (text: string) => this.tmux('send-keys', '-t', 'c', '-l', text);

  async start(setup: string): Promise<void> {
    await this.tmux('new-session', '-d', '-s', 'c', '-x', '200', '-y', '50', '-c', work, 'env', '-i', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), ...this.shell);
    await this.text(`${setup}; echo RE""ADY`);
    await this.keys('Enter');
    await waitFor('the shell to be ready', async () => ((await this.screen()).split('\n').some((l) => l.trim() === 'READY') ? true : undefined));
  }

  /** Types `line`, TAB, waits for the completion to be inserted, Enter: the stub's argv. */
  async complete(line: string): Promise<string[]> {
    for (const f of readdirSync(argvDir)) rmSync(join(argvDir, f));
    // Typed only at a fresh prompt, so no key reaches the command before it.
    await waitFor('the prompt', async () => ((await this.screen()).trimEnd().split('\n').at(-1) === '$' ? true : undefined), this.screen);
    const asked = statSync(answered).size;
    await this.text(line);
    await this.keys('Tab');
    await waitFor('gsh __complete servers', () => (statSync(answered).size > asked ? true : undefined), this.screen);
    // The answer is inserted once the shell has read it: wait until the screen stops changing.
    let last = '';
    await waitFor('the completed line', async () => {
      const now = await this.screen();
      const settled = now === last;
      last = now;
      await sleep(150);
      return settled ? true : undefined;
    });
    await this.keys('Enter');
    const file = await waitFor('the command to run', () => readdirSync(argvDir)[0], this.screen);
    const argv = readFileSync(join(argvDir, file), 'utf8').split('\0');
    argv.pop();
    return argv;
  }

  async close(): Promise<void> {
    await this.tmux('kill-server').catch(() => undefined);
  }
}

const SHELLS = [
  { shell: 'bash', argv: ['bash', '--norc', '--noprofile'], setup: `PS1='$ '; source ${completions}gsh.bash`, dollar: '$' },
  // zsh and fish complete a bare `$` as a variable name (their own completers, not gsh's): the `$` is typed escaped.
  { shell: 'zsh', argv: ['zsh', '-f'], setup: `PS1='$ '; autoload -U compinit; compinit -u -D; source ${completions}_gsh`, dollar: '\\$' },
  { shell: 'fish', argv: ['fish', '--no-config'], setup: `function fish_prompt; echo '$ '; end; source ${completions}gsh.fish`, dollar: '\\$' },
];

for (const { shell, argv, setup, dollar } of SHELLS) {
  const tools = needing(`${shell} on a pty: a completed server name is one argument, never code`, shell, 'tmux');
  describe.skipIf(tools.missing)(tools.title, () => {
    const pty = new Pty(argv);
    beforeAll(async () => {
      await pty.start(setup);
    }, 30_000);
    afterAll(async () => {
      await pty.close();
    });

    const cases: [typed: string, name: string][] = [
      [dollar, NAMES.dollar],
      ['zz', NAMES.flags],
      ['b', NAMES.backticks],
      ['q', NAMES.quotes],
      ['sp', NAMES.space],
      // Inside a quote the word opens, the name is completed within it.
      ["'zz", NAMES.flags],
      ['"zz', NAMES.flags],
    ];
    for (const [typed, name] of cases) {
      it(`-s ${typed}<TAB> completes ${JSON.stringify(name)} as one word`, async () => {
        expect(await pty.complete(`gsh servers get -s ${typed}`)).toEqual(['servers', 'get', '-s', name]);
      }, 30_000);
    }

    it('a name with a newline is not offered: the typed word stays as it was', async () => {
      expect(await pty.complete('gsh servers delete -s nl')).toEqual(['servers', 'delete', '-s', 'nl']);
    }, 30_000);

    it('nothing in a name ran', () => {
      for (const f of ['F', 'G', 'H']) expect(existsSync(join(work, f)), f).toBe(false);
    });
  });
}
