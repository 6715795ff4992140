import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type E2E, setup } from './helpers.js';
import { type Fixtures, type RefEntry, planOf, reference, registryOps } from './walk-plan.js';

// Issue 51 item 3: an identifier is checked while planning. A path parameter that is empty, `.`,
// `..` or holds `/` is a usage error (exit 2) before any request (ARCHITECTURE.md "Plan, then
// execute"; 01-general-contract.md "Resource identifiers" names ids as path segments): `.` and
// `..` are dot segments a URL parser collapses, so `hooks delete -s S .. --yes` would send
// DELETE /servers/{id}/. Walked over every command of `gsh reference --json` whose operation has
// a path parameter besides the server, and over the declaration keys that become one.

let t: E2E;
let dir: string;
let ref: RefEntry[];
let serverId: string;
beforeAll(async () => {
  t = await setup({ servers: 2 });
  dir = mkdtempSync(join(tmpdir(), 'gsh-path-params-'));
  ref = await reference(t.env());
  serverId = [...t.sandbox.state.servers.values()][0]!.id;
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

const BAD = ['..', '.', '', 'a/b'];
const param = (name: string) => name.replace(/-/g, '_');

/** Each command with path parameters: its argv (valid values), and where each parameter is in it. */
async function commands(): Promise<{ command: string; argv: string[]; params: { name: string; at: number }[] }[]> {
  const fx: Fixtures = { server: serverId, victim: serverId, values: { uuid: '069a79f4-44e9-4726-a5be-fca90e38aaf5' }, jobs: {}, moduleTask: 'task_1', dir };
  const { steps } = planOf(ref, await registryOps(), fx);
  return steps.flatMap((step) => {
    const e = ref.find((r) => r.command === step.command)!;
    const path = e.operations[0]!.path;
    const words = step.command.split(' ').length;
    const params = e.arguments
      .filter((a) => a.required)
      .map((a, i) => ({ name: a.name, at: words + i }))
      .filter((a) => param(a.name) !== 'server_id' && (path.includes(`{${param(a.name)}}`) || path.includes(`<${param(a.name)}>`)));
    if (params.length === 0) return [];
    // -s id:…: used as it is, never looked up, so a refused run sends nothing at all.
    const argv = step.argv.map((a, i) => (step.argv[i - 1] === '-s' ? `id:${a}` : a));
    return [{ command: step.command, argv, params }];
  });
}

describe('a path parameter that is empty, ".", ".." or holds "/" is exit 2 before any request', () => {
  it('hooks delete -s S .. --yes and .: exit 2, nothing sent', async () => {
    for (const id of ['..', '.']) {
      const before = t.sandbox.log.length;
      const r = await t.gsh(['hooks', 'delete', '-s', serverId, id, '--yes']);
      expect([r.exitCode, t.sandbox.log.length - before], id).toEqual([2, 0]);
      expect(r.stderr).toContain(`<hook-id> must not be "${id}"`);
    }
  });

  it('in every registry command with one (backups, databases, subusers, schedules, allocations, …)', async () => {
    const all = await commands();
    // The walk reaches the families the issue names, and more.
    for (const word of ['hooks', 'backups', 'databases', 'subusers', 'schedules', 'allocations']) {
      expect(all.some((c) => c.command.startsWith(`${word} `)), word).toBe(true);
    }
    const wrong: string[] = [];
    for (const c of all) {
      // The same line with valid ids plans fine: what refuses the bad ones is the id.
      const dry = await t.gsh([...c.argv, '--dry-run']);
      if (dry.exitCode !== 0) wrong.push(`${c.command} --dry-run with valid ids: exit ${dry.exitCode}: ${dry.stderr.split('\n')[0]}`);
      for (const p of c.params) {
        for (const bad of BAD) {
          const argv = c.argv.map((a, i) => (i === p.at ? bad : a));
          const before = t.sandbox.log.length;
          const r = await t.gsh(argv);
          const sent = t.sandbox.log.slice(before).map((e) => `${e.method} ${e.path}`);
          if (r.exitCode !== 2 || sent.length > 0 || !r.stderr.includes(`<${p.name}>`)) {
            wrong.push(`${c.command} <${p.name}> ${JSON.stringify(bad)}: exit ${r.exitCode}, sent ${JSON.stringify(sent)}: ${r.stderr.split('\n')[0]}`);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
  }, 240_000);

  it('-s id:.. is refused too: an id after the marker is used as it is', async () => {
    const before = t.sandbox.log.length;
    const r = await t.gsh(['servers', 'delete', '-s', 'id:..', '--yes']);
    expect([r.exitCode, t.sandbox.log.length - before]).toEqual([2, 0]);
    expect(r.stderr).toContain('must not be ".."');
  });
});

describe('declared keys that become path parameters', () => {
  const minecraft = () => [...t.sandbox.state.servers.values()].find((s) => s.application === 'minecraft') ?? [...t.sandbox.state.servers.values()][0]!;

  for (const [kind, yaml] of [
    ['configs', (k: string) => `configs:\n  ${JSON.stringify(k)}:\n    settings.allow-end: false\n`],
    ['startup variables', (k: string) => `startup:\n  variables:\n    ${JSON.stringify(k)}: x\n`],
  ] as const) {
    it(`${kind}: ".." and "." are exit 2 and nothing is written, in diff and apply`, async () => {
      for (const key of ['..', '.']) {
        const file = join(dir, `declared-${kind.replace(' ', '-')}.yaml`);
        writeFileSync(file, `version: 1\nserver: ${minecraft().name}\n${yaml(key)}`);
        for (const verb of ['diff', 'apply']) {
          const before = t.sandbox.log.length;
          const r = await t.gsh(['config', verb, file, '--yes']);
          const sent = t.sandbox.log.slice(before).map((e) => `${e.method} ${e.path}`);
          expect(r.exitCode, `${verb} ${key}: ${r.stderr}`).toBe(2);
          expect(r.stderr).toContain(`must not be "${key}"`);
          expect(sent, `${verb} ${key}`).toEqual([]);
        }
      }
    });
  }
});

describe('any path with a "." or ".." step', () => {
  it('gsh api refuses it before sending (the URL parser would collapse it into another path)', async () => {
    for (const path of ['/servers/..', `/servers/${serverId}/hooks/../`, '/./account', `/servers/${serverId}/hooks/%2E%2e`]) {
      const before = t.sandbox.log.length;
      const r = await t.gsh(['api', '-X', 'DELETE', path]);
      expect([r.exitCode, t.sandbox.log.length - before], path).toEqual([2, 0]);
      expect(r.stderr).toContain('step, which a URL reads as another path');
    }
  });
});
