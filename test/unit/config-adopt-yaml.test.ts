import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { editYaml } from '../../src/config-code/adopt-yaml.js';

// gsh config adopt's in-place edit (README "Configuration as code", "Adopt: taking a live change
// into the files"): only the bytes of each changed value are replaced; the result reads back as the
// file with those values set, or the edit is refused.

const FILE = [
  '# head comment',
  'version: 1',
  'servers:',
  '  "lobby-*":',
  '    properties: { motd: Welcome, pvp: true }   # flow map',
  '    hooks:',
  '      - url: https://a',
  '        events: [a, b]  # flow list',
  '      - url: https://b',
  '        events:',
  '          - a   # first',
  '          - b',
  '        enabled: true',
  "    quoted: 'forty'  # single",
  '    block: |',
  '      line',
  '    n: 40       # number',
  '',
].join('\n');

const edited = (edits: Parameters<typeof editYaml>[1]) => {
  const r = editYaml(FILE, edits);
  if ('problem' in r) throw new Error(r.problem);
  return r.text;
};
const at = (...p: Array<string | number>) => ['servers', 'lobby-*', ...p];

describe('editYaml', () => {
  it('replaces only the value\'s bytes: comments, flow spacing, quoting and blank layout kept', () => {
    const out = edited([
      { path: at('properties', 'motd'), old: 'Welcome', value: 'Hi, there' },
      { path: at('hooks', 0, 'events'), old: ['a', 'b'], value: ['c'] },
      { path: at('quoted'), old: 'forty', value: 'fifty' },
      { path: at('n'), old: 40, value: 33 },
    ]);
    expect(out).toBe(FILE
      .replace('motd: Welcome,', 'motd: "Hi, there",')
      .replace('events: [a, b]  #', 'events: [c]  #')
      .replace("'forty'", "'fifty'")
      .replace('n: 40       #', 'n: 33       #'));
  });

  it('a block list stays a block list at its column; a block scalar becomes a quoted line', () => {
    const out = edited([
      { path: at('hooks', 1, 'events'), old: ['a', 'b'], value: ['x', 'y: z'] },
      { path: at('block'), old: 'line\n', value: 'other' },
    ]);
    expect(out).toContain('        events:\n          - x\n          - "y: z"\n        enabled: true\n');
    expect(out).toContain('    block: "other"\n    n: 40       # number\n');
    expect(parseDocument(out).toJS().servers['lobby-*'].hooks[1].events).toEqual(['x', 'y: z']);
  });

  it('a value that is no longer what was read, or is an alias, is refused and nothing is made', () => {
    expect(editYaml(FILE, [{ path: at('n'), old: 41, value: 33 }])).toEqual({ problem: 'servers["lobby-*"].n changed since it was read' });
    const aliased = 'version: 1\nx: &v 40\nservers:\n  a:\n    n: *v\n';
    expect(editYaml(aliased, [{ path: ['servers', 'a', 'n'], old: 40, value: 33 }])).toEqual({ problem: 'servers.a.n is not written as a value of its own (an alias or a merge key)' });
  });
});
