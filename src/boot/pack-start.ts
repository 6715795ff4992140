// Build step, not part of the bundle: `npm run build` runs it last (through esbuild, as
// `node - bin/dist`). Writes bin/dist/start.cjs, the chunks every command
// loads (bin/dist/cli.cjs, what it requires, and the program and context it imports in main())
// as one file, so the launcher's loader reads one source and one code cache for them instead of
// fifteen (src/boot/bundle-loader.ts). esbuild has no way to merge chunks; it names them by hash.
// The chunk files stay where they are: the loader runs a chunk from the pack when it holds it.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const dist = resolve(process.argv[2] ?? 'bin/dist');
const entry = join(dist, 'cli.cjs');
// A chunk's requires of other chunks: `require("./chunk-X.cjs")` at load time, and the dynamic
// imports esbuild turned into `Promise.resolve().then(() => i(require("./x.cjs")))`.
const REQUIRE = /(then\(\(\)=>\w*\()?require\("(\.\/[^"]+\.cjs)"\)/g;

const packed: string[] = [];
function add(file: string, withImports: boolean): void {
  if (packed.includes(file)) return;
  packed.push(file);
  for (const [, dynamic, id] of readFileSync(file, 'utf8').matchAll(REQUIRE)) {
    // Only main()'s own imports (program, context) are loaded by every command; a dynamic import
    // deeper down is one command's.
    if (!dynamic || withImports) add(join(dirname(file), id!), false);
  }
}
add(entry, true);

const wrap = (file: string): string => `${JSON.stringify(relative(dist, file).split('\\').join('/'))}: function (exports, require, module, __filename, __dirname) {\n${readFileSync(file, 'utf8')}\n}`;
writeFileSync(join(dist, 'start.cjs'), `module.exports = {\n${packed.map(wrap).join(',\n')}\n};\n`);
