import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type E2E, setup } from './helpers.js';

// Issue 51 item 7: what the service chose to send as bytes (a text body of `gsh api`, a file's
// content from `files get` or `files content get`) reaches a terminal with its escape sequences
// shown as text, colours too, whatever --color (README "Security"): a conceal (SGR 8) cannot hide
// the rest of the output or stay on after gsh exits. Piped, the bytes are as they came.
// 03-endpoints-part-b.md "Files": files/content answers the file's text.

let t: E2E;
let S: string;
const TEXT = 'level=info\x1b[8mhidden\x1b[5m blink \x1b]8;;https://evil.example/\x07link\x1b]8;;\x07\n';
beforeAll(async () => {
  t = await setup({ servers: 1, hostile: true });
  S = [...t.sandbox.state.servers.values()][0]!.id;
  const put = await fetch(`${t.sandbox.baseUrl}/servers/${S}/files/content`, {
    method: 'PUT', headers: { authorization: `Bearer ${t.sandbox.keys.all}`, 'content-type': 'application/json' },
    body: JSON.stringify({ path: '/logs/latest.log', content: TEXT }),
  });
  expect(put.status).toBeLessThan(300);
});
afterAll(async () => {
  await t.close();
});

const ESC = /\x1b/;
const tty = { stdout: true, stderr: true, columns: 100 };

describe('service bytes on a terminal, colour on', () => {
  for (const [what, argv] of [
    ['gsh api (a text body)', () => ['api', `/servers/${S}/files/content?path=/logs/latest.log`]],
    ['files content get', () => ['files', 'content', 'get', '-s', S, '--path', '/logs/latest.log']],
    ['files get to the terminal', () => ['files', 'get', '/logs/latest.log', '-s', S]],
  ] as const) {
    it(`${what}: no escape sequence reaches the terminal; each shows as text`, async () => {
      const r = await t.gsh([...argv(), '--color', 'always'], { tty });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).not.toMatch(ESC);
      expect(r.stdout).toContain('level=info^[[8mhidden^[[5m blink ^[]8;;https://evil.example/^Glink');
    });
  }

  it('piped, the bytes are as they came', async () => {
    const r = await t.gsh(['api', `/servers/${S}/files/content?path=/logs/latest.log`]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain(TEXT.trimEnd());
  });
});
