import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gshInProcess } from './helpers.js';

// `gsh init lint` and `gsh init schema`, run in-process: exit codes (DESIGN.md "Exit codes": 0
// clean, 1 problems, 2 usage or I/O), the piped default format, stdin. No API needed. Files are
// named by absolute path (the run has no working directory of its own); the pre-commit hook,
// which runs the launcher on relative paths, is checked against the built binary in binary.test.ts.

let dir: string;
const at = (name: string) => join(dir, name);

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gsh-e2e-init-'));
  writeFileSync(at('ok.yaml'), '#service-init\nversion: 1\n');
  writeFileSync(at('bad.yaml'), '#service-init\nversion: 1\nhooks:\n  - url: http://10.0.0.1/x\n    events: [server.started]\n');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function gsh(args: string[], input?: string) {
  return gshInProcess(args, { NO_COLOR: '1' }, input === undefined ? {} : { input });
}

describe('gsh init lint', () => {
  it('exits 0 and prints nothing for a clean manifest', async () => {
    const r = await gsh(['init', 'lint', at('ok.yaml')]);
    expect([r.exitCode, r.stdout, r.stderr]).toEqual([0, '', '']);
  });

  it('exits 1 and prints compact lines when piped', async () => {
    const r = await gsh(['init', 'lint', at('ok.yaml'), at('bad.yaml')]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout.split('\n')).toEqual([
      `${at('bad.yaml')}:4:10: error: hook URLs must be https, not \`http\` [hooks[0].url] (hook-https)`,
      `${at('bad.yaml')}:4:10: error: hook URLs must not resolve to a private or reserved address: 10.0.0.1 is a private or reserved IPv4 address [hooks[0].url] (private-address)`,
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
    const missing = await gsh(['init', 'lint', at('nope.yaml')]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain(`cannot read ${at('nope.yaml')}: no such file or directory`);
    const usage = await gsh(['init', 'lint', '--tier', 'gold', at('ok.yaml')]);
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
