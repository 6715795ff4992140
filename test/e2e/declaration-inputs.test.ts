import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerRecord } from '../../src/sandbox/index.js';
import { type E2E, setup } from './helpers.js';

// Declaration files come from pull requests (issue 51 items 5, 7, 8; README "Configuration as
// code": limits, secrets, reports): bounded reads, no secret that is gsh's credential, and lint
// reports whose file text cannot drive a terminal or a CI log. Webhook secrets are returned only
// at creation (02-endpoints-part-a.md "Webhooks"), so a file names a variable for one.

let t: E2E;
let root: string;
let s: ServerRecord;
beforeAll(async () => {
  t = await setup({ servers: 2, clock: 'fast' });
  root = mkdtempSync(join(tmpdir(), 'gsh-decl-'));
  s = [...t.sandbox.state.servers.values()][0]!;
  t.sandbox.families.allowLocalWebhooks(true);
});
afterAll(async () => {
  await t.close();
  rmSync(root, { recursive: true, force: true });
});

let n = 0;
function file(text: string | Buffer, name = `f${n++}.yaml`): string {
  const dir = join(root, `d${n++}`);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('bounded inputs: size, devices, depth', () => {
  it('/dev/zero and a FIFO are refused (exit 2, "not a regular file"), by lint, diff and apply, nothing sent', async () => {
    const fifo = join(root, 'fifo.yaml');
    execFileSync('mkfifo', [fifo]);
    for (const path of ['/dev/zero', fifo]) {
      for (const cmd of [['lint'], ['diff'], ['apply', '--yes']]) {
        const mark = t.sandbox.log.length;
        const r = await t.gsh(['config', ...cmd, path], { timeout: 10_000 });
        expect(r.timedOut).toBe(false);
        expect(r.exitCode).toBe(2);
        expect(r.stderr).toContain(`cannot read ${path}: not a regular file`);
        expect(t.sandbox.log.length).toBe(mark);
      }
    }
  });

  it('an 80 MB declaration is refused unread within 5 s (exit 2 naming the 1 MiB limit); 1 MiB itself is read', async () => {
    const big = file(Buffer.alloc(80 * 1024 * 1024, 'a'));
    const started = Date.now();
    const r = await t.gsh(['config', 'lint', big]);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`cannot read ${big}: 83,886,080 bytes; a declaration file is at most 1,048,576 bytes (1 MiB)`);
    const atLimit = `version: 1\nserver: ${s.name}\n#${'x'.repeat(1024 * 1024 - 12 - s.name.length - 10)}\n`;
    expect(Buffer.byteLength(atLimit)).toBeLessThanOrEqual(1024 * 1024);
    const ok = await t.gsh(['config', 'lint', file(atLimit)]);
    expect(ok.exitCode, ok.stdout + ok.stderr).toBe(0);
  });

  it('nesting deeper than 64 levels is a too-deep problem (lint exit 1), found before the parser recurses', async () => {
    const deep = file(`version: 1\nserver: ${s.name}\nproperties:\n  motd: ${'['.repeat(5000)}${']'.repeat(5000)}\n`);
    const r = await t.gsh(['config', 'lint', deep, '--format', 'json']);
    expect(r.exitCode).toBe(1);
    expect((JSON.parse(r.stdout) as { problems: { rule: string; line: number }[] }[])[0]!.problems).toEqual([expect.objectContaining({ rule: 'too-deep', line: 4 })]);
  });
});

