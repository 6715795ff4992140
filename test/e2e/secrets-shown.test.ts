import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hideManifestSecrets, hideSecrets } from '../../src/core/secrets-shown.js';
import { type E2E, setup } from './helpers.js';

// A secret the user gives is never printed back (issue 50 item 3; DESIGN.md "Doors": the
// person): the registry's `secret` fields in an answer show [set] (given) or [hidden] (made by
// the service) in every format and to --jq; a manifest's hook secrets show [hidden];
// --show-secret prints them. 02-endpoints-part-a.md "Webhooks": the 201 of POST
// /servers/{server_id}/hooks includes the secret, returned only now.

let e: E2E;
let dir: string;
beforeAll(async () => {
  e = await setup({ servers: 3 });
  dir = mkdtempSync(join(tmpdir(), 'gsh-secrets-'));
});
afterAll(async () => {
  await e.close();
  rmSync(dir, { recursive: true, force: true });
});

const SECRET = 'whsec_given_by_me_0123456789abcdef';
const server = () => [...e.sandbox.state.servers.values()][0]!;
let n = 0;
const create = (extra: string[], input?: string) =>
  e.gsh(['hooks', 'create', '-s', server().id, '--url', `https://hooks.example.com/s-${++n}`, '--events', 'server.crashed', ...extra], input === undefined ? {} : { input });

/** No run of 8 characters of the secret anywhere in `text`. */
function noByteOf(secret: string, text: string): void {
  for (let i = 0; i + 8 <= secret.length; i++) expect(text, `"${secret.slice(i, i + 8)}" of the secret`).not.toContain(secret.slice(i, i + 8));
}

describe('hooks create --secret-file -', () => {
  for (const format of ['table', 'json', 'yaml', 'jsonl', 'csv'] as const) {
    it(`-o ${format}: no byte of the secret on stdout or stderr, the field shown as [set]; the service got it`, async () => {
      const mark = e.sandbox.log.length;
      const r = await create(['--secret-file', '-', '-o', format, ...(format === 'csv' ? ['--columns', 'id,url,secret'] : [])], `${SECRET}\n`);
      expect(r.exitCode, r.stderr).toBe(0);
      noByteOf(SECRET, r.stdout + r.stderr);
      expect(r.stdout).toContain('[set]');
      const sent = e.sandbox.log.slice(mark).find((x) => x.method === 'POST' && x.path.endsWith('/hooks'));
      expect((sent?.body as { secret?: string }).secret).toBe(SECRET);
    });
  }

  it('--jq never sees it; --debug traces and --dry-run plans redact it', async () => {
    const jq = await create(['--secret-file', '-', '--jq', '.secret'], SECRET);
    expect([jq.exitCode, jq.stdout]).toEqual([0, '[set]']);
    const debug = await create(['--secret-file', '-', '--debug', '--json'], SECRET);
    expect(debug.exitCode).toBe(0);
    noByteOf(SECRET, debug.stdout + debug.stderr);
    const dry = await create(['--secret-file', '-', '--dry-run'], SECRET);
    expect(dry.exitCode).toBe(0);
    noByteOf(SECRET, dry.stdout + dry.stderr);
  });

  it('--show-secret prints it as it came', async () => {
    const r = await create(['--secret-file', '-', '--show-secret', '--json'], SECRET);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).secret).toBe(SECRET);
  });

  it('a secret the service generated: [hidden], with a note that says how to see it', async () => {
    const r = await create(['--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).secret).toBe('[hidden]');
    expect(r.stdout).not.toMatch(/whsec_/);
    expect(r.stderr).toContain('The service generated the "secret" of this answer, which it returns only now; it is shown as [hidden]');
    expect(r.stderr).toContain('--show-secret');
    const shown = await create(['--json', '--show-secret']);
    expect(JSON.parse(shown.stdout).secret).toMatch(/^whsec_/);
    expect(shown.stderr).not.toContain('--show-secret');
  });

  it('on several servers the fleet\'s results hide it too', async () => {
    const ids = [...e.sandbox.state.servers.values()].slice(1, 3).map((s) => s.id);
    const r = await e.gsh(['hooks', 'create', '-s', ids.join(','), '--url', 'https://hooks.example.com/fleet', '--secret-file', '-', '--json'], { input: SECRET });
    expect(r.exitCode, r.stderr + r.stdout).toBe(0);
    noByteOf(SECRET, r.stdout + r.stderr);
    expect((JSON.parse(r.stdout) as { data: { secret: string } }[]).map((x) => x.data.secret)).toEqual(['[set]', '[set]']);
  });
});

describe('init templates: a manifest\'s hook secrets', () => {
  it('get and create show the manifest with its hooks\' secrets as [hidden]; --show-secret prints them', async () => {
    const file = join(dir, 'hooked.yaml');
    writeFileSync(file, `#service-init\nversion: 1\nhooks:\n  - url: https://example.com/h\n    events: [server.started]\n    secret: ${SECRET}\n`);
    const created = await e.gsh(['init', 'templates', 'create', file, '--name', 'hooked', '--json']);
    expect(created.exitCode, created.stderr).toBe(0);
    noByteOf(SECRET, created.stdout + created.stderr);
    const id = JSON.parse(created.stdout).id as string;
    for (const format of ['json', 'yaml', 'table']) {
      const got = await e.gsh(['init', 'templates', 'get', id, '-o', format]);
      expect(got.exitCode, got.stderr).toBe(0);
      noByteOf(SECRET, got.stdout + got.stderr);
      expect(got.stdout).toContain('[hidden]');
    }
    const shown = await e.gsh(['init', 'templates', 'get', id, '--json', '--show-secret']);
    expect(JSON.parse(shown.stdout).manifest).toContain(`secret: ${SECRET}`);
  });
});

describe('hideSecrets', () => {
  it('hides the named fields at any depth, and manifest texts\' secret values (YAML and JSON)', () => {
    const data = { secret: 's1', nested: [{ secret: 's2' }], empty: { secret: '' }, manifest: 'hooks:\n  - url: u\n    secret: s3 # mine\n  - secret: "s4"\n' };
    expect(hideSecrets(data, new Map([['secret', '[set]']]))).toEqual({
      secret: '[set]', nested: [{ secret: '[set]' }], empty: { secret: '' },
      manifest: 'hooks:\n  - url: u\n    secret: [hidden] # mine\n  - secret: [hidden]\n',
    });
    expect(hideManifestSecrets('{"hooks":[{"url":"u","secret":"s\\"5"}]}')).toBe('{"hooks":[{"url":"u","secret":"[hidden]"}]}');
    expect(hideSecrets({ secret: 'kept' })).toEqual({ secret: 'kept' });
    expect(data.secret).toBe('s1');
  });
});

describe('hideSecrets shares what holds no secret', () => {
  it('returns the same list and items when nothing is hidden, and copies only the path to a secret', () => {
    const list = [{ id: 'a', nested: { n: 1 } }, { id: 'b', secret: 'x', nested: { n: 2 } }];
    expect(hideSecrets(list)).toBe(list);
    const shown = hideSecrets(list, new Map([['secret', '[hidden]']])) as typeof list;
    expect(shown).not.toBe(list);
    expect(shown[0]).toBe(list[0]);
    expect(shown[1]).toEqual({ id: 'b', secret: '[hidden]', nested: { n: 2 } });
    expect(shown[1]!.nested).toBe(list[1]!.nested);
    expect(list[1]!.secret).toBe('x');
  });
});
