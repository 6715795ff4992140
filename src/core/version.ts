import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// Read once from gsh's package.json (one source of truth), found from this file's place: the
// bundle's entry (bin/dist/cli.cjs) and its chunks (bin/dist/chunks/) sit two and three levels
// below it, src/core/ under vitest two. bin/package.json, nearer to the bundle, only sets the
// module type and carries no version, so the first package.json with gsh's name wins. A path from
// import.meta.dirname (the bundle defines it as __dirname), not a URL from import.meta.url: that
// would load node:url and parse a URL on every start, `gsh --help` included.
function readVersion(): string {
  for (const rel of ['../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(join(import.meta.dirname, rel), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'gsh' && pkg.version) return pkg.version;
    } catch {
      // try the next layout
    }
  }
  return '0.0.0';
}

export const VERSION = readVersion();
