import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type E2E, setup } from './helpers.js';

// The smaller findings of issue 50 (item 9) end to end: a partial name that one server's name
// begins is offered as that server; `--jq … -o csv` with no rows writes nothing; `servers list
// --state` keeps the servers in one runtime state in the list's one request.

let t: E2E;
const PARTIAL = 'jade-summit';
const NAME = 'jade-summit-035';

beforeAll(async () => {
  // More servers than one page holds (MAX_PAGE, 100), so the one named so is not on the first.
  t = await setup({ servers: 120, clock: 'fast' });
  const all = [...t.sandbox.state.servers.values()];
  all.forEach((s, i) => (s.name = `a-server-${String(i).padStart(3, '0')}`));
  all.at(-1)!.name = NAME;
});
afterAll(() => t.close());

const logMark = () => t.sandbox.log.length;
const sentSince = (mark: number) => t.sandbox.log.slice(mark).map((e) => `${e.method} ${e.path}`);

describe('a name prefix that matches one server is offered (02-endpoints-part-a.md "Servers": search is a case-insensitive substring)', () => {
  it('servers get jade-summit: exit 5, "Did you mean jade-summit-035?", at most 3 requests', async () => {
    const mark = logMark();
    const r = await t.gsh(['servers', 'get', PARTIAL]);
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toMatch(new RegExp(`^Did you mean ${NAME}\\?$`, 'm'));
    expect(sentSince(mark).length).toBeLessThanOrEqual(3);
  });

  it('a mutation with -s jade-summit: the same, and nothing but lookups is sent', async () => {
    const mark = logMark();
    const r = await t.gsh(['power', 'restart', '-s', PARTIAL, '--yes']);
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toMatch(new RegExp(`^Did you mean ${NAME}\\?$`, 'm'));
    expect(sentSince(mark).every((l) => l.startsWith('GET '))).toBe(true);
  });
});

describe('--jq with -o csv and no rows', () => {
  it('writes nothing at all (no lone CRLF), with and without a header', async () => {
    for (const extra of [[], ['--no-header']]) {
      const r = await t.gsh(['servers', 'list', '--search', 'no-such-name', '--jq', '[.[] | {id, name}]', '-o', 'csv', ...extra]);
      expect(r.exitCode).toBe(0);
      expect(r.stdoutBytes.length).toBe(0);
    }
  });

  it('one row still has its header (CRLF ends each row)', async () => {
    const r = await t.gsh(['servers', 'list', '--search', NAME, '--jq', '[.[] | {name}]', '-o', 'csv']);
    expect(r.stdoutBytes.toString('utf8')).toBe(`name\r\n${NAME}\r\n`);
  });
});

describe('servers list --state (01-general-contract.md "States and transitions": offline, starting, running, stopping)', () => {
  it('one request with include=status; only servers in that state', async () => {
    const all = [...t.sandbox.state.servers.values()];
    const running = all.filter((s) => s.state === 'running').map((s) => s.id).sort();
    const mark = logMark();
    const r = await t.gsh(['servers', 'list', '--state', 'running', '--all', '-o', 'json']);
    expect(r.exitCode).toBe(0);
    const rows = JSON.parse(r.stdout) as { id: string; status?: { state?: string } }[];
    expect(rows.map((x) => x.id).sort()).toEqual(running);
    expect(rows.every((x) => x.status?.state === 'running')).toBe(true);
    const sent = t.sandbox.log.slice(mark);
    // --all over 120 servers: two pages, each carrying include=status; nothing else.
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((e) => e.method === 'GET' && e.path === '/servers' && e.query.include === 'status')).toBe(true);
  });

  it('jsonl streams only the kept servers', async () => {
    const r = await t.gsh(['servers', 'list', '--state', 'offline', '--all', '-o', 'jsonl']);
    expect(r.exitCode).toBe(0);
    for (const line of r.stdout.trim().split('\n').filter(Boolean)) expect(JSON.parse(line).status.state).toBe('offline');
  });

  it('an unknown state: exit 2 naming the valid ones, nothing sent', async () => {
    const mark = logMark();
    const r = await t.gsh(['servers', 'list', '--state', 'up']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--state must be one of: offline, starting, running, stopping (got "up")');
    expect(t.sandbox.log.length).toBe(mark);
  });

  it('--dry-run shows the one request with include=status', async () => {
    const r = await t.gsh(['servers', 'list', '--state', 'stopping', '--dry-run']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout + r.stderr).toMatch(/GET \S*\/servers\?\S*include=status/);
  });
});
