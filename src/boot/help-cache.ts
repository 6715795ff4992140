import { mkdirSync, readFileSync } from 'node:fs';
import { sep } from 'node:path';
import { replaceFile } from './cache-file.js';

// `gsh --help`, `gsh servers --help`: the text commander renders is a function of the bundle, the
// command words and the help width, nothing else (no context reaches a help; the help-purity test
// holds that). So the first run at a width keeps what it printed in the cache directory, beside
// the code cache, and later runs print it from the launcher without loading the bundle: the
// cheapest help is the one not rendered again. The file is named after the bundle's build id
// (bin/dist/build-id, a hash of every bundle file, written by src/boot/stamp-build.ts), so a new
// build or version never reads an old help; old files go with the code cache's 30-day sweep.

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

/** The help text kept in `file`, or undefined when there is none (or it cannot be read). */
export function readHelp(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** Keeps `text` in `file`, atomically; a read-only or full disk only means rendering again. */
export function keepHelp(file: string, text: string): void {
  try {
    mkdirSync(file.slice(0, file.lastIndexOf(sep)), { recursive: true, mode: 0o700 });
    replaceFile(file, text);
  } catch {
    // Nothing lost: the next run renders the help again.
  }
}
