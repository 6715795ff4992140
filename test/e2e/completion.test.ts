import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDocTree } from '../../src/program.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { completionScript, SHELLS } from '../../src/docs/generated-files.js';
import { needing } from '../helpers/tools.js';
import { GSH, gshInProcess } from './helpers.js';

// Issue 3 item 4: the committed scripts, exercised in real bash, zsh and fish. bash drives the
// completion function the way readline does (COMP_WORDS/COMP_CWORD); zsh runs compsys in an
// interactive shell on a pseudo-terminal and types TAB; fish asks `complete -C`.
const dir = fileURLToPath(new URL('../../completions/', import.meta.url));
const zshHarness = fileURLToPath(new URL('fixtures/zsh-complete.zsh', import.meta.url));
// A throwaway HOME: fish writes its config and history there.
const home = mkdtempSync(join(tmpdir(), 'gsh-completion-'));
const opts: { timeout: number; env: Record<string, string> } = { timeout: 20_000, env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_DATA_HOME: join(home, '.local/share'), LANG: 'C.UTF-8' } };

// -s <TAB> asks the API through `gsh __complete servers`: a sandbox, and `gsh` on PATH as the
// built binary (the scripts run the command being completed).
let sandbox: Sandbox;
let live: typeof opts;
beforeAll(async () => {
  sandbox = await startSandbox({ servers: 3 });
  const bin = join(home, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'gsh'), `#!/bin/sh\nexec '${process.execPath}' '${GSH}' "$@"\n`);
  chmodSync(join(bin, 'gsh'), 0o755);
  live = { ...opts, env: { ...opts.env, PATH: `${bin}:${process.env.PATH}`, GSH_BASE_URL: sandbox.baseUrl, GSH_API_KEY: sandbox.keys.all, GSH_CONFIG_DIR: join(home, 'gsh'), GSH_PROFILE: '', GSH_TOKEN: '' } };
});
afterAll(async () => {
  await sandbox?.close();
  rmSync(home, { recursive: true, force: true });
});
const serverNames = () => [...sandbox.state.servers.values()].map((s) => s.name).sort();

async function bash(...words: string[]): Promise<string[]> {
  return bashIn(opts, words);
}

