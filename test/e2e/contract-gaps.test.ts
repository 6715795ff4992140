import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type E2E, setup } from './helpers.js';

// Issue 27: gsh against a server that keeps the contract but fills its gaps differently (the
// strict sandbox, src/sandbox/strict.ts): `application` an object where the default mode has a
// string (02-endpoints-part-a.md "Servers": "stable server metadata", no field list), and
// --columns paths that no row has.

let t: E2E;
beforeAll(async () => {
  t = await setup({ servers: 5, strict: true });
});
afterAll(async () => {
  await t.close();
});

describe('tables of unknown shapes', () => {
  it('servers list shows the application\'s name, never its JSON', async () => {
    const r = await t.gsh(['servers', 'list', '--columns', 'name,application,plan']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('{');
    expect(r.stdout.split('\n')[0]).toMatch(/^\S+\t(Minecraft: Java Edition|Terraria|[^\t{]+)\t(free|paid)$/);
  });

  it('--columns with a typo or status.* without --include-status: an error naming the path and the fields, after the first page only', async () => {
    for (const [columns, hint] of [['id,nmae', 'Pick from the fields above'], ['id,status.state', '--include-status']] as const) {
      const mark = t.sandbox.log.length;
      const r = await t.gsh(['servers', 'list', '--all', '--limit', '2', '-o', 'csv', '--columns', columns]);
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`--columns: no row has "${columns.split(',')[1]}"; the rows have object, id, name`);
      expect(r.stderr).toContain('application.slug');
      expect(r.stderr).toContain(hint);
      // 5 servers, pages of 2: the first page only.
      expect(t.sandbox.log.slice(mark).filter((e) => e.path === '/servers').length).toBe(1);
    }
    const ok = await t.gsh(['servers', 'list', '--all', '--include-status', '-o', 'csv', '--columns', 'name,status.state']);
    expect(ok.exitCode, ok.stderr).toBe(0);
  });

  it('a mistyped path gets "did you mean"; the --include-status hint only when status is absent (issue 37)', async () => {
    const typo = await t.gsh(['servers', 'list', '--include-status', '-o', 'csv', '--columns', 'name,status.stat']);
    expect(typo.exitCode).toBe(1);
    expect(typo.stderr).toMatch(/^Did you mean status\.state\?$/m);
    expect(typo.stderr).not.toContain('--include-status');
    const name = await t.gsh(['servers', 'list', '-o', 'csv', '--columns', 'nmae']);
    expect(name.stderr).toMatch(/^Did you mean name\?$/m);
  });
});

describe('a script never waits for a person (01-general-contract.md "States and transitions": ad_required)', () => {
  it('restart --wait of many servers without a terminal: the free ones needing an ad end at once with exit 7 and the URL, the others go on (exit 11)', async () => {
    const fleet = await setup({ servers: 6, strict: true, clock: 'fast' });
    try {
      const all = [...fleet.sandbox.state.servers.values()];
      const free = all.slice(0, 2);
      for (const s of free) s.adRequired = true;
      const r = await fleet.gsh(['power', 'restart', '--all-servers', '--wait', '--no-input', '-o', 'jsonl']);
      expect(r.exitCode, r.stderr).toBe(11);
      const lines = r.stdout.split('\n').map((l) => JSON.parse(l) as { server_id: string; ok: boolean; exit_code: number; action_url?: string; hint?: string });
      expect(lines).toHaveLength(all.length);
      for (const line of lines) {
        const needsAd = free.some((s) => s.id === line.server_id);
        expect([line.server_id, line.ok, line.exit_code]).toEqual([line.server_id, !needsAd, needsAd ? 7 : 0]);
        if (needsAd) {
          expect(line.action_url).toContain(`/__sandbox/ad?server_id=${line.server_id}`);
          expect(line.hint).toContain("watch the ad");
        }
      }
      // Each free server's restart was sent once, never repeated on a timer.
      for (const s of free) {
        expect(fleet.sandbox.log.filter((e) => e.method === 'POST' && e.path === `/servers/${s.id}/power`).length).toBe(1);
      }
    } finally {
      await fleet.close();
    }
  });
});

describe('checks before announcing, on records shaped otherwise (issue 36, item 2)', () => {
  it('a plan shown as an object ({name, free}) is read: a free server is not announced without a terminal, exit 7', async () => {
    const free = [...t.sandbox.state.servers.values()].find((s) => s.plan === 'free' && !s.stored);
    const paid = [...t.sandbox.state.servers.values()].find((s) => s.plan === 'paid' && !s.stored);
    expect(free && paid).toBeTruthy();
    const mark = t.sandbox.log.length;
    const r = await t.gsh(['power', 'restart', '-s', `${free!.id},${paid!.id}`, '--announce', 'Restart in {left}', '--countdown', '1m,10s']);
    expect(r.exitCode, r.stderr).toBe(7);
    expect(r.stderr).toContain('is on the free plan');
    expect(r.stderr).not.toContain(`${paid!.name} (${paid!.id}) is on the free plan`);
    // The checks take a console token per server (02-endpoints-part-a.md "Console": 403 also for a
    // suspended server, the one place the contract shows suspension); nothing else is posted.
    expect(t.sandbox.log.slice(mark).filter((e) => e.method === 'POST' && !e.path.endsWith('/console/token'))).toEqual([]);
  });
});

