// Build step, not part of the bundle: `npm run build` runs it last (through esbuild, as
// `node - bin/dist`). Writes bin/dist/build-id, a hash of every file of the bundle: what a cache
// that outlives one build is named after (src/boot/help-cache.ts), since file sizes and times
// say nothing across installs (npm gives every file of a package the same time).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const dist = resolve(process.argv[2] ?? 'bin/dist');
const hash = createHash('sha256');
const files = readdirSync(dist, { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() && e.name !== 'build-id')
  .map((e) => join(e.parentPath, e.name))
  .sort();
for (const file of files) hash.update(`${file.slice(dist.length)}\0`).update(readFileSync(file));
writeFileSync(join(dist, 'build-id'), `${hash.digest('hex').slice(0, 16)}\n`);
