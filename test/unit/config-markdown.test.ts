import { describe, expect, it } from 'vitest';
import { diffMarkdown, type DiffEntry } from '../../src/config-code/markdown.js';
import { markdownCell } from '../../src/core/terminal/output.js';

// `gsh config diff -o markdown` (README "Configuration as code"): a pull-request comment, within
// GitHub's comment limit of 65,536 characters (the limit gsh keeps is 65,000), a table per kind,
// write-only values masked (02-endpoints-part-a.md "Webhooks": the secret is returned only at
// creation, so it is never compared or shown).

const entry = (i: number): DiffEntry => ({
  server_id: `id-${i}`,
  server_name: `lobby-${String(i).padStart(3, '0')}`,
  in_sync: false,
  changes: [
    { kind: 'properties', action: 'update', item: 'properties', fields: Array.from({ length: 4 }, (_, k) => ({ path: `properties.key-${k}`, live: 'x'.repeat(300), declared: `declared ${k}` })) },
    { kind: 'hooks', action: 'create', item: 'hooks[https://h.example.com/a]', fields: [{ path: 'hooks[https://h.example.com/a].url', live: null, declared: 'https://h.example.com/a' }] },
  ],
  not_compared: ['hooks[https://h.example.com/a].secret'],
});

describe('diff -o markdown', () => {
  it('150 drifted servers: within 65,000 characters, a summary line, a table per kind, the rest counted', () => {
    const entries = [...Array.from({ length: 150 }, (_, i) => entry(i)), { server_id: 'gone', server_name: 'gone', in_sync: null, error: { message: 'node did not answer' } }];
    const text = diffMarkdown(entries);
    expect(text.length).toBeLessThanOrEqual(65_000);
    expect(text.split('\n')[0]).toBe('### gsh config diff: 150 servers of 151 differ, 1 could not be read');
    expect(text).toContain('750 differences: properties 600, hooks 150.');
    expect(text).toMatch(/^#### properties \(150 servers\)\n\n\| Server \| Path \| Live \| Declared \| Change \|\n\|( --- \|){5}\n\| lobby-000 \| properties.key-0 \| x{119}… \| declared 0 \| update \|$/m);
    // What did not fit is counted, by kind, and it adds up with the rows shown.
    const shown = (text.match(/^\| lobby-\d{3} \| (?!hooks\[https:\/\/h\.example\.com\/a\]\.secret)/gm) ?? []).length;
    const [, n, props, hooks] = /Not shown, to keep this comment within 65,000 characters: (\d+) more differences \(properties (\d+)(?:, hooks (\d+))?\) on \d+ servers/.exec(text) ?? [];
    expect(Number(n)).toBe(750 - shown);
    expect(Number(props) + Number(hooks ?? 0)).toBe(Number(n));
    expect(text).toContain('#### Not read\n\n- gone: node did not answer');
  });

  it('few servers: every row, the write-only secret masked, never a value', () => {
    const text = diffMarkdown([entry(1)]);
    expect(text).not.toMatch(/Not shown/);
    expect(text).toContain('#### hooks (1 server)');
    expect(text).toContain('| lobby-001 | hooks\\[https://h.example.com/a\\].secret | (write-only) | (masked) | not compared |');
  });

  it('service text stays text: pipes, markup, HTML and mentions are escaped, a newline does not end the row', () => {
    expect(markdownCell('a|b *x* @team <b> [l](u) `c` #1\nnext')).toBe('a\\|b \\*x\\* &#64;team &#60;b&#62; \\[l\\](u) \\`c\\` \\#1 next');
  });
});
