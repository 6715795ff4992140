import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sarifProblems } from '../helpers/sarif.js';
import { gshInProcess } from './helpers.js';

// `gsh init lint` and `gsh init schema`, run in-process: exit codes (ARCHITECTURE.md "Exit codes":
// 0 clean, 1 problems, 2 usage or I/O), the piped default format, stdin. No API needed. Files are
// named by absolute path (the run has no working directory of its own); the pre-commit hook, which
// runs the launcher on relative paths, is checked against the built binary in binary.test.ts.

let dir: string;
const at = (name: string) => join(dir, name);

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gsh-e2e-init-'));
  writeFileSync(at('ok.yaml'), '#service-init\nversion: 1\n');
  writeFileSync(at('bad.yaml'), '#service-init\nversion: 1\nhooks:\n  - url: http://10.0.0.1/x\n    events: [server.started]\n');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function gsh(args: string[], input?: string, env: Record<string, string> = {}) {
  return gshInProcess(args, { NO_COLOR: '1', ...env }, input === undefined ? {} : { input });
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

describe('gsh init lint in CI (issue 15 items 2 and 3)', () => {
  it('--format sarif: an unreadable input exits 2 with an unsuccessful run naming it, never a clean report', async () => {
    const r = await gsh(['init', 'lint', '--format', 'sarif', at('ok.yaml'), at('missing.yaml')]);
    expect(r.exitCode).toBe(2);
    expect(sarifProblems(r.stdout)).toEqual([]);
    const [run] = (JSON.parse(r.stdout) as { runs: { invocations: { executionSuccessful: boolean; toolExecutionNotifications: { message: { text: string } }[] }[]; results: unknown[] }[] }).runs;
    expect(run?.results).toEqual([]);
    expect(run?.invocations[0]?.executionSuccessful).toBe(false);
    expect(run?.invocations[0]?.toolExecutionNotifications.map((n) => n.message.text)).toEqual([`cannot read ${at('missing.yaml')}: no such file or directory`]);
    expect(r.stderr).toContain(`cannot read ${at('missing.yaml')}`);
  });

  it('--format sarif: a clean run says it succeeded', async () => {
    const r = await gsh(['init', 'lint', '--format', 'sarif', at('ok.yaml')]);
    expect(r.exitCode).toBe(0);
    expect(sarifProblems(r.stdout)).toEqual([]);
    expect(JSON.parse(r.stdout)).toMatchObject({ runs: [{ invocations: [{ executionSuccessful: true }], results: [] }] });
  });

  it('--format github appends a Markdown job summary to $GITHUB_STEP_SUMMARY, after what earlier steps wrote', async () => {
    const summary = at('summary.md');
    writeFileSync(summary, '## Earlier step\n\n');
    const r = await gsh(['init', 'lint', '--format', 'github', at('ok.yaml'), at('bad.yaml')], undefined, { GITHUB_STEP_SUMMARY: summary });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain('::error file=');
    const text = readFileSync(summary, 'utf8');
    expect(text.startsWith('## Earlier step\n\n### gsh init lint\n')).toBe(true);
    expect(text).toContain(':x: **2 errors** and **0 warnings** in 1 of 2 files (paid plan caps).');
    expect(text).toContain('| File | Line | Severity | Rule | Problem |');
    expect(text).toContain(`| ${at('bad.yaml')} | 4:10 | error | \`hook-https\` | hook URLs must be https, not \`http\` (\`hooks[0].url\`) |`);
    expect(text).toContain('`gsh init rules` explains each rule');
    expect(text).not.toContain('https://');
    // A second step appends again; nothing is overwritten.
    await gsh(['init', 'lint', '--format', 'github', at('ok.yaml')], undefined, { GITHUB_STEP_SUMMARY: summary });
    const after = readFileSync(summary, 'utf8');
    expect(after.startsWith(text)).toBe(true);
    expect(after.slice(text.length)).toBe('### gsh init lint\n\n:white_check_mark: No problems in 1 file (paid plan caps).\n\n');
  });

  it('--format github: the summary names unreadable inputs and a --max-warnings verdict; other formats and unset variables write none', async () => {
    const summary = at('summary-2.md');
    const warns = at('warns.yaml');
    writeFileSync(warns, '#service-init\nversion: 1\nassets:\n  - {url: https://cdn.example.com/a.zip, size: 1}\n');
    const r = await gsh(['init', 'lint', '--format', 'github', '--max-warnings', '0', warns, at('missing.yaml')], undefined, { GITHUB_STEP_SUMMARY: summary });
    expect(r.exitCode).toBe(2);
    const text = readFileSync(summary, 'utf8');
    expect(text).toContain(':x: 1 warning exceeds --max-warnings 0.');
    expect(text).toContain(`:x: **1 input could not be read** (exit 2):\n\n- cannot read ${at('missing.yaml')}: no such file or directory`);
    expect(r.stdout).toContain(`::error file=${at('missing.yaml').replace(/:/g, '%3A')},title=gsh init lint::cannot read`);
    await gsh(['init', 'lint', '--format', 'compact', warns], undefined, { GITHUB_STEP_SUMMARY: summary });
    expect(readFileSync(summary, 'utf8')).toBe(text);
  });

  it('--format github: a summary that cannot be written is said on stderr and leaves the verdict alone', async () => {
    const directory = at('not-a-file');
    mkdirSync(directory, { recursive: true });
    const r = await gsh(['init', 'lint', '--format', 'github', at('bad.yaml')], undefined, { GITHUB_STEP_SUMMARY: directory });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`gsh init lint: cannot append the job summary to ${directory} (EISDIR); the annotations above still stand`);
  });
});
