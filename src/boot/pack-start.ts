// Build step, not part of the bundle: `npm run build` runs it last (through esbuild, as
// `node - bin/dist <metafile>`). Writes the packs: chunks that are loaded together, each pack one
// file, so the launcher's loader reads one source and one code cache for them instead of one per
// chunk (src/boot/bundle-loader.ts). esbuild has no way to merge chunks; it names them by hash.
// The chunk files stay where they are: the loader runs a chunk from the pack when one holds it.
//   - bin/dist/start.cjs: what every command loads (bin/dist/cli.cjs, what it requires, and the
//     program and context it imports in main());
//   - bin/dist/start-tree.cjs: the builder of generated commands (commands/registry-commands.ts)
//     and what it requires: every word with registry families, its help included;
//   - bin/dist/start-leaf.cjs: running a generated command (leaf/run.ts, and the shared rate
//     budget every request with a credential takes, core/run/shared-budget.ts).
// A pack holds a chunk and what it requires at load time, never what it imports lazily, and no
// chunk an earlier pack holds: a lazy import stays lazy. start.cjs also says which pack holds
// each chunk of the others (its "packs" entry), so the loader reads a pack when the first chunk it
// holds is required, and never otherwise.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const dist = resolve(process.argv[2] ?? 'bin/dist');
const meta = JSON.parse(readFileSync(resolve(process.argv[3] ?? 'node_modules/.cache/gsh/meta.json'), 'utf8')) as {
  outputs: Record<string, { entryPoint?: string }>;
};
// A chunk's requires of other chunks: `require("./chunk-X.cjs")` at load time, and the dynamic
// imports esbuild turned into `Promise.resolve().then(() => i(require("./x.cjs")))`.
const REQUIRE = /(then\(\(\)=>\w*\()?require\("(\.\/[^"]+\.cjs)"\)/g;

/** The chunk built for a source that is imported lazily (its own entry in the metafile). */
function chunkOf(source: string): string {
  const out = Object.entries(meta.outputs).find(([, o]) => o.entryPoint === source)?.[0];
  if (out === undefined) throw new Error(`pack-start: no chunk for ${source}`);
  // The metafile names the ES module build (node_modules/.cache/gsh/esm/…); bin/dist mirrors it.
  return join(dist, out.slice(out.indexOf('/esm/') + '/esm/'.length));
}

const taken = new Set<string>();
function collect(file: string, withImports: boolean, into: string[]): void {
  if (taken.has(file)) return;
  taken.add(file);
  into.push(file);
  for (const [, dynamic, id] of readFileSync(file, 'utf8').matchAll(REQUIRE)) {
    // Only main()'s own imports (program, context) are loaded by every command; a dynamic import
    // deeper down is one command's.
    if (!dynamic || withImports) collect(join(dirname(file), id!), false, into);
  }
}

const start: string[] = [];
collect(join(dist, 'cli.cjs'), true, start);
const others = [
  { name: 'start-tree.cjs', roots: ['src/commands/registry-commands.ts'] },
  { name: 'start-leaf.cjs', roots: ['src/leaf/run.ts', 'src/core/run/shared-budget.ts'] },
].map(({ name, roots }) => {
  const files: string[] = [];
  for (const root of roots) collect(chunkOf(root), false, files);
  return { name, files };
});

const id = (file: string): string => relative(dist, file).split('\\').join('/');
const wrap = (file: string): string => `${JSON.stringify(id(file))}: function (exports, require, module, __filename, __dirname) {\n${readFileSync(file, 'utf8')}\n}`;
const write = (name: string, entries: string[]): void => writeFileSync(join(dist, name), `module.exports = {\n${entries.join(',\n')}\n};\n`);
const index = Object.fromEntries(others.flatMap(({ name, files }) => files.map((f) => [id(f), name])));
write('start.cjs', [`"packs": ${JSON.stringify(index)}`, ...start.map(wrap)]);
for (const { name, files } of others) write(name, files.map(wrap));
