import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type E2E, setup } from './helpers.js';

// Issue 51 item 2: `--debug` with a secret that holds `"` prints no byte of it after the first
// `"` (01-general-contract.md "Webhooks": the secret is returned once, in the 201). The traced
// request and answer bodies are parsed and their secret fields replaced (src/core/redact.ts).

let t: E2E;
let dir: string;
beforeAll(async () => {
  t = await setup({ servers: 1 });
  dir = mkdtempSync(join(tmpdir(), 'gsh-debug-redaction-'));
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('--debug traces', () => {
  it('hooks create with a secret holding \\" shows none of it, in the request or the 201', async () => {
    const secret = 'abcd"efgh\\"ijklmnop-qrstuvwx';
    const file = join(dir, 'secret.txt');
    writeFileSync(file, `${secret}\n`);
    const server = [...t.sandbox.state.servers.values()][0]!;
    const r = await t.gsh(['hooks', 'create', '-s', server.id, '--url', 'https://example.com/hook', '--secret-file', file, '--debug', '-o', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    // The service got the secret as written, and answered with it.
    const sent = t.sandbox.log.filter((e) => e.method === 'POST' && e.path.endsWith('/hooks')).at(-1)!;
    expect((sent.body as { secret?: string }).secret).toBe(secret);
    expect(r.stderr).toContain('"secret":"[redacted]"');
    for (const piece of ['efgh', 'ijklmnop', 'qrstuvwx']) expect(r.stderr).not.toContain(piece);
  });
});
