import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildId, helpCacheFile, isPlainHelp, keepHelp, readHelp } from '../../../src/boot/help-cache.js';
import { visible } from '../../../src/core/terminal/terminal-text.js';

// The launcher's help cache (README "Speed", src/ARCHITECTURE.md "Start-up"): which command lines
// may be answered from it, what its files are named after, and that keeping one can fail quietly.

let root: string;
let dist: string;
let cache: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gsh-help-cache-'));
  dist = join(root, 'dist');
  cache = join(root, 'cache');
  mkdirSync(dist);
  writeFileSync(join(dist, 'build-id'), '0123456789abcdef\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('which command lines a kept help answers', () => {
  it('command words then --help or -h, and plain gsh; the file is named after the build, the width and the words', () => {
    expect(helpCacheFile(['--help'], buildId(dist), cache, () => 80)).toBe(join(cache, 'help-0123456789abcdef-80-gsh.txt'));
    expect(helpCacheFile(['servers', '-h'], buildId(dist), cache, () => 132)).toBe(join(cache, 'help-0123456789abcdef-132-gsh.servers.txt'));
    expect(helpCacheFile(['servers', 'list', '--help'], buildId(dist), cache, () => 80)).toBe(join(cache, 'help-0123456789abcdef-80-gsh.servers.list.txt'));
    expect(helpCacheFile([], buildId(dist), cache, () => 80)).toBe(join(cache, 'help-0123456789abcdef-80-gsh.txt'));
  });

  it('anything else runs the CLI: other flags, values, paths, --help not last, the shells\' completion', () => {
    for (const argv of [
      ['servers', 'list'],
      ['--help', 'servers'],
      ['servers', '--json', '--help'],
      ['files', 'get', '/etc/passwd', '--help'],
      ['files', 'get', 'World', '--help'],
      ['__complete', 'servers', '--help'],
      ['a', 'b', 'c', 'd', 'e', '--help'],
      ['--version'],
    ]) {
      // The width (a stat of stdout, node:tty on a terminal) is not even asked for.
      const width = () => {
        throw new Error(`width asked for ${argv.join(' ')}`);
      };
      expect(helpCacheFile(argv, buildId(dist), cache, width), argv.join(' ')).toBeUndefined();
    }
  });

  it('no cache directory (NODE_DISABLE_COMPILE_CACHE), no build id, or an id that is not one: no help cache', () => {
    expect(helpCacheFile(['--help'], buildId(dist), undefined, () => 80)).toBeUndefined();
    writeFileSync(join(dist, 'build-id'), '../../etc\n');
    expect(helpCacheFile(['--help'], buildId(dist), cache, () => 80)).toBeUndefined();
    rmSync(join(dist, 'build-id'));
    expect(helpCacheFile(['--help'], buildId(dist), cache, () => 80)).toBeUndefined();
  });

  it('another build names other files, so a new version never prints an old help', () => {
    const before = helpCacheFile(['--help'], buildId(dist), cache, () => 80);
    writeFileSync(join(dist, 'build-id'), 'fedcba9876543210\n');
    expect(helpCacheFile(['--help'], buildId(dist), cache, () => 80)).not.toBe(before);
  });
});

describe('keeping a help', () => {
  it('writes it whole (directory 0700, file 0600), reads it back, and leaves no temporary file', () => {
    const file = helpCacheFile(['servers', '--help'], buildId(dist), cache, () => 80)!;
    expect(readHelp(file)).toBeUndefined();
    keepHelp(file, 'Usage: gsh servers [options] [command]\n');
    expect(readHelp(file)).toBe('Usage: gsh servers [options] [command]\n');
    expect(statSync(cache).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(cache)).toEqual([file.slice(cache.length + 1)]);
  });

  it('a cache directory that cannot be written costs the kept help, nothing else', () => {
    writeFileSync(join(root, 'file'), '');
    const file = join(root, 'file', 'help-0123456789abcdef-80-gsh.txt');
    expect(() => keepHelp(file, 'text')).not.toThrow();
    expect(readHelp(file)).toBeUndefined();
  });
});

describe('a kept help is printed only when it is plain text (ARCHITECTURE.md "Doors")', () => {
  it('the launcher refuses every character the terminal sanitiser would change (it cannot load the sanitiser), and tab and \\r besides', () => {
    const missed: string[] = [];
    for (let code = 0; code <= 0xffff; code++) {
      const c = String.fromCharCode(code);
      if (c === '\n' || (code >= 0xd800 && code <= 0xdfff)) continue;
      if (visible(c) !== c && isPlainHelp(c)) missed.push(code.toString(16));
    }
    expect(missed).toEqual([]);
    for (const c of ['\t', '\r', '\x1b', '\x9b', '\u202e']) expect(isPlainHelp(`Usage: gsh ${c}`), JSON.stringify(c)).toBe(false);
    expect(isPlainHelp('Usage: gsh servers [options] [command]\n\n  –  ü  …\n')).toBe(true);
  });

  it('a kept help with an escape sequence is not read back, and such text is never kept', () => {
    const file = helpCacheFile(['--help'], buildId(dist), cache, () => 80)!;
    keepHelp(file, 'Usage: gsh \x1b]52;c;aGk=\x07\n');
    expect(readdirSync(root)).not.toContain('cache');
    mkdirSync(cache, { mode: 0o700 });
    writeFileSync(file, 'Usage: gsh \x1b]52;c;aGk=\x07\n', { mode: 0o600 });
    expect(readHelp(file)).toBeUndefined();
  });
});
