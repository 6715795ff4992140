import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerRecord } from '../../src/sandbox/index.js';
import { setup, type E2E } from './helpers.js';

// Saved plans (README "Configuration as code"): `diff --out PLAN`, then `apply --plan PLAN` makes
// exactly the plan's writes, or refuses a stale one (exit 6, code stale_plan; DESIGN.md "Exit
// codes": 6 conflict) with no write. Semantics: 02-endpoints-part-a.md "Properties" (PUT merges
// the keys sent), "Webhooks" (the secret is returned only at creation, so a plan holds only its
// ${env:NAME} placeholder).

let t: E2E;
let root: string;
let s: ServerRecord;
const secret = 'plan-secret-value-0123456789abcdef';
beforeAll(async () => {
  t = await setup({ servers: 3, clock: 'fast' });
  root = mkdtempSync(join(tmpdir(), 'gsh-config-plans-'));
  s = [...t.sandbox.state.servers.values()].find((x) => x.application === 'minecraft')!;
  s.plan = 'paid';
  s.name = 'planned';
});
afterAll(async () => {
  await t.close();
  rmSync(root, { recursive: true, force: true });
});

const writesSince = (mark: number) => t.sandbox.log.slice(mark).filter((e) => e.method !== 'GET');

function declare(name: string, motd: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'planned.yaml'), [
    'version: 1', 'server: planned',
    'properties:', `  motd: ${motd}`, '  difficulty: hard',
    'hooks:', `  - url: https://hooks.example.com/${name}`, '    events: [server.crashed]', '    secret: ${env:PLAN_HOOK_SECRET}',
    '',
  ].join('\n'));
  return dir;
}

interface Plan {
  format: string;
  servers: Array<{ server_id: string; changes: Array<{ item: string; request: { method: string; path: string; body?: Record<string, unknown> }; fields: Array<{ path: string; live: unknown }> }> }>;
}

describe('diff --out, then apply --plan', () => {
  it('the plan holds the writes and the live values, never the secret; apply --plan makes exactly those writes; diff is then 0', async () => {
    const dir = declare('exact', 'Planned motd');
    const plan = join(root, 'exact.json');
    const mark = t.sandbox.log.length;
    const diff = await t.gsh(['config', 'diff', dir, '--out', plan], { env: { PLAN_HOOK_SECRET: secret } });
    expect(diff.exitCode, diff.stderr).toBe(14);
    expect(writesSince(mark)).toEqual([]);
    expect(diff.stderr).toMatch(/Plan written to .*exact\.json: 2 writes on 1 server/);
    const text = readFileSync(plan, 'utf8');
    expect(text).not.toContain(secret);
    const saved = JSON.parse(text) as Plan;
    expect(saved.format).toBe('gsh-config-plan');
    const changes = saved.servers[0]!.changes;
    expect(changes.map((c) => `${c.request.method} ${c.request.path}`)).toEqual([`PUT /servers/${s.id}/properties`, `POST /servers/${s.id}/hooks`]);
    // The live values the writes were computed from, and the placeholder standing for the secret.
    const motd = changes[0]!.fields.find((f) => f.path === 'properties.motd')!;
    expect(typeof motd.live).toBe('string');
    expect(changes[1]!.request.body).toMatchObject({ secret: '${env:PLAN_HOOK_SECRET}' });

    // The dry run counts what it sent: a plan names its servers, so no server listing is read.
    const dryMark = t.sandbox.log.length;
    const dry = await t.gsh(['config', 'apply', '--plan', plan, '--dry-run'], { env: { PLAN_HOOK_SECRET: secret } });
    expect(dry.exitCode, dry.stderr).toBe(14);
    const dryReads = t.sandbox.log.slice(dryMark);
    expect(dryReads.every((e) => e.method === 'GET') && !dryReads.some((e) => e.path === '/servers')).toBe(true);
    expect(dry.stderr).toContain(`Dry run: only the ${dryReads.length} reads that found the changes (the declared kinds of 1 server) were sent; none of the requests above was.`);

    const before = t.sandbox.log.length;
    const applied = await t.gsh(['config', 'apply', '--plan', plan, '--yes', '-o', 'json'], { env: { PLAN_HOOK_SECRET: secret } });
    expect(applied.exitCode, applied.stderr).toBe(0);
    const writes = writesSince(before);
    expect(writes.map((w) => `${w.method} ${w.path}`)).toEqual(changes.map((c) => `${c.request.method} ${c.request.path}`));
    expect(writes[0]!.body).toEqual(changes[0]!.request.body);
    expect(writes[1]!.body).toEqual({ ...changes[1]!.request.body, secret });
    expect(applied.stdout + applied.stderr).not.toContain(secret);
    const again = await t.gsh(['config', 'diff', dir], { env: { PLAN_HOOK_SECRET: secret } });
    expect(again.exitCode, again.stdout).toBe(0);
  });

  it('a live change after the plan: apply --plan exits 6 with code stale_plan, names what changed, writes nothing', async () => {
    const dir = declare('stale', 'Stale motd');
    const plan = join(root, 'stale.json');
    expect((await t.gsh(['config', 'diff', dir, '--out', plan])).exitCode).toBe(14);
    expect((await t.gsh(['properties', 'update', '-s', s.id, '-f', 'motd=Changed in between'])).exitCode).toBe(0);
    const mark = t.sandbox.log.length;
    const r = await t.gsh(['config', 'apply', '--plan', plan, '--yes', '--json'], { env: { PLAN_HOOK_SECRET: secret } });
    expect(r.exitCode, r.stderr).toBe(6);
    expect(writesSince(mark)).toEqual([]);
    const { error } = JSON.parse(r.stderr.trim().split('\n').at(-1)!) as { error: { code: string; message: string } };
    expect(error.code).toBe('stale_plan');
    expect(error.message).toMatch(/planned: properties\.motd was ".*" when planned, is "Changed in between" now/);
    expect(error.message).toMatch(/nothing was written$/);
  });

  it('before any request: a plan whose secret is not set, a plan given with PATHS, a file that is not a plan; --out never replaces a file that is not a plan', async () => {
    const dir = declare('checks', 'Checked motd');
    const plan = join(root, 'checks.json');
    expect((await t.gsh(['config', 'diff', dir, '--out', plan])).exitCode).toBe(14);
    const notPlan = join(root, 'notes.txt');
    writeFileSync(notPlan, 'my notes\n');
    const mark = t.sandbox.log.length;
    const unset = await t.gsh(['config', 'apply', '--plan', plan, '--yes'], { env: { PLAN_HOOK_SECRET: undefined } });
    expect(unset.exitCode).toBe(2);
    expect(unset.stderr).toMatch(/\$\{env:PLAN_HOOK_SECRET\}, which is not set; nothing was sent/);
    expect((await t.gsh(['config', 'apply', dir, '--plan', plan, '--yes'])).exitCode).toBe(2);
    const bogus = await t.gsh(['config', 'apply', '--plan', notPlan, '--yes']);
    expect(bogus.exitCode).toBe(2);
    expect(bogus.stderr).toMatch(/is not a gsh config plan/);
    expect(t.sandbox.log.slice(mark)).toEqual([]);
    const over = await t.gsh(['config', 'diff', dir, '--out', notPlan]);
    expect(over.exitCode).toBe(2);
    expect(over.stderr).toMatch(/exists and is not a gsh config plan; not replacing it/);
    expect(readFileSync(notPlan, 'utf8')).toBe('my notes\n');
  });
});
