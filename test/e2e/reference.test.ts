import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceEntry } from '../../src/docs/reference.js';
import { type E2E, setup } from './helpers.js';

// Issue 3 item 3, the way it is checked: for an operation, the leaf that `gsh reference --json`
// names for it, run with its required arguments and flags, must reach that method and path.
const tsv = readFileSync(new URL('../fixtures/spec/operations.tsv', import.meta.url), 'utf8');
const specOps = tsv.split('\n').slice(1).filter((l) => l.trim()).map((l) => l.split('\t').join(' '));

let t: E2E;
let entries: ReferenceEntry[];
beforeAll(async () => {
  t = await setup({ servers: 2 });
  const r = await t.gsh(['reference', '--json']);
  expect(r.exitCode).toBe(0);
  entries = JSON.parse(String(r.stdout)) as ReferenceEntry[];
});
afterAll(async () => {
  await t.close();
});

/** argv for an entry: argument values (from its example where it has them), a real server (as the argument or -s), and each required flag with a documented or example value. */
function invocation(e: ReferenceEntry, server: string): string[] {
  const words = e.command.split(' ');
  const example = e.example?.split(' ') ?? [];
  // The example's positional values first (they pass client-side checks such as UUIDs).
  const examplePositionals = example.slice(1 + words.length).filter((w, i, all) => !w.startsWith('-') && !all[i - 1]?.startsWith('-'));
  const argv = [...words, ...e.arguments.filter((a) => a.required).map((_, i) => examplePositionals[i] ?? 'x1')];
  // Where the server may be the argument (`gsh power restart lobby`), -s is not required: give it there.
  if (e.arguments.some((a) => a.name === 'server')) argv.push(server);
  for (const o of e.options.filter((x) => x.required)) {
    const long = /--[\w-]+/.exec(o.flags)![0];
    if (long === '--server') argv.push(long, server);
    else argv.push(long, o.choices?.[0] ?? example[example.indexOf(long) + 1] ?? 'x1');
  }
  return [...argv, '--yes'];
}

describe('gsh reference --json against the sandbox', () => {
  it('names every operation of the contract', () => {
    const named = new Set(entries.flatMap((e) => e.operations.map((o) => `${o.method} ${o.path}`)));
    expect(specOps.filter((op) => !named.has(op))).toEqual([]);
  });

  // Every 20th operation of operations.tsv (families spread over both documents), plus power.
  const sample = [...specOps.filter((_, i) => i % 20 === 0), 'POST /servers/{server_id}/power'];
  it.each(sample)('%s is reached by the leaf that names it', async (op) => {
    const [method, path] = op.split(' ') as [string, string];
    const e = entries.find((x) => x.operations.some((o) => o.method === method && o.path === path))!;
    const server = [...t.sandbox.state.servers.values()][0]!.id;
    const before = t.sandbox.log.length;
    const r = await t.gsh(invocation(e, server));
    const reached = t.sandbox.log.slice(before).some((l) => l.method === method && l.route === path);
    expect(reached, `${invocation(e, server).join(' ')}: exit ${r.exitCode} ${String(r.stderr)}`).toBe(true);
  });
});
