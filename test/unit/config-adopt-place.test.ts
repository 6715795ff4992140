import { beforeAll, describe, expect, it } from 'vitest';
import { placeOf } from '../../src/config-code/adopt.js';
import { lintText, loadLibraries, provenanceFor } from '../../src/config-code/files.js';
import type { Change, FieldDiff, Kind } from '../../src/config-code/kind.js';
import { kindNamed } from '../../src/config-code/kinds/index.js';

// Where gsh config adopt writes a drifted value (README "Configuration as code", "Adopt: taking a
// live change into the files"): the entry the fleet merge took it from (files.ts provenanceFor),
// through the kind's own mapping back to the declared form; a kind without one is named.

beforeAll(loadLibraries);

const FLEET = [
  'version: 1',
  'defaults:',
  '  properties: { motd: Welcome, pvp: true, difficulty: easy }',
  '  subusers:',
  '    - user_id: 101',
  '      permissions: [file.read]',
  'servers:',
  '  "lobby-*":',
  '    properties: { motd: Lobby, max-players: 60 }',
  '    subusers:',
  '      - user_id: 7',
  '        permissions: [file.read]',
  '      - user_id: 101',
  '        permissions: [control.console]',
  '  lobby-1:',
  '    properties: { motd: The first }',
  '',
].join('\n');

const file = () => lintText('fleet.yaml', FLEET);
const update = (kind: string, path: string, live: unknown, declared: unknown): [Change, FieldDiff] => {
  const field: FieldDiff = { path, live, declared };
  return [{ kind, action: 'update', item: kind, fields: [field], spec: { method: 'PUT', path: '/x' } }, field];
};

describe('the entry that won the merge', () => {
  it('records, per key, the most specific block that declared it; a list kind is the block that replaced it whole', () => {
    const prov = provenanceFor(file(), { id: '1', name: 'lobby-1' });
    expect(prov.origin(['properties', 'motd'])).toEqual(['servers', 'lobby-1']);
    expect(prov.origin(['properties', 'max-players'])).toEqual(['servers', 'lobby-*']);
    expect(prov.origin(['properties', 'pvp'])).toEqual(['defaults']);
    expect(prov.origin(['subusers', 1, 'permissions'])).toEqual(['servers', 'lobby-*']);
    expect(prov.origin(['properties', 'level-seed'])).toBeUndefined();
    // Another server the glob does not take: the defaults.
    expect(provenanceFor(file(), { id: '2', name: 'other' }).origin(['properties', 'motd'])).toEqual(['defaults']);
  });

  it('placeOf: a server.properties key and a subuser\'s permissions go to their entries, as the file declares them', () => {
    const prov = provenanceFor(file(), { id: '1', name: 'lobby-1' });
    const props = kindNamed('properties')!;
    expect(placeOf(props, ...update('properties', 'properties.max-players', '70', 60), prov)).toEqual({ from: ['servers', 'lobby-*'], at: ['max-players'], old: 60, value: 70 });
    expect(placeOf(props, ...update('properties', 'properties.motd', 'Hi', 'The first'), prov)).toEqual({ from: ['servers', 'lobby-1'], at: ['motd'], old: 'The first', value: 'Hi' });
    const users = kindNamed('subusers')!;
    expect(placeOf(users, ...update('subusers', 'subusers[101].permissions', ['file.read'], ['control.console']), prov)).toEqual({ from: ['servers', 'lobby-*'], at: [1, 'permissions'], old: ['control.console'], value: ['file.read'] });
  });

  it('a kind without adopt is refused by name; a create and a delete are left', () => {
    const prov = provenanceFor(file(), { id: '1', name: 'lobby-1' });
    const { adopt: _, ...rest } = kindNamed('properties')!;
    const without = rest as Kind;
    expect(placeOf(without, ...update('properties', 'properties.motd', 'Hi', 'The first'), prov)).toEqual({ code: 'kind_cannot_adopt', reason: 'gsh config adopt cannot take properties into a file yet' });
    const [ch, f] = update('subusers', 'subusers[5].permissions', null, ['file.read']);
    expect(placeOf(kindNamed('subusers')!, { ...ch, action: 'create' }, f, prov)).toMatchObject({ code: 'not_live' });
    expect(placeOf(kindNamed('subusers')!, { ...ch, action: 'delete' }, f, prov)).toMatchObject({ code: 'not_declared_item' });
  });
});
