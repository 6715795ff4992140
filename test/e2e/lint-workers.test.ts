import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GSH, gshInProcess } from './helpers.js';

// `gsh init lint` over many files lints them on worker threads as well as the main thread (one
// shared queue). Subprocess: the workers run only from the built bundle (dist/lint-worker.js);
// in-process runs of the sources lint on one thread, so they are the reference the built binary
// must match byte for byte, in every format: the order of files, stdout, stderr and exit code.

let dir: string;
const FILES = 120;

function manifest(i: number): string {
  const kind = i % 6;
  if (kind === 0) return `#service-init\nversion: 1\nrun:\n  timeout: ${900 + i}\n`; // an error
  if (kind === 1) return `#service-init\nversion: 1\nassets:\n  - url: https://cdn.example.com/${i}.zip\n    size: 10\n`; // a warning
  if (kind === 2) return 'services:\n  web: {image: nginx}\n'; // not a manifest: skipped in a directory
  if (kind === 3) return `# service-init\nversion: 1\n`; // a near miss of the header: linted
  if (kind === 4) return `#service-init\nversion: 1\nenv:\n${Array.from({ length: 40 }, (_, k) => `  VAR_${k}: "${i}"\n`).join('')}`;
  return '#service-init\nversion: 1\n';
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gsh-e2e-lint-workers-'));
  mkdirSync(join(dir, 'deeper'));
  mkdirSync(join(dir, 'node_modules'));
  for (let i = 0; i < FILES; i++) writeFileSync(join(dir, i % 4 === 0 ? 'deeper' : '', `m${String(i).padStart(3, '0')}.yaml`), manifest(i));
  writeFileSync(join(dir, 'node_modules', 'skipped.yaml'), '#service-init\nversion: 2\n');
  writeFileSync(join(dir, 'binary.yml'), Buffer.from('#service-init\n\0\0\0'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('init lint on worker threads', () => {
  it.each(['compact', 'json', 'stylish', 'sarif', 'github'])('gives the one-thread result in --format %s', async (format) => {
    const args = ['init', 'lint', '--format', format, dir, join(dir, 'm002.yaml'), join(dir, 'missing.yaml')];
    const reference = await gshInProcess(args, { NO_COLOR: '1' });
    const built = await execa(process.execPath, [GSH, ...args], { reject: false, env: { NO_COLOR: '1' } });
    expect(reference.exitCode).toBe(2); // missing.yaml
    expect(reference.stdout.length).toBeGreaterThan(1000);
    expect([built.exitCode, built.stdout, built.stderr]).toEqual([reference.exitCode, reference.stdout.replace(/\n$/, ''), reference.stderr.replace(/\n$/, '')]);
  });

  it.skipIf(availableParallelism() < 2)('uses a worker thread when there are enough files and cores', async () => {
    // --cpu-prof writes one profile per thread that ran JavaScript: the main thread and each worker.
    const profiles = join(dir, '..', `${dir.split('/').pop()}-profiles`);
    try {
      await execa(process.execPath, ['--cpu-prof', '--cpu-prof-dir', profiles, GSH, 'init', 'lint', dir], { reject: false });
      expect(readdirSync(profiles).filter((f) => f.endsWith('.cpuprofile')).length).toBeGreaterThanOrEqual(2);
      rmSync(profiles, { recursive: true, force: true });
      await execa(process.execPath, ['--cpu-prof', '--cpu-prof-dir', profiles, GSH, 'init', 'lint', join(dir, 'm001.yaml')], { reject: false });
      expect(readdirSync(profiles).filter((f) => f.endsWith('.cpuprofile'))).toHaveLength(1);
    } finally {
      rmSync(profiles, { recursive: true, force: true });
    }
  });
});
