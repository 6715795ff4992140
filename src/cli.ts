import { VERSION } from './core/version.js';

// Entry point (bin/gsh.js imports this). Startup is a feature: `--version` answers before
// anything else loads; otherwise commander is loaded, every top-level word is registered by name
// only, and the code of just the word being run (its registry families and hand-written module)
// is imported and built. Nothing heavy is imported at the top of this file.

export async function main(argv: string[] = process.argv.slice(2)): Promise<number> {
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const { run } = await import('./program.js');
  return run(argv);
}
