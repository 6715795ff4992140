import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bench, GSH } from './harness.js';

// Issue 4, item 7: `gsh init lint` budgets. The pre-commit case (one manifest) within 2x of
// `node -e 0`; 1,000 manifests of about 2 KB in one invocation in under 1.5 s.

/** A valid manifest of about 2 KB that touches every section. */
function manifest(i: number): string {
  let text = `#service-init
version: 1
application:
  slug: minecraft
  version: "1.21.1"
  loader: paper
env:
${Array.from({ length: 10 }, (_, k) => `  VAR_${k}: value-${i}-${k}\n`).join('')}files:
${Array.from({ length: 4 }, (_, k) => `  - path: config/file-${k}.yml\n    content: |\n      key: value ${i}\n      other: ${k}\n    mode: "0644"\n`).join('')}assets:
  - url: https://cdn.example.com/world.zip
    size: 1048576
    sha256: ${'a'.repeat(64)}
run:
  commands: [say hello, whitelist on]
  timeout: 300
schedules:
  - name: nightly restart
    cron: "0 4 * * *"
    tasks:
      - {action: power, payload: restart}
hooks:
  - url: https://hooks.example.com/gsh
    events: [server.started, server.crashed]
    secret: 0123456789abcdef0123
access:
  - email: ops@example.com
    permissions: [control.console, file.read]
`;
  while (text.length < 2000) text += '# padding to about two kilobytes, as a commented manifest would be\n';
  return text;
}

describe('gsh init lint budgets', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'gsh-bench-init-'));
    for (let i = 0; i < 1000; i++) writeFileSync(join(dir, `m${String(i).padStart(4, '0')}.yaml`), manifest(i));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('one manifest (the pre-commit case): ≤ 2x node -e 0', () => {
    const r = bench({ name: 'gsh init lint one.yaml', args: [GSH, 'init', 'lint', join(dir, 'm0000.yaml')], runs: 20, expectStatus: 0 });
    expect(r.ratio).toBeLessThanOrEqual(2);
  });

  it('1,000 manifests of about 2 KB in one invocation: < 1.5 s', () => {
    const r = bench({ name: 'gsh init lint 1,000 manifests', args: [GSH, 'init', 'lint', dir], runs: 5, expectStatus: 0 });
    expect(r.medianMs).toBeLessThan(1500);
  });
});
