#!/usr/bin/env node
'use strict';
// The launcher, CommonJS on purpose (bin/package.json): `gsh --version` is answered here before
// Node starts its ES module loader, which alone costs about a tenth of a bare `node` start.
// Everything else is the bundled CLI, an ES module: dist/cli.js main() runs the command line.

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  try {
    require('node:fs').writeSync(1, `${require('../package.json').version}\n`);
  } catch (err) {
    // A reader that went away (`gsh --version | true`) is no error; a full disk is one line.
    if (err.code !== 'EPIPE') {
      process.stderr.write(`gsh: cannot write to standard output: ${err.code || err.message}\n`);
      process.exitCode = 1;
    }
  }
} else {
  import('../dist/cli.js').then(async ({ main }) => {
    process.exitCode = await main(argv);
  });
}
