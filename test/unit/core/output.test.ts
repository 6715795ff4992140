import { describe, expect, it } from 'vitest';
import { colorEnabled, colorWhen, colorWhenIn, streamsFor, type Streams } from '../../../src/core/terminal/io.js';
import { parse } from 'csv-parse/sync';
import { columnsOf, fitWidths, Output } from '../../../src/core/terminal/output.js';
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

describe('output formats (ARCHITECTURE.md "Output for scripts")', () => {
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

  it("a terminal table's header is bold exactly when the run's streams have colour", async () => {
    const on = streams(true, 40, true);
    await new Output(on, 'table').show([{ id: '1', name: 'a' }], { columns: ['id', 'name'] });
    expect(on.text().split('\n')[0]).toMatch(/^\x1b\[1mID\x1b\[22m\s+\x1b\[1mNAME\x1b\[22m$/);
    const off = streams(true, 40, false);
    await new Output(off, 'table').show([{ id: '1', name: 'a' }], { columns: ['id', 'name'] });
    expect(off.text()).not.toContain('\x1b[');
  });

  // Issue #44: width is what the terminal draws (graphemes, wide East-Asian characters as 2), and
  // a cell is one line whatever the service put in it.
  it('a terminal table lines up wide names and cuts them by display width; a cell holds one line', async () => {
    const s = streams(true, 24);
    await new Output(s, 'table').show(
      [{ id: 'a1', name: '日本語のサーバー名前', zone: 'eu' }, { id: 'b2', name: 'x\ny\tz', zone: 'us' }],
      { columns: ['id', 'name', 'zone'] },
    );
    const lines = s.text().trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    // Names first (issue 50): ZONE is dropped before the name is cut, to 18 columns here; the next wide character would need 19.
    expect(lines[1]).toBe('a1  日本語のサーバー…');
    expect(lines[2]).toBe('b2  x^Jy^Iz');
    expect(lines[0]).toBe('ID  NAME');
    const { displayWidth } = await import('../../../src/core/terminal/terminal-text.js');
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(24);
    // With room for it, the last column starts at one place on every line.
    const wide = streams(true, 32);
    await new Output(wide, 'table').show([{ id: 'a1', name: '日本語のサーバー名前', zone: 'eu' }, { id: 'b2', name: 'x\ny\tz', zone: 'us' }], { columns: ['id', 'name', 'zone'] });
    const all = wide.text().trimEnd().split('\n');
    expect(all.map((l) => displayWidth(l.slice(0, l.lastIndexOf(' ') + 1)))).toEqual([26, 26, 26]);
  });

  it('objects print as key/value rows, nested as dot paths', async () => {
    const s = streams(false);
    await new Output(s, 'table').show({ account: { id: 1, username: 'u' }, key: { scopes: ['*'] } });
    expect(s.text()).toBe('account.id\t1\naccount.username\tu\nkey.scopes\t*\n');
  });

  it('an answer the registry does not describe shows every field, in the order they first appear', () => {
    expect(columnsOf(items)).toEqual(['object', 'id', 'name', 'status.state', 'tags']);
    expect(columnsOf(['a', 'b'])).toEqual(['.']);
  });

  it('shrinks the widest column that may be cut; ids are never cut', () => {
    expect(fitWidths([10, 50], 40)).toEqual([10, 26]);
    expect(fitWidths([40, 30], 50, [true, false])).toEqual([40, 6]);
  });

  it("colour, gh's rules: --color beats the environment; CLICOLOR_FORCE/FORCE_COLOR force; NO_COLOR/CLICOLOR=0 disable; else a TTY", () => {
    expect(colorEnabled({}, true)).toBe(true);
    expect(colorEnabled({}, false)).toBe(false);
    expect(colorEnabled({ TERM: 'dumb' }, true)).toBe(false);
    expect(colorEnabled({ NO_COLOR: '1' }, true)).toBe(false);
    expect(colorEnabled({ NO_COLOR: '' }, true)).toBe(true);
    expect(colorEnabled({ CLICOLOR: '0' }, true)).toBe(false);
    expect(colorEnabled({ FORCE_COLOR: '1' }, false)).toBe(true);
    expect(colorEnabled({ FORCE_COLOR: '0' }, true)).toBe(false);
    expect(colorEnabled({ CLICOLOR_FORCE: '1' }, false)).toBe(true);
    expect(colorEnabled({ CLICOLOR_FORCE: '0' }, false)).toBe(false);
    expect(colorEnabled({ CLICOLOR_FORCE: '1', NO_COLOR: '1' }, false)).toBe(true);
    expect(colorEnabled({ FORCE_COLOR: '1' }, true, 'never')).toBe(false);
    expect(colorEnabled({ NO_COLOR: '1' }, false, 'always')).toBe(true);
  });

  it('the colour flag as typed: the last of --color X, --color=X and --no-color wins', () => {
    expect(colorWhenIn(['servers', 'list'])).toBe('auto');
    expect(colorWhenIn(['--color', 'always', 'servers', 'list'])).toBe('always');
    expect(colorWhenIn(['servers', 'list', '--color=never'])).toBe('never');
    expect(colorWhenIn(['--color', 'always', '--no-color'])).toBe('never');
    expect(colorWhenIn(['api', '/x', '--', '--no-color'])).toBe('auto');
    expect(colorWhen(false)).toBe('never');
    expect(colorWhen(undefined)).toBe('auto');
  });
});

// ARCHITECTURE.md "Output for scripts": csv (RFC 4180) and tsv with a header row, --columns,
// --no-header, -q.
describe('column formats and ids', () => {
  const tricky = [
    { id: 'a1', name: 'comma, "quoted"', note: 'line one\nline two', n: 3 },
    { id: 'b2', name: 'tab\there', note: 'back\\slash', n: null },
  ];

  it('csv is RFC 4180: a header row, quotes where needed, CRLF; it round-trips through a CSV parser', async () => {
    const s = streams(false);
    await new Output(s, 'csv').show(tricky, { columns: ['id', 'name', 'note', 'n'] });
    expect(s.text()).toContain('\r\n');
    expect(parse(s.text(), { relax_column_count: false })).toEqual([
      ['id', 'name', 'note', 'n'],
      ['a1', 'comma, "quoted"', 'line one\nline two', '3'],
      ['b2', 'tab\there', 'back\\slash', ''],
    ]);
  });

  // Issue #44: RFC 4180 quotes a field with a CR too; unquoted, a bare CR splits or forges rows.
  it('csv quotes a field holding a bare CR, so every row parses to the header\'s width', async () => {
    const s = streams(false);
    await new Output(s, 'csv').show([{ id: 'a1', name: 'evil\rb9,forged' }, { id: 'b2', name: 'cr\r' }], { columns: ['id', 'name'] });
    expect(s.text()).toBe('id,name\r\na1,"evil\rb9,forged"\r\nb2,"cr\r"\r\n');
    // A reader that takes CR, LF or CRLF as a line end (Python's csv module) throws on a row of another width.
    const rows = parse(s.text(), { record_delimiter: ['\r\n', '\n', '\r'] }) as string[][];
    expect(rows).toEqual([['id', 'name'], ['a1', 'evil\rb9,forged'], ['b2', 'cr\r']]);
  });

  it('tsv has a header row and escapes tabs, newlines and backslashes', async () => {
    const s = streams(false);
    await new Output(s, 'tsv').show(tricky, { columns: ['id', 'name', 'note'] });
    expect(s.text()).toBe('id\tname\tnote\na1\tcomma, "quoted"\tline one\\nline two\nb2\ttab\\there\tback\\\\slash\n');
  });

  it('--columns replaces the default columns and --no-header drops the header', async () => {
    const s = streams(false);
    await new Output(s, 'csv', { columns: ['name', 'status.state'], header: false, quiet: false }).show(items, { columns: ['id'] });
    expect(s.text()).toBe('alpha,running\r\nbeta,offline\r\n');
    const t = streams(true, 80);
    await new Output(t, 'table', { header: false, quiet: false }).show(items, { columns: ['id', 'name'] });
    expect(t.text()).not.toMatch(/ID|NAME/);
    expect(t.text()).toMatch(/^a1\s+alpha$/m);
  });

  it('a single object is one csv row of all its fields', async () => {
    const s = streams(false);
    await new Output(s, 'csv').show({ id: 'x', plan: { name: 'free' } });
    expect(parse(s.text())).toEqual([['id', 'plan.name'], ['x', 'free']]);
  });

  it('-q prints the identifier of each item, the declared one where it is not id', async () => {
    const s = streams(true);
    const quiet = new Output(s, 'table', { header: true, quiet: true });
    await quiet.show(items);
    await quiet.show([{ name: 'world' }, { name: 'nether' }], { idField: 'name' });
    expect(s.text()).toBe('a1\nb2\nworld\nnether\n');
    expect(quiet.streams).toBe(true);
  });
});

describe('rows of unknown shapes (issue 27)', () => {
  it('a nested object in a cell shows its name, slug or id, in that order; never raw JSON', async () => {
    const { formatCell } = await import('../../../src/core/terminal/output.js');
    expect(formatCell({ id: 3, slug: 'minecraft-fabric', name: 'Fabric' })).toBe('Fabric');
    expect(formatCell({ id: 3, slug: 'minecraft-fabric' })).toBe('minecraft-fabric');
    expect(formatCell({ id: 3 })).toBe('3');
    expect(formatCell({ rx: 1, tx: 2 })).toBe('rx=1, tx=2');
    expect(formatCell([{ name: 'a' }, { slug: 'b' }, 'c'])).toBe('a, b, c');
    const s = streams(false);
    await new Output(s, 'table').show([{ id: 'a1', application: { id: 3, slug: 'minecraft-fabric' } }], { columns: ['id', 'application'] });
    expect(s.text()).toBe('a1\tminecraft-fabric\n');
  });

  it('-q prints the id whatever the service names it, and says so when there is none', async () => {
    const { idOf } = await import('../../../src/core/terminal/output.js');
    expect(idOf({ uuid: 'u1' })).toBe('u1');
    expect(idOf({ id: 'i1', uuid: 'u1' })).toBe('i1');
    expect(idOf({ object: 'server_backup', backup_id: 'b1' })).toBe('b1');
    expect(idOf({ name: 'x' })).toBeUndefined();
    const s = streams(false);
    await expect(new Output(s, 'table', { header: true, quiet: true }).show({ name: 'x' })).rejects.toMatchObject({ exitCode: 1 });
  });

  it('--columns with a path no row has is an error naming it and the fields the rows have', async () => {
    const s = streams(false);
    const out = new Output(s, 'csv', { header: true, quiet: false, columns: ['id', 'nmae'] });
    const err = await out.show(items).catch((e: unknown) => e);
    expect((err as Error).message).toBe('--columns: no row has "nmae"; the rows have object, id, name, status.state, tags');
    expect(s.text()).toBe('');
    expect((err as { hint: string }).hint).toBe('Did you mean name?\nPick from the fields above (-o json shows whole rows).');
    const status = new Output(s, 'table', { header: true, quiet: false, columns: ['status.state'] });
    await expect(status.show([{ object: 'server', id: 'a' }])).rejects.toMatchObject({ hint: 'Server lists carry status only with --include-status.' });
    // The status hint only where it is true: server rows without status (README "Output").
    const typo = new Output(s, 'table', { header: true, quiet: false, columns: ['status.stat'] });
    const withStatus = await typo.show([{ object: 'server', id: 'a', status: { state: 'running' } }]).catch((e: unknown) => e);
    expect((withStatus as { hint: string }).hint).toBe('Did you mean status.state?\nPick from the fields above (-o json shows whole rows).');
    const backups = await status.show([{ object: 'server_backup', id: 'b' }]).catch((e: unknown) => e);
    expect((backups as { hint: string }).hint).not.toMatch(/include-status/);
    const leaf = new Output(s, 'table', { header: true, quiet: false, columns: ['state'] });
    await expect(leaf.show([{ object: 'server', id: 'a', status: { state: 'running' } }])).rejects.toMatchObject({ hint: expect.stringMatching(/^Did you mean status\.state\?/) });
    // A path some row has is fine (the others print an empty cell).
    await new Output(s, 'csv', { header: false, quiet: false, columns: ['id', 'status.state'] }).show([...items, { id: 'c3' }]);
    expect(s.text()).toBe('a1,running\r\nb2,offline\r\nc3,\r\n');
  });
});
