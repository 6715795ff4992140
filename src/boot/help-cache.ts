import { readFileSync } from 'node:fs';
import { sep } from 'node:path';
import { makePrivateDir, readPrivateFile, replaceFile } from '../core/disk/disk.js';

// `gsh --help`, `gsh servers --help`: the text commander renders is a function of the bundle, the
// command words and the help width, nothing else (no context reaches a help; the help-purity test
// holds that). So the first run at a width keeps what it printed in the cache directory, beside
// the code cache, and later runs print it from the launcher without loading the bundle: the
// cheapest help is the one not rendered again. The file is named after the bundle's build id
// (bin/dist/build-id, a hash of every bundle file, written by src/boot/stamp-build.ts), so a new
// build or version never reads an old help; old files go with the code cache's 30-day sweep.
// A kept help is read only from a checked directory (core/disk/disk.ts privateDirProblem, asked by the
// launcher), only from a plain file of the user's own (never through a link), and printed only
// when it holds plain text: a help with a control character or an escape sequence in it is not
// one gsh wrote, and it is rendered again instead (ARCHITECTURE.md "Doors").

/** A word of argv that can name a command (`servers`, `list`, `ssh-keys`): lowercase, short. */
export const COMMAND_WORD = /^[a-z][a-z0-9-]{0,39}$/;

/** The build id of the bundle in `dist` (bin/dist/build-id), or undefined when it has none. */
export function buildId(dist: string): string | undefined {
  try {
    const id = readFileSync(`${dist}${sep}build-id`, 'latin1').trim();
    return /^[0-9a-f]{8,64}$/.test(id) ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The cache file for this argv, or undefined when argv is not a plain help request (command
 * words then `--help`/`-h`, or nothing at all: plain `gsh` prints the root help; any other flag,
 * any word that is not a lowercase command word, a shell's `__complete` is not) or there is no
 * cache directory or build id. `width` is asked only for a help request.
 */
export function helpCacheFile(argv: readonly string[], build: string | undefined, cacheDir: string | undefined, width: () => number): string | undefined {
  if (!cacheDir || !build) return undefined;
  const words = argv.length === 0 ? [] : argv.slice(0, -1);
  if (argv.length > 0 && argv.at(-1) !== '--help' && argv.at(-1) !== '-h') return undefined;
  if (words.length > 4 || !words.every((w) => COMMAND_WORD.test(w))) return undefined;
  return `${cacheDir}${sep}help-${build}-${width()}-${['gsh', ...words].join('.')}.txt`;
}

// What the terminal sanitiser (core/terminal/terminal-text.ts visible()) would change, and tab and \r
// besides: C0 and C1 controls, DEL, bidi controls and zero-width characters. The launcher does not
// load the bundle, so it cannot call the sanitiser; test/unit/boot/help-cache.test.ts holds the
// two together. Commander's help has none of them.
// eslint-disable-next-line no-control-regex
const NOT_PLAIN = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;

/** True when `text` holds no control character but newline (nothing a terminal would obey). */
export function isPlainHelp(text: string): boolean {
  return !NOT_PLAIN.test(text);
}

/**
 * The help text kept in `file`, or undefined when there is none, it cannot be read, it is not a
 * plain file of the user's own, or it is not plain text (then the help is rendered again).
 */
export function readHelp(file: string): string | undefined {
  const text = readPrivateFile(file)?.toString('utf8');
  return text !== undefined && isPlainHelp(text) ? text : undefined;
}

/** Keeps `text` in `file`, atomically; a read-only or full disk only means rendering again. */
export function keepHelp(file: string, text: string): void {
  if (!isPlainHelp(text)) return;
  try {
    if (makePrivateDir(file.slice(0, file.lastIndexOf(sep))) === undefined) replaceFile(file, text);
  } catch {
    // Nothing lost: the next run renders the help again.
  }
}
