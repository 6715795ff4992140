import { VERSION } from './core/version.js';

// Entry point (bin/gsh.js imports this), and the one file that touches `process`: it builds the
// real context, runs the command line in it and hands back the exit code. Startup is a feature:
// `--version` answers before anything else loads; otherwise commander is loaded, every top-level
// word is registered by name only, and the code of just the word being run (its registry families
// and hand-written module) is imported and built. Nothing heavy is imported at the top of this file.

/** `gsh … | head` closes our stdout early: stop quietly, as other Unix tools do. */
function exitQuietlyOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<number> {
  exitQuietlyOnClosedPipe(process.stdout);
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const [{ run }, { processContext }] = await Promise.all([import('./program.js'), import('./core/context.js')]);
  return run(argv, processContext());
}
