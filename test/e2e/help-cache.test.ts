import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GSH } from './helpers.js';

// The launcher's help cache (README "Speed", src/boot/help-cache.ts): the first `gsh servers
// --help` at a width renders it with commander and keeps the text; later ones print the kept text
// without loading the bundle. Subprocess: only the real launcher shows what it loads and writes.

const LOAD_COUNT = fileURLToPath(new URL('../bench/load-count.cjs', import.meta.url));
const BUILD_ID = readFileSync(fileURLToPath(new URL('../../bin/dist/build-id', import.meta.url)), 'latin1').trim();

let cache: string;
beforeEach(() => {
  cache = mkdtempSync(join(tmpdir(), 'gsh-help-cache-e2e-'));
});
afterEach(() => rmSync(cache, { recursive: true, force: true }));

const env = (extra: Record<string, string> = {}) => ({ ...process.env, GSH_CACHE_DIR: cache, ...extra });
const codeDir = () => join(cache, `code-${process.version}-${process.arch}`);
const kept = () => readdirSync(codeDir()).filter((f) => f.startsWith('help-')).sort();

async function gsh(args: string[], extra: Record<string, string> = {}) {
  const r = await execa(process.execPath, ['--require', LOAD_COUNT, GSH, ...args], { reject: false, env: env(extra) });
  const lines = r.stderr.split('\n');
  const loads = JSON.parse(lines.pop()!) as { chunks: number };
  return { exitCode: r.exitCode, stdout: r.stdout, stderr: lines.join('\n'), chunks: loads.chunks };
}

describe('a help printed once is printed from the cache', () => {
  it('the first run renders and keeps it; the next prints the same bytes without loading the bundle', async () => {
    const first = await gsh(['servers', '--help']);
    expect(first).toMatchObject({ exitCode: 0, stderr: '' });
    expect(first.chunks).toBeGreaterThan(0);
    expect(first.stdout).toMatch(/^Usage: gsh servers/);
    expect(kept()).toEqual([`help-${BUILD_ID}-80-gsh.servers.txt`]);
    expect(readFileSync(join(codeDir(), kept()[0]!), 'utf8')).toBe(`${first.stdout}\n`);

    const second = await gsh(['servers', '--help']);
    expect(second).toMatchObject({ exitCode: 0, stderr: '', stdout: first.stdout, chunks: 0 });
    // -h is the same request; plain gsh and gsh --help share the root help.
    expect(await gsh(['servers', '-h'])).toMatchObject({ stdout: first.stdout, chunks: 0 });
    const root = await gsh([]);
    expect(await gsh(['--help'])).toMatchObject({ exitCode: 0, stdout: root.stdout, chunks: 0 });
  });

  it('what is printed is what was kept for this build, width and words (so a changed build never shows an old one)', async () => {
    await gsh(['servers', '--help']);
    writeFileSync(join(codeDir(), `help-${BUILD_ID}-80-gsh.servers.txt`), 'kept text\n');
    expect((await gsh(['servers', '--help'])).stdout).toBe('kept text');
    writeFileSync(join(codeDir(), `help-0000000000000000-80-gsh.power.txt`), 'another build\n');
    const power = await gsh(['power', '--help']);
    expect(power.stdout).toMatch(/^Usage: gsh power/);
    expect(power.chunks).toBeGreaterThan(0);
  });

  it('a command line that is not plain help, or help that fails, keeps nothing', async () => {
    expect((await gsh(['servers', 'list', '--dry-run'], { GSH_BASE_URL: 'http://127.0.0.1:9/api/v2', GSH_API_KEY: 'k' })).exitCode).toBe(0);
    expect((await gsh(['servers'])).exitCode).toBe(2); // a group without a verb: its help as a usage error
    expect((await gsh(['--json', '--help'])).exitCode).toBe(0);
    expect(kept()).toEqual([]);
  });

  it('NODE_DISABLE_COMPILE_CACHE turns it off with the code cache', async () => {
    const r = await gsh(['servers', '--help'], { NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(r.exitCode).toBe(0);
    expect(() => readdirSync(codeDir())).toThrow();
  });

  it('a reader that goes away is no error; a full disk is one line and exit 1', async () => {
    await gsh(['--help']);
    const quoted = [process.execPath, GSH, '--help'].map((a) => `'${a}'`).join(' ');
    const gone = await execa('bash', ['-c', `set -o pipefail; ${quoted} | true`], { reject: false, env: env() });
    expect({ exitCode: gone.exitCode, stderr: gone.stderr }).toEqual({ exitCode: 0, stderr: '' });
    const full = await execa('bash', ['-c', `${quoted} > /dev/full`], { reject: false, env: env() });
    expect({ exitCode: full.exitCode, stderr: full.stderr }).toEqual({ exitCode: 1, stderr: 'gsh: cannot write to standard output: ENOSPC' });
  });

  it("on a terminal, each width is kept on its own and printed as commander wraps it", async () => {
    const onTty = (cols: number) => execa('script', ['-qec', `stty cols ${cols} rows 24; '${process.execPath}' '${GSH}' servers --help`, '/dev/null'], { reject: false, env: env({ TERM: 'xterm' }) });
    const narrow = await onTty(60);
    const wide = await onTty(120);
    expect(kept()).toEqual([`help-${BUILD_ID}-120-gsh.servers.txt`, `help-${BUILD_ID}-60-gsh.servers.txt`]);
    expect(narrow.stdout).not.toBe(wide.stdout);
    expect((await onTty(60)).stdout).toBe(narrow.stdout);
    expect((await onTty(120)).stdout).toBe(wide.stdout);
    expect(Math.max(...narrow.stdout.replace(/\r/g, '').split('\n').map((l) => l.length))).toBeLessThanOrEqual(60);
  });
});
