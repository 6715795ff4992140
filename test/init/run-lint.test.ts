import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { runLint, type LintIo, type LintOptions } from '../../src/init/run-lint.js';
import { schemaFor } from '../../src/init/run-schema.js';

// `gsh init lint` without a process: inputs, default format, exit codes
// (ARCHITECTURE.md "Exit codes": 0 clean, 1 problems found, 2 usage or I/O error).

const VALID = '#service-init\nversion: 1\n';
const INVALID = '#service-init\nversion: 2\n';
const WARNS = '#service-init\nversion: 1\nassets:\n  - {url: https://cdn.example.com/a.zip, size: 1}\n';
const TWO_HOOKS = '#service-init\nversion: 1\nhooks:\n  - {url: https://a.example.com/h, events: [server.started]}\n  - {url: https://b.example.com/h, events: [server.started]}\n';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gsh-init-lint-'));
  const files: Record<string, string> = {
    'valid.yaml': VALID,
    'invalid.yaml': INVALID,
    'warns.yaml': WARNS,
    'hooks.yaml': TWO_HOOKS,
    'compose.yml': 'services:\n  web: {image: nginx}\n',
    'tree/a.yml': VALID,
    'tree/deeper/b.yaml': INVALID,
    'tree/deeper/typo.yaml': '# service-init\nversion: 1\n',
    'tree/notes.txt': VALID,
    'tree/other.yaml': 'name: not a manifest\n',
    'tree/node_modules/pkg/c.yaml': INVALID,
    'empty-dir/readme.yaml': 'a: 1\n',
  };
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function lint(inputs: string[], opts: Omit<LintOptions, 'inputs'> = {}, io: Partial<LintIo> = {}): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await runLint({ inputs: inputs.map((i) => (i === '-' ? i : join(dir, i))), ...opts }, {
    stdout: (t) => { stdout += t; },
    stderr: (t) => { stderr += t; },
    isTTY: false,
    color: false,
    readStdin: async () => Buffer.from(INVALID),
    ...io,
  });
  return { code, stdout: stdout.split(dir).join('.'), stderr: stderr.split(dir).join('.') };
}

describe('exit codes', () => {
  it('is 0 for a clean manifest and prints nothing in compact', async () => {
    expect(await lint(['valid.yaml'])).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('is 1 when any error is found', async () => {
    const run = await lint(['valid.yaml', 'invalid.yaml']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('./invalid.yaml:2:10: error: `version` must be 1, found 2 [version] (version)\n');
  });

  it('is 0 for warnings alone, and 1 once they exceed --max-warnings', async () => {
    expect((await lint(['warns.yaml'])).code).toBe(0);
    expect((await lint(['warns.yaml'], { maxWarnings: '1' })).code).toBe(0);
    const over = await lint(['warns.yaml'], { maxWarnings: '0' });
    expect(over.code).toBe(1);
    expect(over.stderr).toContain('1 warning exceeds --max-warnings 0');
  });

  it('is 2 when an input cannot be read, after reporting the others', async () => {
    const run = await lint(['missing.yaml', 'invalid.yaml']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('gsh init lint: cannot read ./missing.yaml: no such file or directory\n');
    expect(run.stdout).toContain('./invalid.yaml:2:10');
  });
});

describe('options', () => {
  it('--quiet drops warnings from the report', async () => {
    expect((await lint(['warns.yaml'], { quiet: true })).stdout).toBe('');
    expect((await lint(['warns.yaml'])).stdout).toContain('(no-checksum)');
  });

  it('--tier free applies the free caps (01-general-contract.md, "Caps by plan": hooks 1 / 5)', async () => {
    expect((await lint(['hooks.yaml'])).code).toBe(0);
    const free = await lint(['hooks.yaml'], { tier: 'free' });
    expect(free.code).toBe(1);
    expect(free.stdout).toContain('`hooks` has 2 entries; the free plan allows 1 [hooks] (plan-cap)');
  });

  it('picks stylish on a terminal and compact when piped', async () => {
    expect((await lint(['invalid.yaml'], {}, { isTTY: true })).stdout).toContain('✖ 1 problem (1 error, 0 warnings)');
    expect((await lint(['invalid.yaml'], {}, { isTTY: false })).stdout).toMatch(/^\.\/invalid\.yaml:2:10: error: /);
    expect((await lint(['invalid.yaml'], { format: 'json' }, { isTTY: true })).stdout).toMatch(/^\[/);
  });

  it('reads stdin for -, named by --stdin-filename', async () => {
    expect((await lint(['-'])).stdout).toMatch(/^<stdin>:2:10: /);
    expect((await lint(['-'], { stdinFilename: 'server.yaml' })).stdout).toMatch(/^server\.yaml:2:10: /);
  });

  it('--only-manifests skips files that are not manifests; without it they fail the header rule', async () => {
    expect(await lint(['compose.yml', 'valid.yaml'], { onlyManifests: true })).toEqual({ code: 0, stdout: '', stderr: '' });
    const strict = await lint(['compose.yml']);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain('(header)');
  });
});

describe('directories', () => {
  it('lint every manifest under them, near-miss headers included, skipping node_modules', async () => {
    const run = await lint(['tree'], { format: 'json' });
    const files = (JSON.parse(run.stdout) as { file: string }[]).map((r) => r.file);
    expect(files).toEqual(['./tree/a.yml', './tree/deeper/b.yaml', './tree/deeper/typo.yaml']);
    expect(run.code).toBe(1);
  });

  it('say so on stderr when they hold no manifest', async () => {
    expect(await lint(['empty-dir'])).toEqual({ code: 0, stdout: '', stderr: 'gsh init lint: no manifests (files starting with #service-init) under ./empty-dir\n' });
  });
});

describe('usage errors (exit 2)', () => {
  it.each<[string, LintOptions]>([
    ['no inputs', { inputs: [] }],
    ['an unknown format', { inputs: ['-'], format: 'xml' }],
    ['an unknown tier', { inputs: ['-'], tier: 'gold' }],
    ['a negative --max-warnings', { inputs: ['-'], maxWarnings: '-1' }],
    ['a non-numeric --max-warnings', { inputs: ['-'], maxWarnings: 'many' }],
    ['--stdin-filename without -', { inputs: ['x.yaml'], stdinFilename: 'a.yaml' }],
    ['stdin twice', { inputs: ['-', '-'] }],
  ])('%s', async (_name, opts) => {
    const io: LintIo = { stdout: () => {}, stderr: () => {}, isTTY: false, color: false, readStdin: async () => new Uint8Array() };
    const error = await runLint(opts, io).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
  });
});

describe('gsh init schema', () => {
  it('is draft-07 JSON Schema at the chosen tier', () => {
    const schema = schemaFor({ tier: 'free' }) as { $schema: string; properties: { hooks: { maxItems: number } } };
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(schema.properties.hooks.maxItems).toBe(1);
    expect(() => schemaFor({ tier: 'gold' })).toThrow(UsageError);
  });
});
