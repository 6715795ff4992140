import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hooksOf } from '../../src/sandbox/node/webhooks.js';
import { type E2E, setup } from './helpers.js';

// Issue 51 item 7: a line gsh writes to stderr is never a CI runner's command. GitHub takes a
// line starting with `::` (or `##[`) as a workflow command and starts a line at a bare CR;
// service text (a hook URL the service returns, 01-general-contract.md "Webhooks") holding
// `\n::error …` must not start one when stderr is a CI log (not a terminal).

let t: E2E;
let dir: string;
beforeAll(async () => {
  t = await setup({ servers: 1 });
  dir = mkdtempSync(join(tmpdir(), 'gsh-ci-log-'));
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

const commandLines = (stderr: string) => stderr.split(/\r\n|\r|\n/).filter((l) => /^\s*(::|##\[)/.test(l));

describe('stderr in CI (not a terminal)', () => {
  it("config apply's kept note for a live hook whose URL holds \\n::error: no line starts with ::", async () => {
    const server = [...t.sandbox.state.servers.values()][0]!;
    const made = await fetch(`${t.sandbox.baseUrl}/servers/${server.id}/hooks`, {
      method: 'POST', headers: { authorization: `Bearer ${t.sandbox.keys.all}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://hooks.example.com/stray' }),
    });
    const id = ((await made.json()) as { data: { id: string } }).data.id;
    // What a service could answer: the stored URL with a line break and a workflow command after it.
    hooksOf(t.sandbox.extensions.context, server.id).get(id)!.url = 'https://hooks.example.com/stray\n::error file=deploy.yml,line=1::pwned\r::warning::cr\n  ##[error]old form';
    const file = join(dir, 'hooks.yaml');
    writeFileSync(file, `version: 1\nserver: ${server.name}\nhooks:\n  prune: true\n  items: []\n`);
    const r = await t.gsh(['config', 'apply', file, '--yes']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('kept: apply deletes it only with --prune hooks');
    expect(commandLines(r.stderr)).toEqual([]);
    // One line, made visible, not dropped: the text is still there to read.
    const kept = r.stderr.split('\n').filter((l) => l.includes('kept:'));
    expect(kept).toEqual([expect.stringContaining('https://hooks.example.com/stray^J::error file=deploy.yml,line=1::pwned^M::warning::cr^J  ##[error]old form] kept:')]);
  });

  it('a usage error quoting what was typed keeps no command line either', async () => {
    const r = await t.gsh(['servers', 'get', '-s', 'x\n::error::typed']);
    expect(r.exitCode).not.toBe(0);
    expect(commandLines(r.stderr)).toEqual([]);
  });
});
