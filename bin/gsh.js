#!/usr/bin/env node
// The launcher. `gsh --version` is answered here, before the bundled CLI (dist/cli.js and its
// chunks) loads; everything else is dist/cli.js main().
import { readFileSync, writeSync } from 'node:fs';

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  try {
    writeSync(1, `${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
  } catch (err) {
    // A reader that went away (`gsh --version | true`) is no error; a full disk is one line.
    if (err.code !== 'EPIPE') {
      process.stderr.write(`gsh: cannot write to standard output: ${err.code || err.message}\n`);
      process.exitCode = 1;
    }
  }
} else {
  const { main } = await import('../dist/cli.js');
  process.exitCode = await main(argv);
}
