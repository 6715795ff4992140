#!/usr/bin/env node
'use strict';
// The launcher. `gsh --version` is answered here, before any of the bundle loads; everything else
// is bin/dist/cli.cjs main(), loaded with the code cache of bin/dist/loader.cjs (which also prints a
// help this build has printed before, src/boot/help-cache.ts). CommonJS throughout (see
// bin/package.json): Node's ES module loader alone costs about a tenth of `node -e 0`.
const { readFileSync, writeSync } = require('node:fs');
const { join } = require('node:path');

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  try {
    writeSync(1, `${JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')).version}\n`);
  } catch (err) {
    // A reader that went away (`gsh --version | true`) is no error; a full disk is one line.
    if (err.code !== 'EPIPE') {
      process.stderr.write(`gsh: cannot write to standard output: ${err.code || err.message}\n`);
      process.exitCode = 1;
    }
  }
} else {
  require('./dist/loader.cjs').runCli(join(__dirname, 'dist'), argv).then((code) => {
    process.exitCode = code;
  });
}
