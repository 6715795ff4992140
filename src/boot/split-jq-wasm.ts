// Build step, not part of the bundle: `npm run build` runs it first (through esbuild, as
// `node -`). jq-wasm inlines its WebAssembly in its factory as 1.2 MB of base64, which every --jq
// would read, search and decode. This writes the module to bin/dist/jq.wasm, where src/core/terminal/jq.ts
// (wasmBytes) reads it, and a copy of the factory without it, which the bundle is built from
// (the build's --alias for jq-wasm/dist/build/jq.js).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';

const source = readFileSync('node_modules/jq-wasm/dist/build/jq.js', 'utf8');
const inlined = /(data:application\/octet-stream;base64,)([A-Za-z0-9+/=]+)/.exec(source);
if (!inlined) throw new Error('jq-wasm no longer inlines its WebAssembly as base64: see src/core/terminal/jq.ts wasmBytes');
mkdirSync('bin/dist', { recursive: true });
writeFileSync('bin/dist/jq.wasm', Buffer.from(inlined[2]!, 'base64'));
mkdirSync('node_modules/.cache/gsh/jq-wasm', { recursive: true });
writeFileSync('node_modules/.cache/gsh/jq-wasm/jq.js', source.slice(0, inlined.index) + inlined[1] + source.slice(inlined.index + inlined[0].length));
