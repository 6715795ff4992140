import { VALUE_FLAGS } from './global-flags.js';

/** The words of argv (not flags, not the values of global flags, not `help`), up to `--`. */
function words(argv: readonly string[]): string[] {
  const found: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--') break;
    if (a.startsWith('-')) {
      if (VALUE_FLAGS.has(a)) i++;
      continue;
    }
    if (a !== 'help') found.push(a);
  }
  return found;
}

/** The top-level word argv runs (`help servers` → servers), or undefined for the program itself. */
export function findWord(argv: readonly string[]): string | undefined {
  return words(argv)[0];
}

/** The words after the top-level word (`servers list --limit 5` → [list]). */
export function wordsAfter(argv: readonly string[]): string[] {
  return words(argv).slice(1);
}
