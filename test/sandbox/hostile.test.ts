import { describe, expect, it } from 'vitest';
import { HOSTILE, HOSTILE_BARE_CR, hostileBody, hostileConsoleArgs } from '../../src/sandbox/hostile.js';

// Hostile mode (src/sandbox/hostile.ts; issue #44): what a person reads carries the escapes, what
// a client follows keeps its bytes, so every command still runs against it.

const hostile = (s: string) => s.endsWith(HOSTILE) || s.endsWith(HOSTILE_BARE_CR);

describe('hostile answers', () => {
  it('carry every kind of trouble: CSI, OSC 0/8/52, DCS, C1, bidi, zero-width, wide, CR, LF, TAB', () => {
    for (const part of ['\x1b[8m', '\x1b]0;', '\x1b]8;;', '\x1b]52;', '\x1bP', '\u009b', '\u202e', '\u200b', '宽', '\r', '\n', '\t']) expect(HOSTILE).toContain(part);
    expect(HOSTILE_BARE_CR).toContain('\r');
    expect(HOSTILE_BARE_CR).not.toContain('\n');
  });

  it('decorate names, messages and URLs a person opens; keep ids, codes, states, timestamps and URLs gsh requests', () => {
    const body = hostileBody({
      data: [{ object: 'server', id: 'ab12', name: 'lobby', status: 'running', created_at: '2024-01-01T00:00:00Z', node_id: 'n1', tags: ['a'] }],
      error: { code: 'approval_required', message: 'needs approval', action_url: 'https://real.example/a', approval: { status_url: '/agent/approvals/1' } },
      request_id: 'req_1',
    }) as { data: Record<string, unknown>[]; error: Record<string, unknown> & { approval: Record<string, string> }; request_id: string };
    const [s] = body.data;
    expect([s!.object, s!.id, s!.status, s!.created_at, s!.node_id, body.request_id]).toEqual(['server', 'ab12', 'running', '2024-01-01T00:00:00Z', 'n1', 'req_1']);
    expect(hostile(s!.name as string)).toBe(true);
    expect(hostile((s!.tags as string[])[0]!)).toBe(true);
    expect(body.error.code).toBe('approval_required');
    expect(hostile(body.error.message as string)).toBe(true);
    expect(hostile(body.error.action_url as string)).toBe(true);
    expect(body.error.approval.status_url).toBe('/agent/approvals/1');
    // Bytes (a document, a download) go as they are.
    const bytes = Buffer.from('raw');
    expect(hostileBody(bytes)).toBe(bytes);
  });

  it('decorate console lines and history, not states or stats', () => {
    expect(hostile(hostileConsoleArgs('console output', ['[Server] Done'])[0]!)).toBe(true);
    const page = JSON.parse(hostileConsoleArgs('history output', [JSON.stringify({ data: ['a', 'b'], has_more: false })])[0]!) as { data: string[]; has_more: boolean };
    expect(page.data.every(hostile)).toBe(true);
    expect(page.has_more).toBe(false);
    expect(hostileConsoleArgs('status', ['running'])).toEqual(['running']);
    expect(hostileConsoleArgs('stats', ['{"cpu_absolute":1}'])).toEqual(['{"cpu_absolute":1}']);
  });

  it('with { states: true } decorate states and statuses too (answers and the console\'s status event), nothing else more', () => {
    const body = hostileBody({ data: [{ id: 'ab12', state: 'running', status: 'ok', lifecycle_status: 'active', created_at: '2024-01-01T00:00:00Z' }] }, { states: true }) as { data: Record<string, string>[] };
    const [s] = body.data;
    expect([s!.state!, s!.status!, s!.lifecycle_status!].every(hostile)).toBe(true);
    expect(s!.state!.startsWith('running')).toBe(true);
    expect([s!.id, s!.created_at]).toEqual(['ab12', '2024-01-01T00:00:00Z']);
    expect(hostile(hostileConsoleArgs('status', ['running'], { states: true })[0]!)).toBe(true);
    expect(hostileConsoleArgs('stats', ['{"cpu_absolute":1}'], { states: true })).toEqual(['{"cpu_absolute":1}']);
  });
});
