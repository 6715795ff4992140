import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { colorEnabled, streamsFor, type Streams } from '../../../src/core/io.js';
import { fitWidths, inferColumns, Output } from '../../../src/core/output.js';
import { testContext } from '../../helpers/context.js';

/** The streams of a test context (no colour unless asked), its stdout captured. */
function streams(tty: boolean, columns = 80, color = false): Streams & { text(): string } {
  const ctx = testContext({ env: color ? { FORCE_COLOR: '1' } : { NO_COLOR: '1' }, tty: { stdout: tty, stderr: tty, columns } });
  return { ...streamsFor(ctx), text: () => ctx.stdout.text() };
}

const items = [
  { object: 'server', id: 'a1', name: 'alpha', status: { state: 'running' }, tags: ['x', 'y'] },
  { object: 'server', id: 'b2', name: 'beta', status: { state: 'offline' }, tags: [] },
];

describe('output formats (DESIGN.md "Output")', () => {
  it('json prints the data; jsonl one item per line', async () => {
    const s = streams(false);
    await new Output(s, 'json').show(items);
    expect(JSON.parse(s.text())).toEqual(items);
    const l = streams(false);
    await new Output(l, 'jsonl').show(items);
    expect(l.text().trim().split('\n').map((x) => JSON.parse(x))).toEqual(items);
  });

  it('yaml round-trips', async () => {
    const s = streams(false);
    await new Output(s, 'yaml').show({ a: 1, b: ['x'] });
    expect(s.text()).toBe('a: 1\nb:\n  - x\n');
  });

  it('piped tables are tab-separated rows without a header', async () => {
    const s = streams(false);
    await new Output(s, 'table').show(items, { columns: ['id', 'name', 'status.state', 'tags'] });
    expect(s.text()).toBe('a1\talpha\trunning\tx, y\nb2\tbeta\toffline\t\n');
  });

  it('terminal tables have a header and fit the width', async () => {
    const s = streams(true, 30);
    await new Output(s, 'table').show([{ id: '1', name: 'x'.repeat(60) }], { columns: ['id', 'name'] });
    const lines = s.text().trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME$/);
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(30);
    expect(lines[1]).toContain('…');
  });

  it("a terminal table's header is bold exactly when the run's streams have colour, whatever the process's own stdout allows", async () => {
    // cli-table3 styles through @colors, which decides from process.stdout and process.env.
    const colors = createRequire(import.meta.url)('@colors/colors/safe') as { enabled: boolean };
    const was = colors.enabled;
    try {
      for (const processColour of [false, true]) {
        colors.enabled = processColour;
        const on = streams(true, 40, true);
        await new Output(on, 'table').show([{ id: '1', name: 'a' }], { columns: ['id', 'name'] });
        expect(on.text().split('\n')[0], `process colour ${processColour}`).toMatch(/^\x1b\[1mID\x1b\[22m\s+\x1b\[1mNAME\x1b\[22m$/);
        const off = streams(true, 40, false);
        await new Output(off, 'table').show([{ id: '1', name: 'a' }], { columns: ['id', 'name'] });
        expect(off.text()).not.toContain('\x1b[');
      }
    } finally {
      colors.enabled = was;
    }
  });

  it('objects print as key/value rows, nested as dot paths', async () => {
    const s = streams(false);
    await new Output(s, 'table').show({ account: { id: 1, username: 'u' }, key: { scopes: ['*'] } });
    expect(s.text()).toBe('account.id\t1\naccount.username\tu\nkey.scopes\t*\n');
  });

  it('infers id and name first, skipping object and nested maps', () => {
    expect(inferColumns(items)).toEqual(['id', 'name', 'tags']);
  });

  it('shrinks the widest column first', () => {
    expect(fitWidths([10, 50], 40)).toEqual([10, 26]);
  });

  it('colour: --no-color and NO_COLOR win over a TTY; FORCE_COLOR forces', () => {
    expect(colorEnabled({}, true, false)).toBe(true);
    expect(colorEnabled({}, false, false)).toBe(false);
    expect(colorEnabled({ NO_COLOR: '1' }, true, false)).toBe(false);
    expect(colorEnabled({ FORCE_COLOR: '1' }, false, false)).toBe(true);
    expect(colorEnabled({ FORCE_COLOR: '0' }, true, false)).toBe(false);
    expect(colorEnabled({ FORCE_COLOR: '1' }, true, true)).toBe(false);
  });
});
