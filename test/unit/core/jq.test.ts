import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Exit, GshError, UsageError } from '../../../src/core/errors.js';
import { compileJq, renderJq } from '../../../src/core/terminal/jq.js';

// --jq is real jq (1.7.1 in WebAssembly). The expectations are examples of the jq 1.7 manual
// (https://jqlang.org/manual/v1.7/), each program with its documented input and outputs.
interface Example { program: string; input: string; output: string[] }
const examples = JSON.parse(readFileSync(new URL('../../fixtures/jq-manual-examples.json', import.meta.url), 'utf8')) as Example[];

describe('jq manual examples', () => {
  it.each(examples.map((e) => [e.program, e] as const))('%s', async (_name, e) => {
    const filter = await compileJq(e.program);
    expect(await filter.apply(JSON.parse(e.input))).toEqual(e.output.map((o) => JSON.parse(o)));
  });
});

describe('compiling before anything is sent', () => {
  it.each(['.[', 'foo(', 'map(', 'foo(1)', '$undefined', '.a | ', '{a:}'])('%s is a usage error (exit 2) naming the problem', async (expr) => {
    const err = await compileJq(expr).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).exitCode).toBe(Exit.usage);
    expect((err as UsageError).message).toMatch(/^--jq: .*(syntax error|not defined)/);
    expect((err as UsageError).message).not.toContain('__gsh');
  });

  it('compiles without running: programs that would fail, loop or read input at run time compile', async () => {
    for (const expr of ['error("boom")', 'repeat(1)', 'input', '.a.b.c', '.[0] | test("x")', '.name # a trailing comment']) {
      await expect(compileJq(expr), expr).resolves.toBeDefined();
    }
  });

  it('an error while running on the answer exits 1 with jq\'s message', async () => {
    const filter = await compileJq('.a.b');
    const err = await filter.apply({ a: 5 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GshError);
    expect(err).not.toBeInstanceOf(UsageError);
    expect((err as GshError).exitCode).toBe(Exit.error);
    expect((err as GshError).message).toBe('jq: Cannot index number with string "b"');
  });

  it('applies to any JSON value, null and scalars included, more than once', async () => {
    const filter = await compileJq('type');
    expect(await filter.apply(null)).toEqual(['null']);
    expect(await filter.apply(3)).toEqual(['number']);
    expect(await filter.apply('x')).toEqual(['string']);
  });
});

describe('inputs of any size', () => {
  // 5,000 servers shaped like a `servers list --all` answer, about 1.7 MB of JSON. The package's own
  // wrapper fed jq one byte at a time, copying the rest of the input for each (80 s for this).
  const servers = Array.from({ length: 5000 }, (_, i) => ({
    id: `srv-${i}`, name: `Sérveur ${i} 🎮`, status: i % 3 ? 'running' : 'offline', tags: ['a', 'b'], node: { region: 'eu-west', cpu: i / 7 },
    notes: 'x'.repeat(200),
  }));

  it('reads the whole input and gives every output, multi-byte text intact', async () => {
    expect(await (await compileJq('length')).apply(servers)).toEqual([5000]);
    expect(await (await compileJq('.[4999].name')).apply(servers)).toEqual(['Sérveur 4999 🎮']);
    expect(await (await compileJq('.[]')).apply(servers)).toEqual(servers);
    expect(await (await compileJq('[.[] | select(.status == "offline")] | length')).apply(servers)).toEqual([1667]);
  });

  it('reads exactly one input, to its end', async () => {
    expect(await (await compileJq('[., inputs]')).apply({ a: 1 })).toEqual([[{ a: 1 }]]);
  });

  it('an error after some outputs is still an error (jq exits 5), not a shorter answer', async () => {
    const err = await (await compileJq('.[] | .a')).apply([{ a: 1 }, 5]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GshError);
    expect((err as GshError).message).toBe('jq: Cannot index number with string "a"');
  });
});

describe('rendering', () => {
  it('strings raw, one per line; other values as JSON, compact when piped and indented on a terminal', () => {
    expect(renderJq(['a b', 'line\nbreak', 1, null, { a: [1] }], false)).toBe('a b\nline\nbreak\n1\nnull\n{"a":[1]}\n');
    expect(renderJq([{ a: 1 }], true)).toBe('{\n  "a": 1\n}\n');
    expect(renderJq([], false)).toBe('');
  });
});

describe('loaded only for --jq', () => {
  it('the engine is in a chunk that only dynamic imports reach, never in what every start loads', () => {
    // esbuild's metafile of the build `npm test` runs first (kept out of bin/dist/ and the package).
    const meta = JSON.parse(readFileSync(new URL('../../../node_modules/.cache/gsh/meta.json', import.meta.url), 'utf8')) as {
      outputs: Record<string, { inputs: Record<string, unknown>; imports: { path: string; kind: string }[] }>;
    };
    // The build bundles jq-wasm's factory from node_modules/.cache/gsh/jq-wasm/ (its module moved out).
    const engineChunks = Object.keys(meta.outputs).filter((o) => Object.keys(meta.outputs[o]!.inputs).some((i) => /\/jq-wasm\/.*jq\.js$/.test(i)));
    expect(engineChunks).toHaveLength(1);
    const atStart = new Set<string>();
    const visit = (file: string) => {
      if (atStart.has(file)) return;
      atStart.add(file);
      for (const i of meta.outputs[file]?.imports ?? []) if (i.kind === 'import-statement') visit(i.path);
    };
    visit('node_modules/.cache/gsh/esm/cli.cjs');
    expect([...atStart].filter((f) => engineChunks.includes(f))).toEqual([]);
  });
});

describe('the WebAssembly module beside the bundle', () => {
  it('bin/dist/jq.wasm holds jq\'s module and the bundled factory no longer inlines it', () => {
    const dist = new URL('../../../bin/dist/', import.meta.url);
    const wasm = readFileSync(new URL('jq.wasm', dist));
    expect([...wasm.subarray(0, 4)]).toEqual([0x00, 0x61, 0x73, 0x6d]);
    const inlined = /data:application\/octet-stream;base64,([A-Za-z0-9+/=]+)/.exec(readFileSync(new URL('../../../node_modules/jq-wasm/dist/build/jq.js', import.meta.url), 'utf8'));
    expect(wasm.equals(Buffer.from(inlined![1]!, 'base64'))).toBe(true);
    const factory = readdirSync(new URL('chunks/', dist)).filter((f) => f.startsWith('jq-')).map((f) => readFileSync(new URL(`chunks/${f}`, dist), 'utf8'));
    expect(factory.some((text) => text.includes('callMain'))).toBe(true);
    expect(factory.filter((text) => /base64,[A-Za-z0-9+/=]{100}/.test(text))).toEqual([]);
  });
});