describe('${env:NAME} may not be gsh\'s credential', () => {
  const decl = (variable: string) => `version: 1\nserver: ${s.name}\nhooks:\n  - url: https://hooks.example.com/leak\n    events: [server.crashed]\n    secret: \${env:${variable}}\n`;

  it('${env:GSH_API_KEY} (or any GSH_*): lint exit 1 at the secret; apply exits 2 and sends nothing', async () => {
    for (const variable of ['GSH_API_KEY', 'GSH_TOKEN', 'gsh_other']) {
      const f = file(decl(variable));
      const lint = await t.gsh(['config', 'lint', f, '--format', 'json']);
      expect(lint.exitCode).toBe(1);
      const [problem] = (JSON.parse(lint.stdout) as { problems: { rule: string; line: number; message: string }[] }[])[0]!.problems;
      expect(problem).toMatchObject({ rule: 'type', line: 6 });
      expect(problem!.message).toContain(`\${env:${variable}} names one of gsh's own variables`);
      const mark = t.sandbox.log.length;
      const apply = await t.gsh(['config', 'apply', f, '--yes']);
      expect(apply.exitCode).toBe(2);
      expect(t.sandbox.log.length).toBe(mark);
    }
  });

  it('a variable of another name holding the key gsh runs with: apply exits 2 naming it, nothing sent', async () => {
    const f = file(decl('MY_COPY'));
    const lint = await t.gsh(['config', 'lint', f]);
    expect(lint.exitCode).toBe(0);
    const mark = t.sandbox.log.length;
    const apply = await t.gsh(['config', 'apply', f, '--yes'], { env: { MY_COPY: t.sandbox.keys.all } });
    expect(apply.exitCode).toBe(2);
    expect(apply.stderr).toContain(`${f}: \${env:MY_COPY}`);
    expect(apply.stderr).not.toContain(t.sandbox.keys.all);
    expect(t.sandbox.log.length).toBe(mark);
    // A secret of its own is sent as before.
    const own = await t.gsh(['config', 'apply', f, '--yes'], { env: { MY_COPY: 'a-secret-of-its-own' } });
    expect(own.exitCode, own.stderr).toBe(0);
  });
});

describe('lint reports: the file\'s text is shown, never obeyed', () => {
  // A raw ESC in a key (the file's own bytes) and an escaped LF the parser turns into one.
  const hostile = () => `version: 1\nserver: ${s.name}\n"\x1b[8mhidden": x\n"a\\n::error file=x::pwned": 1\n`;
  const OWN_SGR = /\x1b\[(?:0|1|2|4|31|33|31;1|33;1)m/g;

  it('stylish on a colour terminal: only gsh\'s own colours are raw; the file\'s SGR shows as text', async () => {
    const f = file(hostile());
    const r = await t.gsh(['config', 'lint', f], { tty: { stdout: true, stderr: true, columns: 100 }, env: { NO_COLOR: undefined, FORCE_COLOR: '1' } });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain('\x1b[31m');
    expect(r.stdout.replace(OWN_SGR, '')).not.toContain('\x1b');
    expect(r.stdout).toContain('^[[8m');
    for (const line of r.stdout.split('\n')) expect(line.replace(OWN_SGR, '')).not.toMatch(/^::/);
  });

  it('compact and stylish piped, github in CI: a LF in the file never starts a line; only gsh\'s annotations start with ::', async () => {
    const f = file(hostile(), '::error file=y::x.yaml');
    for (const format of ['compact', 'stylish']) {
      const r = await t.gsh(['config', 'lint', f, '--format', format]);
      expect(r.exitCode).toBe(1);
      expect(r.stdout).not.toContain('\x1b');
      for (const line of r.stdout.split('\n')) expect(line).not.toMatch(/^::/);
      expect(r.stdout).toContain('^J::error file=x::pwned');
    }
    const gh = await t.gsh(['config', 'lint', f, '--format', 'github'], { env: { CI: 'true', GITHUB_ACTIONS: 'true' } });
    const annotations = gh.stdout.split('\n').filter((l) => l.startsWith('::'));
    expect(annotations.length).toBeGreaterThan(0);
    for (const line of annotations) expect(line).toMatch(/^::(error|warning) file=[^:]*%3A%3Aerror file=y%3A%3Ax\.yaml,line=\d+,endLine=\d+,col=\d+,endColumn=\d+,title=gsh config lint \([a-z-]+\)::/);
    expect(gh.stdout).not.toContain('\x1b');
  });

  it('init lint stylish on a colour terminal: the same', async () => {
    const f = file('#service-init\nversion: 1\n"\x1b[8mhidden": x\n');
    const r = await t.gsh(['init', 'lint', f], { tty: { stdout: true, stderr: true, columns: 100 }, env: { NO_COLOR: undefined, FORCE_COLOR: '1' } });
    expect(r.exitCode).toBe(1);
    expect(r.stdout.replace(OWN_SGR, '')).not.toContain('\x1b');
    expect(r.stdout).toContain('^[[8m');
  });
});
