import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setup, type E2E } from './helpers.js';

// The online init commands, run in-process, against the sandbox: 02-endpoints-part-a.md "Init
// templates and manifest validation" and "Servers" (POST /servers with init/template_id);
// 01-general-contract.md "Init manifest" and "Caps by plan"; ARCHITECTURE.md "Exit codes".

let e: E2E;
let dir: string;
const file = (name: string) => join(dir, name);

const HOOK = (n: number) => `  - url: https://example.com/hook-${n}\n    events: [server.started]\n`;
const MANIFESTS: Record<string, string> = {
  // Valid at paid caps; two hooks are one too many for free (free allows 1).
  'lobby.yaml': `#service-init\nversion: 1\nenv:\n  MODE: lobby\nhooks:\n${HOOK(1)}${HOOK(2)}`,
  // version 2 on line 2, an unknown key on line 6 (inside files[0]).
  'broken.yaml': '#service-init\nversion: 2\nfiles:\n  - path: motd.txt\n    content: hi\n    colour: red\n',
  // An overlay: no version of its own, one hook replacing the template's two.
  'overlay.yaml': `#service-init\nhooks:\n${HOOK(3)}`,
  'overlay-bad.yaml': '#service-init\nfiles:\n  - path: a.txt\n',
  'provision.yaml': '#service-init\nversion: 1\nfiles:\n  - path: config/motd.txt\n    content: welcome\nrun: [say ready]\n',
  'partial.yaml': '#service-init\nversion: 1\naccess:\n  - email: nobody@example.com\n    permissions: [file.read]\n',
  'hard-fail.yaml': `#service-init\nversion: 1\nassets:\n  - url: https://cdn.example.invalid/pack.zip\n    size: 1024\n    sha256: ${'a'.repeat(64)}\n`,
};

beforeAll(async () => {
  e = await setup({ clock: 'fast' });
  dir = mkdtempSync(join(tmpdir(), 'gsh-init-online-'));
  for (const [name, text] of Object.entries(MANIFESTS)) writeFileSync(file(name), text);
});

afterAll(async () => {
  await e.close();
  rmSync(dir, { recursive: true, force: true });
});

const requests = (method: string, path: string) => e.sandbox.log.filter((l) => l.method === method && l.path.endsWith(path)).length;

async function createTemplate(name: string, manifest: string): Promise<string> {
  const r = await e.gsh(['init', 'templates', 'create', file(manifest), '--name', name, '--json']);
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout).id as string;
}

describe('gsh init validate', () => {
  it('a valid manifest: exit 0 and one line naming the tier', async () => {
    const r = await e.gsh(['init', 'validate', file('lobby.yaml')]);
    expect([r.exitCode, r.stdout]).toEqual([0, `${file('lobby.yaml')}: valid at the paid caps`]);
  });

  it('--tier free applies the free caps: the 422 error is shown at the line of the section', async () => {
    const r = await e.gsh(['init', 'validate', file('lobby.yaml'), '--tier', 'free']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`${file('lobby.yaml')}:6:3: error: \`hooks\` has 2 entries; the free plan allows 1 [init.hooks]`);
    expect(r.stderr).toContain('    6 |   - url: https://example.com/hook-1');
    expect(r.stderr).toMatch(/validation_failed, HTTP 422, request_id req_\w+/);
  });

  it('every init.-prefixed error is mapped to its line in the local file; --json carries the lines', async () => {
    const r = await e.gsh(['init', 'validate', file('broken.yaml')]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`broken\\.yaml:2:10: error: .*\\[init\\.version\\]`));
    expect(r.stderr).toMatch(new RegExp(`broken\\.yaml:6:13: error: .*colour.*\\[init\\.files\\[0\\]\\.colour\\]`));
    const json = await e.gsh(['init', 'validate', file('broken.yaml'), '--json']);
    const errors = JSON.parse(json.stderr).error.errors as Array<{ field: string; line: number }>;
    expect(errors.map((x) => [x.field, x.line])).toEqual(expect.arrayContaining([['init.version', 2], ['init.files[0].colour', 6]]));
  });

  it('--template: the file is an overlay; problems from the template alone name the template', async () => {
    const id = await createTemplate('validate-base', 'lobby.yaml');
    const ok = await e.gsh(['init', 'validate', file('overlay.yaml'), '--template', id, '--tier', 'free']);
    expect([ok.exitCode, ok.stdout]).toEqual([0, `${file('overlay.yaml')} over template ${id}: valid at the free caps`]);
    const bad = await e.gsh(['init', 'validate', file('overlay-bad.yaml'), '--template', id, '--tier', 'free']);
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toContain(`template ${id}: error: \`hooks\` has 2 entries; the free plan allows 1 [init.hooks]`);
    expect(bad.stderr).toMatch(/overlay-bad\.yaml:3:5: error: .*\[init\.files\[0\]/);
  });

  it('usage errors exit 2 before any request', async () => {
    expect((await e.gsh(['init', 'validate', file('lobby.yaml'), '--tier', 'gold'])).exitCode).toBe(2);
    const missing = await e.gsh(['init', 'validate', file('nope.yaml')]);
    expect([missing.exitCode, missing.stderr]).toEqual([2, expect.stringContaining('no such file or directory')]);
  });

  it('with neither a file nor --template the request goes and the service says what is missing (400)', async () => {
    const before = requests('POST', '/init/validate');
    const r = await e.gsh(['init', 'validate']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/bad_request, HTTP 400/);
    expect(requests('POST', '/init/validate')).toBe(before + 1);
  });
});

