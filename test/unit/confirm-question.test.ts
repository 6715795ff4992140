import { describe, expect, it } from 'vitest';
import { loadAllFamilies } from '../../src/operations/index.js';
import type { Operation } from '../../src/operations/types.js';
import { confirmQuestion, describeAction } from '../../src/leaf/confirm-question.js';

// The delete question says what will happen (issue 50 item 9, as gh and kubectl ask), made from
// the registry: the verb from the command, the thing from the path's parameters, the server by
// name and id, a destructive flag with what it does.

const ops = new Map<string, Operation>();
for (const f of await loadAllFamilies()) for (const op of f.operations) ops.set(op.command, op);
const op = (command: string) => ops.get(command)!;
const words = (command: string) => command.split(' ');
const lobby = { server: { ref: 'lobby', id: '7a94c1e2', name: 'lobby' } };

describe('the question of a destructive operation', () => {
  it.each([
    ['servers delete', [], lobby, 'Delete server lobby (7a94c1e2)'],
    ['backups delete', ['b-1'], lobby, 'Delete backup b-1 on server lobby (7a94c1e2)'],
    ['backups restore', ['b-1'], lobby, 'Restore backup b-1 on server lobby (7a94c1e2)'],
    ['databases backups delete', ['db-1', 'b-1'], lobby, 'Delete backup b-1 of database db-1 on server lobby (7a94c1e2)'],
    ['addons packs items delete', ['p-1', 'modrinth', 'x'], lobby, 'Delete item modrinth/x of custom pack p-1 on server lobby (7a94c1e2)'],
    ['files trash empty', [], lobby, 'Empty files trash on server lobby (7a94c1e2)'],
    ['ssh-keys delete', ['k-1'], {}, 'Delete ssh key k-1'],
    ['init templates delete', ['tpl_1'], {}, 'Delete template tpl_1'],
  ] as const)('%s', (command, args, opts, action) => {
    expect(ops.has(command), command).toBe(true);
    expect(describeAction(op(command), words(command), args, opts)).toBe(action);
  });

  it('a destructive flag given says what it adds, from its description', () => {
    const reinstall = op('servers reinstall');
    const wipe = reinstall.body!.filter((f) => f.name === 'wipe');
    expect(describeAction(reinstall, words('servers reinstall'), [], { ...lobby, destructiveFields: wipe })).toBe('Reinstall server lobby (7a94c1e2) with --wipe (delete the server files first)');
  });

  it('several servers are listed once; the server named by its id when its name is not known', () => {
    expect(describeAction(op('servers delete'), words('servers delete'), [], { servers: ['a (1)', 'b (2)'] })).toBe('Delete 2 servers: a (1), b (2)');
    expect(describeAction(op('backups delete'), words('backups delete'), ['b-1'], { servers: ['a (1)', 'b (2)'] })).toBe('Delete backup b-1 on 2 servers: a (1), b (2)');
    expect(describeAction(op('servers delete'), words('servers delete'), [], { server: { ref: '7a94c1e2', id: '7a94c1e2' } })).toBe('Delete server 7a94c1e2');
  });

  it('every destructive operation of the registry gets a question that names what it acts on', () => {
    for (const o of ops.values()) {
      if (!o.destructive) continue;
      const action = describeAction(o, words(o.command), ['X', 'Y', 'Z'], lobby);
      expect(action, o.command).toMatch(/^[A-Z][a-z]+( [a-z]+)? \S/);
      if (o.path.startsWith('/servers/{server_id}')) expect(action, o.command).toContain('lobby (7a94c1e2)');
      expect(confirmQuestion(action)).toBe(`${action}? This cannot be undone.`);
    }
  });
});