async function bashIn(o: typeof opts, words: string[]): Promise<string[]> {
  const script = `source ${dir}gsh.bash; COMP_WORDS=("$@"); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); _gsh; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const r = await execa('bash', ['--norc', '--noprofile', '-c', script, 'bash', ...words], o);
  return r.stdout.split('\n').filter(Boolean).sort();
}

/**
 * COMP_WORDS as readline makes them from an unquoted line with bash's default COMP_WORDBREAKS:
 * words split at blanks, and each run of ':' or '=' a word of its own (`urn:ietf:` → urn : ietf :).
 */
function readlineWords(line: string): string[] {
  const words = line.split(/[ ]+/).flatMap((w) => w.split(/([:=]+)/).filter((p, i, all) => p !== '' || (i === all.length - 1 && all.length === 1)));
  return line.endsWith(' ') ? [...words.filter(Boolean), ''] : words;
}

async function zsh(line: string, mode: 'source' | 'fpath' = 'source'): Promise<string[]> {
  const r = await execa('zsh', ['-f', zshHarness, mode, dir.replace(/\/$/, ''), line], opts);
  return r.stdout.split('\n').filter(Boolean).sort();
}

/** Candidates without their descriptions (fish prints `word<TAB>description`). */
async function fish(line: string): Promise<string[]> {
  const r = await execa('fish', ['--no-config', '-c', `source ${dir}gsh.fish; complete -C ${JSON.stringify(line)}`], opts);
  return r.stdout.split('\n').filter(Boolean).map((l) => l.split('\t')[0]!).sort();
}

const SIGNALS = ['kill', 'restart', 'start', 'stop'];
const FORMATS = ['csv', 'json', 'jsonl', 'markdown', 'table', 'tsv', 'yaml'];

describe('bash', () => {
  it('is registered for gsh', async () => {
    const r = await execa('bash', ['--norc', '--noprofile', '-c', `source ${dir}gsh.bash; complete -p gsh`], opts);
    expect(r.stdout).toBe('complete -F _gsh gsh');
  });
  it('completes families, verbs (signals) and aliases', async () => {
    expect(await bash('gsh', 'serv')).toEqual(['servers']);
    expect(await bash('gsh', 'power', '')).toEqual(SIGNALS);
    expect(await bash('gsh', 'files', 'trash', '')).toEqual(['delete', 'empty', 'list', 'ls', 'restore', 'rm']);
  });
  it("completes a command's flags and the global ones, after global flags and their values", async () => {
    const flags = await bash('gsh', '--profile', 'ci', 'servers', 'ls', '--');
    expect(flags).toEqual(expect.arrayContaining(['--search', '--limit', '--all', '--output', '--help']));
    expect(flags).not.toContain('--wait');
  });
  it('completes documented values: output formats, event names, sources', async () => {
    expect(await bash('gsh', '-o', '')).toEqual(FORMATS);
    expect(await bash('gsh', 'servers', 'list', '--output', '=', 'j')).toEqual(['json', 'jsonl']);
    expect(await bash('gsh', 'hooks', 'create', '--events', 'server.st')).toEqual(['server.started', 'server.stopped']);
    expect(await bash('gsh', 'addons', 'content', 'timeline', '--source', '')).toEqual(['provider_a', 'provider_b', 'provider_c']);
  });
});

describe('bash: values with a colon and live server names', () => {
  it("completes values that contain ':' although COMP_WORDBREAKS splits them (readline's words)", async () => {
    expect(readlineWords('gsh agent token --grant-type urn:ietf:')).toEqual(['gsh', 'agent', 'token', '--grant-type', 'urn', ':', 'ietf', ':']);
    // Readline replaces only what follows the last ':', so that is what is offered.
    expect(await bash(...readlineWords('gsh agent token --grant-type urn:ietf:'))).toEqual(['params:oauth:grant-type:jwt-bearer']);
    expect(await bash(...readlineWords('gsh agent token --grant-type urn:v'))).toEqual(['vendor:agent-auth:grant-type:claim']);
    expect(await bash(...readlineWords('gsh agent token --grant-type urn:'))).toEqual([
      'ietf:params:oauth:grant-type:jwt-bearer', 'vendor:agent-auth:grant-type:claim',
    ]);
    expect(await bash(...readlineWords('gsh agent token --grant-type=urn:ietf:'))).toEqual(['params:oauth:grant-type:jwt-bearer']);
    // Words after a value with colons still find the command: a URL given to --base-url.
    expect(await bash(...readlineWords('gsh --base-url http://127.0.0.1:8080/api/v2 power '))).toEqual(SIGNALS);
  });
  it('-s <TAB> offers the server names from the API, by prefix, and --base-url on the line is used', async () => {
    expect(await bashIn(live, ['gsh', 'power', 'start', '-s', ''])).toEqual(serverNames());
    const first = serverNames()[0]!;
    expect(await bashIn(live, ['gsh', 'servers', 'get', '--server', first.slice(0, 3)])).toEqual(serverNames().filter((n) => n.startsWith(first.slice(0, 3))));
    const noEnvUrl = { ...live, env: { ...live.env, GSH_BASE_URL: '', GSH_CONFIG_DIR: join(home, 'gsh-typed-url') } };
    expect(await bashIn(noEnvUrl, readlineWords(`gsh --base-url ${sandbox.baseUrl} power start -s `))).toEqual(serverNames());
    expect(await bashIn(noEnvUrl, ['gsh', 'power', 'start', '-s', ''])).toEqual([]);
  });
});

const withZsh = needing('zsh', 'zsh');
describe.skipIf(withZsh.missing)(withZsh.title, () => {
  it('completes families and signals when autoloaded from $fpath', async () => {
    expect(await zsh('gsh serv', 'fpath')).toEqual(['servers']);
    expect(await zsh('gsh power ', 'fpath')).toEqual(SIGNALS);
  });
  it('completes flags, output formats and event names when sourced after compinit', async () => {
    expect(await zsh('gsh servers list --sea')).toEqual(['--search']);
    expect(await zsh('gsh -o ')).toEqual(FORMATS);
    expect(await zsh('gsh servers list --output=j')).toEqual(['json', 'jsonl']);
    expect(await zsh('gsh hooks create --events server.st')).toEqual(['server.started', 'server.stopped']);
  });
  it('completes -s with the server names from the API', async () => {
    const r = await execa('zsh', ['-f', zshHarness, 'source', dir.replace(/\/$/, ''), 'gsh power start -s '], live);
    expect(r.stdout.split('\n').filter(Boolean).sort()).toEqual(serverNames());
  });
});

const withFish = needing('fish', 'fish');
describe.skipIf(withFish.missing)(withFish.title, () => {
  it('completes families and signals, with descriptions', async () => {
    expect(await fish('gsh serv')).toEqual(['servers']);
    expect(await fish('gsh power ')).toEqual(SIGNALS);
    const r = await execa('fish', ['--no-config', '-c', `source ${dir}gsh.fish; complete -C 'gsh serv'`], opts);
    expect(r.stdout).toBe('servers\tCreate, inspect, reinstall and delete servers');
  });
  it('completes flags, output formats and event names', async () => {
    expect(await fish('gsh servers ls --l')).toEqual(['--limit']);
    expect(await fish('gsh -o ')).toEqual(FORMATS);
    expect(await fish('gsh servers list --output=j')).toEqual(['--output=json', '--output=jsonl']);
    expect(await fish('gsh hooks create --events server.st')).toEqual(['server.started', 'server.stopped']);
  });
  it('completes -s with the server names from the API', async () => {
    const r = await execa('fish', ['--no-config', '-c', `source ${dir}gsh.fish; complete -C 'gsh power start -s '`], live);
    expect(r.stdout.split('\n').filter(Boolean).map((l) => l.split('\t')[0]!).sort()).toEqual(serverNames());
  });
});

// In-process (run(argv, ctx)): the scripts are the command tree's, the same in the bundle.
describe('gsh completion', () => {
  it('prints the script generated from the command tree for each shell (the committed one: test/unit/generated-files)', async () => {
    const tree = await loadDocTree();
    for (const shell of SHELLS) {
      const r = await gshInProcess(['completion', shell], {});
      expect(`${r.stdout}\n` === completionScript(shell, tree), shell).toBe(true);
    }
  });
  it('rejects an unknown shell and a missing one as usage errors', async () => {
    expect((await gshInProcess(['completion', 'tcsh'], {})).exitCode).toBe(2);
    expect((await gshInProcess(['completion'], {})).exitCode).toBe(2);
  });
});
