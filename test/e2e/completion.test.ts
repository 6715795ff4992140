import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDocTree } from '../../src/docs/command-tree.js';
import { completionScript, SHELLS } from '../../src/docs/generated-files.js';
import { needing } from '../helpers/tools.js';
import { GSH } from './helpers.js';

// Issue 3 item 4: the committed scripts, exercised in real bash, zsh and fish. bash drives the
// completion function the way readline does (COMP_WORDS/COMP_CWORD); zsh runs compsys in an
// interactive shell on a pseudo-terminal and types TAB; fish asks `complete -C`.
const dir = fileURLToPath(new URL('../../completions/', import.meta.url));
const zshHarness = fileURLToPath(new URL('fixtures/zsh-complete.zsh', import.meta.url));
// A throwaway HOME: fish writes its config and history there.
const home = mkdtempSync(join(tmpdir(), 'gsh-completion-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));
const opts = { timeout: 20_000, env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_DATA_HOME: join(home, '.local/share'), LANG: 'C.UTF-8' } };

async function bash(...words: string[]): Promise<string[]> {
  const script = `source ${dir}gsh.bash; COMP_WORDS=("$@"); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); _gsh; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const r = await execa('bash', ['--norc', '--noprofile', '-c', script, 'bash', ...words], opts);
  return r.stdout.split('\n').filter(Boolean).sort();
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
const FORMATS = ['csv', 'json', 'jsonl', 'table', 'tsv', 'yaml'];

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
});

describe('gsh completion', () => {
  it('prints the script generated from the command tree for each shell (the committed one: test/unit/generated-files)', async () => {
    const tree = await loadDocTree();
    for (const shell of SHELLS) {
      const r = await execa(process.execPath, [GSH, 'completion', shell], opts);
      expect(`${r.stdout}\n` === completionScript(shell, tree), shell).toBe(true);
    }
  });
  it('rejects an unknown shell and a missing one as usage errors', async () => {
    expect((await execa(process.execPath, [GSH, 'completion', 'tcsh'], { ...opts, reject: false })).exitCode).toBe(2);
    expect((await execa(process.execPath, [GSH, 'completion'], { ...opts, reject: false })).exitCode).toBe(2);
  });
});
