import { describe, expect, it } from 'vitest';
import { redactBody, truncateForTrace } from '../../../src/core/redact.js';
import { loadAllFamilies } from '../../../src/operations/index.js';

// Issue 51 item 2: --debug traces mask secrets by the body's structure, not by a pattern over its
// text (01-general-contract.md "Authentication": credentials are never logged). A pattern that
// reads a JSON string up to the next `"` stops at an escaped quote and prints the rest.

/** A secret holding an escaped quote, a backslash and unicode: no byte after its first `"` may show. */
const SECRET = 'abc"TAIL-after-quote\\\\"more\u00e9\u2028end';
const TAIL = SECRET.slice(SECRET.indexOf('"') + 1);
const pieces = (s: string) => s.split(/["\\\u2028]/).filter((p) => p.length >= 3);

function expectNoSecret(trace: string) {
  expect(trace).not.toContain(SECRET.slice(0, 3) + '"');
  for (const p of pieces(TAIL)) expect(trace).not.toContain(p);
  expect(trace).not.toContain(JSON.stringify(SECRET).slice(1, -1));
}

describe('truncateForTrace: JSON bodies by structure', () => {
  it('every secret field the registry declares, at the top and nested, compact and pretty', async () => {
    const fields = (await loadAllFamilies()).flatMap((f) => f.operations.flatMap((o) => [...(o.body ?? []), ...(o.query ?? [])].filter((x) => x.secret).map((x) => `${o.command}: ${x.name}`)));
    // The registry's secrets (hooks create's secret, the agent's assertion, claim and revoked tokens).
    expect(fields.length).toBeGreaterThanOrEqual(4);
    for (const entry of fields) {
      const name = entry.split(': ')[1]!;
      for (const body of [{ [name]: SECRET, url: 'https://example.com/h' }, { data: { object: 'x', [name]: SECRET } }, [{ [name]: SECRET }]]) {
        for (const text of [JSON.stringify(body), JSON.stringify(body, null, 2)]) {
          const trace = truncateForTrace(text);
          expectNoSecret(trace);
          expect(trace, entry).toContain(`"${name}":"[redacted]"`);
        }
      }
    }
  });

  it('answers carry secrets too: access and refresh tokens, a hook secret, any …_token', () => {
    const trace = truncateForTrace(JSON.stringify({ data: { access_token: SECRET, refresh_token: SECRET, webhook_secret: SECRET, session_token: SECRET, name: 'lobby' } }));
    expectNoSecret(trace);
    expect(JSON.parse(trace)).toEqual({ data: { access_token: '[redacted]', refresh_token: '[redacted]', webhook_secret: '[redacted]', session_token: '[redacted]', name: 'lobby' } });
  });

  it('a body that does not parse is not printed past its first secret-looking key', () => {
    const broken = `{"url":"https://example.com","secret":${JSON.stringify(SECRET)},"events":[`;
    const trace = truncateForTrace(broken);
    expectNoSecret(trace);
    expect(trace.startsWith('{"url":"https://example.com","secret":')).toBe(true);
    expect(trace).toContain('not JSON');
    expect(truncateForTrace(`grant_type=x&assertion=${encodeURIComponent(SECRET)}&a=1`)).not.toContain('TAIL');
    // Text with no such key is shown as it came.
    expect(truncateForTrace('<html>Bad gateway</html>')).toBe('<html>Bad gateway</html>');
  });

  it('long bodies are still cut after masking', () => {
    const trace = truncateForTrace(JSON.stringify({ secret: SECRET, pad: 'x'.repeat(5000) }));
    expect(trace).toMatch(/… \(\d+ more bytes\)$/);
    expectNoSecret(trace);
  });
});

describe('redactBody (plans)', () => {
  it('masks at any depth, keys compared without case', () => {
    expect(redactBody({ a: [{ Password: 'p' }], b: { client_secret: 's', keep: 1 } })).toEqual({ a: [{ Password: '[redacted]' }], b: { client_secret: '[redacted]', keep: 1 } });
  });
});