describe('gsh init templates', () => {
  it('create lints locally first: errors exit 1 and nothing is sent', async () => {
    const before = requests('POST', '/init/templates');
    const r = await e.gsh(['init', 'templates', 'create', file('broken.yaml'), '--name', 'broken']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/broken\.yaml:2:10: error: .*\(version\)/);
    expect(r.stderr).toContain('nothing was sent');
    expect(requests('POST', '/init/templates')).toBe(before);
  });

  it('--no-lint sends it, and the service\'s 422 is shown against the file', async () => {
    const before = requests('POST', '/init/templates');
    const r = await e.gsh(['init', 'templates', 'create', file('broken.yaml'), '--name', 'broken', '--no-lint']);
    expect(r.exitCode).toBe(1);
    expect(requests('POST', '/init/templates')).toBe(before + 1);
    expect(r.stderr).toMatch(/broken\.yaml:2:10: error: .*\[manifest\.version\]/);
    expect(r.stderr).toContain('validation_failed, HTTP 422');
  });

  it('a duplicate name is 409: exit 6', async () => {
    await createTemplate('dup-name', 'lobby.yaml');
    const r = await e.gsh(['init', 'templates', 'create', file('lobby.yaml'), '--name', 'dup-name']);
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toContain('conflict, HTTP 409');
  });

  it('update, then list, get and delete (the generated verbs under the same group)', async () => {
    const id = await createTemplate('crud', 'lobby.yaml');
    const updated = await e.gsh(['init', 'templates', 'update', id, file('provision.yaml'), '--description', 'Provisioned', '--json']);
    expect(updated.exitCode, updated.stderr).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({ id, description: 'Provisioned', manifest: MANIFESTS['provision.yaml'] });
    const empty = await e.gsh(['init', 'templates', 'update', id, '--json']);
    expect(empty.exitCode, empty.stderr).toBeLessThan(2);
    expect(e.sandbox.log.at(-1)).toMatchObject({ method: 'PATCH', body: {} });

    const list = await e.gsh(['init', 'templates', 'list', '--all', '--json']);
    expect(JSON.parse(list.stdout)[0].id).toBe(id);
    const got = await e.gsh(['init', 'templates', 'get', id, '--json']);
    expect(JSON.parse(got.stdout).name).toBe('crud');
    expect((await e.gsh(['init', 'templates', 'delete', id, '--yes'])).exitCode).toBe(0);
    expect((await e.gsh(['init', 'templates', 'get', id])).exitCode).toBe(5);
  });
});

