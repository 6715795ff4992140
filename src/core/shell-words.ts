// Commands gsh prints for a person or a script to run next (a replay, the `gsh wait` that resumes
// a wait): each word quoted for a POSIX shell only where it needs it, so the line runs as printed.

/** One word as a POSIX shell reads it back: bare when it is plain, else in single quotes. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/** A command line from its words. */
export function shellLine(words: readonly string[]): string {
  return words.map(shellWord).join(' ');
}
