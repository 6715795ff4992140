import { beforeAll, describe, expect, it } from 'vitest';
import { compare, ignored } from '../../src/config-code/compare.js';
import { declarationFor, lintText, loadLibraries } from '../../src/config-code/files.js';
import { lintReport } from '../../src/config-code/lint.js';
import { configJsonSchema } from '../../src/config-code/schema.js';

// Configuration as code, offline (README "Configuration as code"): the linter's checks beyond the
// schema, the fleet merge order, and the comparison's normalisation (02-endpoints-part-a.md
// "Properties": values are text; "Webhooks": the secret is never returned; "Subusers": the
// permission set is replaced).

beforeAll(loadLibraries);

const problems = (text: string) => lintText('f.yaml', text).problems.map((p) => `${p.line}:${p.rule}:${p.message}`);

describe('lint', () => {
  it('a clean one-server file and a clean fleet file', () => {
    expect(problems('version: 1\nserver: lobby\nproperties:\n  motd: hi\n  max-players: 40\n')).toEqual([]);
    expect(problems('version: 1\ndefaults:\n  properties: {pvp: true}\nservers:\n  "lobby-*":\n    hooks:\n      - url: https://h.example.com/a\n')).toEqual([]);
  });

  it('unknown sections and keys with their line and a did-you-mean', () => {
    expect(problems('version: 1\nserver: lobby\nproperites:\n  motd: hi\n')).toEqual(['3:unknown-key:unknown key `properites` at the top level; did you mean `properties`?']);
    expect(problems('version: 1\nserver: lobby\nsettings:\n  stop_comand: stop\n')[0]).toMatch(/^4:unknown-key:.*did you mean `stop_command`/);
    expect(problems('version: 1\nserver: lobby\nhooks:\n  - url: https://h.example.com/a\n    event: [server.crashed]\n')[0]).toMatch(/^5:unknown-key:.*did you mean `events`/);
  });

  it('a value declared twice, a glob that can never match, a rename without an id, a secret written as a value', () => {
    expect(problems('version: 1\nserver: lobby\nhooks:\n  - url: https://h.example.com/a\n  - url: https://h.example.com/a\n')).toEqual([expect.stringMatching(/^5:duplicate-entry:the webhook https:\/\/h\.example\.com\/a is declared twice/)]);
    expect(problems('version: 1\nserver: lobby\nproperties:\n  motd: x\nignore: [properties.motd]\n')).toEqual([expect.stringMatching(/^4:duplicate-entry:properties\.motd is declared and also ignored/)]);
    expect(problems('version: 1\nservers:\n  "lobby-[z-a]":\n    properties: {}\n')).toEqual([expect.stringMatching(/^3:enum:the glob `lobby-\[z-a\]` can never match/)]);
    expect(problems('version: 1\nserver: lobby\nsettings:\n  name: Lobby\n')).toEqual([expect.stringMatching(/^4:required:`settings.name` renames the server/)]);
    expect(problems('version: 1\nid: abc\nsettings:\n  name: Lobby\n')).toEqual([]);
    expect(problems('version: 1\nserver: lobby\nhooks:\n  - url: https://h.example.com/a\n    secret: hunter2hunter2hunter2\n')).toEqual([expect.stringMatching(/^5:type:a secret is written as \$\{env:NAME\}/)]);
  });

  it('a fleet file keeps its sections under defaults or servers; a file is one server or a fleet', () => {
    expect(problems('version: 1\nservers:\n  a: {}\nproperties: {}\n')).toEqual([expect.stringMatching(/^4:unknown-key:`properties` at the top of a fleet file/)]);
    expect(problems('version: 1\nserver: a\nservers:\n  b: {}\n')).toEqual([expect.stringMatching(/^2:one-of:/)]);
    expect(problems('version: 2\nserver: a\n')[0]).toMatch(/^1:/);
  });

  it('the formats of gsh init lint, under this linter\'s name', async () => {
    const f = lintText('servers/lobby.yaml', 'version: 1\nserver: lobby\nproperites: {}\n');
    expect(await lintReport([f], 'github', false)).toMatch(/^::error file=servers\/lobby\.yaml,line=3,endLine=3,col=1,endColumn=11,title=gsh config lint \(unknown-key\)::unknown key `properites`/);
    const sarif = JSON.parse(await lintReport([f], 'sarif', false)) as { runs: Array<{ tool: { driver: { name: string } }; results: unknown[] }> };
    expect(sarif.runs[0]!.tool.driver.name).toBe('gsh config lint');
    expect(sarif.runs[0]!.results).toHaveLength(1);
  });

  it('the JSON Schema names every section', () => {
    const schema = configJsonSchema() as { properties: Record<string, unknown> };
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['version', 'server', 'id', 'defaults', 'servers', 'settings', 'properties', 'startup', 'configs', 'hooks', 'subusers', 'ignore']));
  });
});