describe('gsh servers create --init, then gsh init status', () => {
  async function create(manifest: string, extra: string[] = []): Promise<string> {
    const r = await e.gsh(['servers', 'create', '-f', `name=${manifest.replace('.yaml', '')}`, '-f', 'plan=paid', '--init', file(manifest), ...extra, '--wait', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const job = JSON.parse(r.stdout);
    expect(job.state).toBe('ready');
    return job.server_id as string;
  }

  it('the README story: lint, validate, template, create with an overlay, status --wait ends completed', async () => {
    expect((await e.gsh(['init', 'lint', file('provision.yaml')])).exitCode).toBe(0);
    expect((await e.gsh(['init', 'validate', file('provision.yaml')])).exitCode).toBe(0);
    const id = await createTemplate('story', 'provision.yaml');
    const server = await create('overlay.yaml', ['--template', id]);
    const r = await e.gsh(['init', 'status', '-s', server, '--wait']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.split('\n')).toEqual([
      'content\tcompleted\t0 downloads',
      'files\tcompleted\t1 file written',
      'env\tcompleted\t0 variables set',
      'registrations\tcompleted\t0 schedules, 0 access grants, 1 hooks',
      'run\tcompleted\t1 console command sent',
      'finalize\tcompleted\tserver running',
    ]);
    expect(r.stderr).toContain('completed 100%');
  });

  it('a soft-phase warning ends partial: exit 0 with the warning on stderr', async () => {
    const server = await create('partial.yaml');
    const r = await e.gsh(['init', 'status', '-s', server, '--wait']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('registrations\tcompleted\t0 schedules, 0 access grants, 0 hooks; 1 warning');
    expect(r.stderr).toContain('warning: registrations: access[0]: no panel user matches nobody@example.com; grant skipped');
    const json = await e.gsh(['init', 'status', '-s', server, '--json']);
    expect(JSON.parse(json.stdout).state).toBe('partial');
  });

  it('a hard-phase failure exits 1 with the precise error; later phases are skipped', async () => {
    const server = await create('hard-fail.yaml');
    const r = await e.gsh(['init', 'status', '-s', server, '--wait']);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain('content\tfailed\tassets[0].url: download failed: cdn.example.invalid does not resolve');
    expect(r.stdout).toContain('finalize\tskipped');
    expect(r.stderr).toContain('error: provisioning failed: content: assets[0].url: download failed');
  });

  it('servers create re-validates at the plan\'s caps: 422 init.hooks on a free server (--no-lint sends it)', async () => {
    const r = await e.gsh(['servers', 'create', '-f', 'name=too-many-hooks', '-f', 'plan=free', '--init', file('lobby.yaml'), '--no-lint']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('init.hooks: `hooks` has 2 entries; the free plan allows 1');
  });

  it('servers create lints the manifest at the plan it creates before sending; free when no plan is given, and says so', async () => {
    const mark = e.sandbox.log.length;
    const atFree = await e.gsh(['servers', 'create', '-f', 'name=lint-free', '-f', 'plan=free', '--init', file('lobby.yaml')]);
    expect(atFree.exitCode).toBe(1);
    expect(atFree.stderr).toMatch(/errors? at the free caps of the free plan it creates; nothing was sent/);
    const noPlan = await e.gsh(['servers', 'create', '-f', 'name=lint-default', '--init', file('lobby.yaml')]);
    expect(noPlan.exitCode).toBe(1);
    expect(noPlan.stderr).toMatch(/at the free caps: no plan given/);
    expect(e.sandbox.log.slice(mark).filter((x) => x.method === 'POST')).toEqual([]);
    const atPaid = await e.gsh(['servers', 'create', '-f', 'name=lint-paid', '-f', 'plan=paid', '--init', file('lobby.yaml'), '--dry-run']);
    expect(atPaid.exitCode, atPaid.stderr).toBe(0);
  });

  it('init status of a server that never ran init: 404, exit 5', async () => {
    const [first] = e.sandbox.state.servers.values();
    const r = await e.gsh(['init', 'status', '-s', first!.id]);
    expect(r.exitCode).toBe(5);
  });
});
