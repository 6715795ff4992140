import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GSH } from './helpers.js';

// `gsh init lint` and `gsh init schema` through the built binary: exit codes (DESIGN.md "Exit
// codes": 0 clean, 1 problems, 2 usage or I/O), the piped default format, stdin. No API needed.

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gsh-e2e-init-'));
  writeFileSync(join(dir, 'ok.yaml'), '#service-init\nversion: 1\n');
  writeFileSync(join(dir, 'bad.yaml'), '#service-init\nversion: 1\nhooks:\n  - url: http://10.0.0.1/x\n    events: [server.started]\n');
  writeFileSync(join(dir, 'compose.yml'), 'services:\n  web: {image: nginx}\n');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function gsh(args: string[], input?: string) {
  return execa(process.execPath, [GSH, ...args], {
    cwd: dir, reject: false, timeout: 30_000, env: { NO_COLOR: '1', FORCE_COLOR: undefined }, extendEnv: true,
    ...(input === undefined ? { stdin: 'ignore' as const } : { input }),
  });
}

describe('gsh init lint (built binary)', () => {
  it('exits 0 and prints nothing for a clean manifest', async () => {
    const r = await gsh(['init', 'lint', 'ok.yaml']);
    expect([r.exitCode, r.stdout, r.stderr]).toEqual([0, '', '']);
  });

  it('exits 1 and prints compact lines when piped', async () => {
    const r = await gsh(['init', 'lint', 'ok.yaml', 'bad.yaml']);
    expect(r.exitCode).toBe(1);
    expect(r.stdout.split('\n')).toEqual([
      'bad.yaml:4:10: error: hook URLs must be https, not `http` [hooks[0].url] (hook-https)',
      'bad.yaml:4:10: error: hook URLs must not resolve to a private or reserved address: 10.0.0.1 is a private or reserved IPv4 address [hooks[0].url] (private-address)',
    ]);
  });

  it('reads stdin under the name given by --stdin-filename', async () => {
    const r = await gsh(['init', 'lint', '-', '--stdin-filename', 'server.yaml', '--format', 'json'], '# service-init\nversion: 1\n');
    expect(r.exitCode).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual([{
      file: 'server.yaml',
      problems: [{
        severity: 'error', rule: 'header', path: '', line: 1, column: 1, endLine: 1, endColumn: 15,
        message: 'the first line must be exactly `#service-init`, found `# service-init`',
      }],
    }]);
  });

  it('exits 2 for a missing file and for a bad option', async () => {
    const missing = await gsh(['init', 'lint', 'nope.yaml']);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('cannot read nope.yaml: no such file or directory');
    const usage = await gsh(['init', 'lint', '--tier', 'gold', 'ok.yaml']);
    expect(usage.exitCode).toBe(2);
    expect(usage.stderr).toContain("option '--tier <tier>' argument 'gold' is invalid. Allowed choices are free, paid.");
  });

  it('documents the default tier in --help', async () => {
    const r = await gsh(['init', 'lint', '--help']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/--tier: caps of the free or paid plan. Default paid: templates are validated at paid caps/);
  });

  it('prints the JSON Schema for editors', async () => {
    const r = await gsh(['init', 'schema', '--tier', 'free']);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ $schema: 'http://json-schema.org/draft-07/schema#', properties: { hooks: { maxItems: 1 } } });
  });
});

describe('the pre-commit hook (.pre-commit-hooks.yaml)', () => {
  const [hook] = parse(readFileSync(new URL('../../.pre-commit-hooks.yaml', import.meta.url), 'utf8')) as {
    id: string; entry: string; args: string[]; language: string; files: string;
  }[];

  it('is gsh-init-lint, a node hook running gsh init lint on YAML files', () => {
    expect(hook).toMatchObject({ id: 'gsh-init-lint', entry: 'gsh init lint', language: 'node' });
    const files = new RegExp(hook!.files);
    expect(['a.yaml', 'dir/b.yml', 'nested/dir/c.yaml'].every((f) => files.test(f))).toBe(true);
    expect(['a.json', 'yaml.md', 'a.yaml.bak'].some((f) => files.test(f))).toBe(false);
  });

  // pre-commit runs `entry args... staged-files...` for the staged files matching `files`.
  async function commit(staged: string[]) {
    const files = staged.filter((f) => new RegExp(hook!.files).test(f));
    return gsh([...hook!.entry.split(' ').slice(1), ...hook!.args, ...files]);
  }

  it('passes a commit of a valid manifest next to other YAML', async () => {
    const r = await commit(['ok.yaml', 'compose.yml', 'README.md']);
    expect([r.exitCode, r.stdout]).toEqual([0, '']);
  });

  it('fails a commit of an invalid manifest and says where', async () => {
    const r = await commit(['ok.yaml', 'bad.yaml', 'compose.yml']);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain('bad.yaml:4:10: error:');
  });
});
