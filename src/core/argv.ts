/** Global options that take a value, so the word finder can skip their values. */
const VALUE_FLAGS = new Set(['--profile', '--base-url', '-o', '--output', '--color', '--jq', '--columns', '--idempotency-key', '--retries', '--timeout', '--request-timeout']);

/** The top-level word argv runs (`help servers` → servers), or undefined for the program itself. */
export function findWord(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--') return undefined;
    if (a.startsWith('-')) {
      if (VALUE_FLAGS.has(a)) i++;
      continue;
    }
    if (a === 'help') continue;
    return a;
  }
  return undefined;
}