describe('fleet merge order: defaults, each matching glob in file order, then the exact name', () => {
  const file = () => lintText('fleet.yaml', [
    'version: 1',
    'defaults:',
    '  properties: {motd: default, pvp: true}',
    '  hooks: [{url: https://h.example.com/default}]',
    'servers:',
    '  "lobby-*":',
    '    properties: {motd: glob1, max-players: 60}',
    '  "*-1":',
    '    properties: {motd: glob2}',
    '    hooks: [{url: https://h.example.com/glob2}]',
    '  lobby-1:',
    '    properties: {difficulty: hard}',
    '',
  ].join('\n'));
  it('maps merge, lists replace', () => {
    const f = file();
    expect(f.problems).toEqual([]);
    const d = declarationFor(f, { id: '1', name: 'lobby-1' });
    expect(d.sections.properties).toEqual({ motd: 'glob2', pvp: true, 'max-players': 60, difficulty: 'hard' });
    expect((d.sections.hooks as { items: Array<{ url: string }> }).items.map((h) => h.url)).toEqual(['https://h.example.com/glob2']);
    expect(declarationFor(f, { id: '2', name: 'lobby-2' }).sections.properties).toEqual({ motd: 'glob1', pvp: true, 'max-players': 60 });
  });
});

describe('compare', () => {
  const base = { serverId: 's1', prune: [], replace: [], env: {}, secrets: false } as const;
  it('properties are text: true equals "true", 60 equals "60"; one PUT with the keys that differ', () => {
    const live = { properties: new Map([['pvp', 'true'], ['max-players', '60'], ['motd', 'a']]) };
    const { changes } = compare({ sections: { properties: { pvp: true, 'max-players': 60, motd: 'b' } } }, live, { ...base, kinds: ['properties'] });
    expect(changes).toHaveLength(1);
    expect(changes[0]!.spec).toEqual({ method: 'PUT', path: '/servers/s1/properties', body: { motd: 'b' } });
  });

  it('events and permissions compare as sets; the secret is not compared and not sent except on create', () => {
    const hooks = [{ id: 'h1', url: 'https://h.example.com/a', events: ['b', 'a'], enabled: true }];
    const r = compare({ sections: { hooks: { prune: false, items: [{ url: 'https://h.example.com/a', events: ['a', 'b'], secret: '${env:S}' }] } } }, { hooks }, { ...base, kinds: ['hooks'] });
    expect(r.changes).toEqual([]);
    expect(r.notCompared).toEqual(['hooks[https://h.example.com/a].secret']);
    const subs = compare({ sections: { subusers: { prune: false, items: [{ user_id: 7, permissions: ['x', 'y'] }] } } }, { subusers: [{ user_id: 7, permissions: ['y', 'x'] }] }, { ...base, kinds: ['subusers'] });
    expect(subs.changes).toEqual([]);
  });

  it('a live webhook not listed is a delete only where the file prunes, held without --prune hooks', () => {
    const hooks = [{ id: 'h9', url: 'https://h.example.com/stray', events: [], enabled: true }];
    expect(compare({ sections: { hooks: { prune: false, items: [] } } }, { hooks }, { ...base, kinds: ['hooks'] }).changes).toEqual([]);
    const held = compare({ sections: { hooks: { prune: true, items: [] } } }, { hooks }, { ...base, kinds: ['hooks'] }).changes;
    expect(held.map((c) => [c.action, c.held !== undefined])).toEqual([['delete', true]]);
    const pruned = compare({ sections: { hooks: { prune: true, items: [] } } }, { hooks }, { ...base, kinds: ['hooks'], prune: ['hooks'] }).changes;
    expect(pruned.map((c) => [c.action, c.held, c.spec.path])).toEqual([['delete', undefined, '/servers/s1/hooks/h9']]);
  });

  it('ignore paths cover the field everywhere below them', () => {
    expect(ignored('hooks[https://x].enabled', ['hooks.enabled'])).toBe(true);
    expect(ignored('properties.motd', ['properties'])).toBe(true);
    expect(ignored('properties.motd2', ['properties.motd'])).toBe(false);
  });

  it('a variable that is not the egg\'s is an error; a new disabled webhook is a create, then a PATCH that depends on it', () => {
    expect(() => compare({ sections: { startup: { variables: { NOPE: 1 } } } }, { startup: new Map([['A', '1']]) }, { ...base, kinds: ['startup'] })).toThrow(/NOPE does not belong to the server's egg/);
    const r = compare({ sections: { hooks: { prune: false, items: [{ url: 'https://h.example.com/n', enabled: false, secret: '${env:S}' }] } } }, { hooks: [] }, { ...base, kinds: ['hooks'], secrets: true, env: { S: 'x'.repeat(20) } });
    expect(r.changes.map((c) => [c.action, c.after])).toEqual([['create', undefined], ['update', 0]]);
    expect(r.changes[0]!.spec.body).toEqual({ url: 'https://h.example.com/n', events: [], secret: 'x'.repeat(20) });
  });
});
