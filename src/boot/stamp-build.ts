// Build step, not part of the bundle: `npm run build` runs it last (through esbuild, as
// `node - bin/dist`). Writes bin/dist/build-id, a hash of every file of the bundle (the loader
// before the id is written into it, below): what a cache
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
const id = hash.digest('hex').slice(0, 16);
writeFileSync(join(dist, 'build-id'), `${id}\n`);
// The launcher's loader carries the id itself (src/boot/bundle-loader.ts STAMPED_BUILD_ID): one
// file fewer to read on every start.
const loader = join(dist, 'loader.cjs');
const text = readFileSync(loader, 'utf8');
const PLACEHOLDER = '@@gsh-build-id@@-';
if (text.split(PLACEHOLDER).length !== 2) throw new Error(`stamp-build: ${loader} holds the build id placeholder ${text.split(PLACEHOLDER).length - 1} times, not once`);
writeFileSync(loader, text.replace(PLACEHOLDER, id));
