import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { type DocTree, leaves } from '../../src/docs/command-tree.js';
import { loadDocTree } from '../../src/program.js';
import { formatReference, type ReferenceEntry, referenceEntries } from '../../src/docs/reference.js';

// Issue 3 item 3: `gsh reference --json` names, for each of the contract's 325 operations, a leaf
// command that reaches it, with paths written as in the contract.
const tsv = readFileSync(new URL('../fixtures/spec/operations.tsv', import.meta.url), 'utf8');
const specOps = new Set(tsv.split('\n').slice(1).filter((l) => l.trim()).map((l) => l.split('\t').join(' ')));

let tree: DocTree;
let entries: ReferenceEntry[];
beforeAll(async () => {
  tree = await loadDocTree();
  entries = referenceEntries(tree);
});

const entry = (command: string) => {
  const e = entries.find((x) => x.command === command);
  if (!e) throw new Error(`no reference entry for ${command}`);
  return e;
};
const placeholders = (path: string) => [...path.matchAll(/\{(\w+)\}|<(\w+)>/g)].map((m) => (m[1] ?? m[2])!).filter((p) => p !== 'server_id');

describe('gsh reference --json', () => {
  it('every one of the 325 operations is named by at least one leaf', () => {
    expect(specOps.size).toBe(325);
    const named = new Set(entries.flatMap((e) => e.operations.map((o) => `${o.method} ${o.path}`)));
    expect([...specOps].filter((op) => !named.has(op))).toEqual([]);
  });

  it('every operation named is one of the contract, path written as there', () => {
    for (const e of entries) for (const o of e.operations) expect(specOps, `${e.command}: ${o.method} ${o.path}`).toContain(`${o.method} ${o.path}`);
  });

  it('has one entry per leaf command, with exactly the documented keys', () => {
    expect(entries.map((e) => e.command).sort()).toEqual(leaves(tree.root).map((c) => c.words.join(' ')).sort());
    expect(new Set(entries.map((e) => e.command)).size).toBe(entries.length);
    for (const e of entries) {
      expect(Object.keys(e).sort()).toEqual(['arguments', 'command', 'example', 'operations', 'options', 'permission', 'scope', 'summary']);
      for (const o of e.options) expect(Object.keys(o).sort()).toEqual(['choices', 'flags', 'required']);
      for (const a of e.arguments) expect(Object.keys(a).sort()).toEqual(['name', 'required']);
    }
  });

  it('lists generated commands first, so the first command naming an operation is the generated one', () => {
    const generated = new Set(leaves(tree.root).filter((c) => c.generated).map((c) => c.words.join(' ')));
    const firstHandWritten = entries.findIndex((e) => !generated.has(e.command));
    expect(firstHandWritten).toBe(generated.size);
    const first = new Map<string, string>();
    for (const e of entries) for (const o of e.operations) if (!first.has(`${o.method} ${o.path}`)) first.set(`${o.method} ${o.path}`, e.command);
    expect(first.get('POST /servers/{server_id}/files/upload')).toBe('files upload');
    expect(first.get('POST /servers/{server_id}/files/download')).toBe('files download');
  });

  it('running a leaf with its required arguments fills every placeholder of its path', () => {
    for (const e of entries) {
      // gsh config takes its servers, hooks, users and config types from declaration files and
      // the servers' own listings, never from arguments (README "Configuration as code").
      if (e.command.startsWith('config ')) continue;
      for (const o of e.operations) {
        // Hand-written leaves may take more (`files put <file>`, a local file); never fewer.
        const wanted = placeholders(o.path);
        const required = e.arguments.filter((a) => a.required).map((a) => a.name.replace(/-/g, '_'));
        expect(required.filter((a) => wanted.includes(a)), `${e.command}: ${o.path}`).toEqual(wanted);
        // The server comes from -s, required, or from the optional `server` argument (`gsh power kill lobby`).
        if (o.path.includes('{server_id}')) {
          const byFlag = e.options.find((x) => x.flags.startsWith('-s, --server'));
          expect(byFlag, e.command).toBeDefined();
          expect(byFlag!.required || e.arguments.some((a) => a.name === 'server' && !a.required), e.command).toBe(true);
        }
      }
    }
  });

  it('power verbs each name the power operation, with scope and permission', () => {
    for (const verb of ['start', 'stop', 'restart', 'kill']) {
      expect(entry(`power ${verb}`)).toMatchObject({
        operations: [{ method: 'POST', path: '/servers/{server_id}/power' }],
        scope: 'servers:power',
        permission: 'control.start (signal start); control.stop (signal stop, kill); control.restart (signal restart)',
      });
    }
  });

  it('structured scopes and permissions print as one readable text (operations/access-text.ts)', () => {
    expect(entry('files transfer')).toMatchObject({
      scope: 'servers:files:read and servers:files:write',
      permission: 'file.read; file.create on the server in target_server_id',
    });
    expect(entry('addons modpack install').permission).toBe('file.update; file.delete (mode clean)');
    expect(entry('files copy-to').permission).toBe('file.update (mode cut)');
    expect(entry('settings update').permission).toContain('settings.edit (done_message, stop_command, timezone, auto_stop, start_on_join)');
    expect(entry('files list')).toMatchObject({ scope: 'servers:files:read', permission: 'file.read' });
  });

  it('documented values and required body fields come from the registry', () => {
    const events = entry('hooks create').options.find((o) => o.flags.startsWith('--events'));
    expect(events?.choices).toContain('server.started');
    expect(entry('hooks create').options.find((o) => o.flags.startsWith('--url'))?.required).toBe(true);
    expect(entry('servers list').options.find((o) => o.flags.startsWith('--search'))?.required).toBe(false);
  });

  it('hand-written commands are leaves too, and name the operations they declare', () => {
    expect(entry('api').operations).toEqual([]);
    expect(entry('completion').arguments).toEqual([{ name: 'shell', required: false }]);
    expect(entry('completion').options.map((o) => o.flags)).toEqual(['--dir <dir>']);
  });

  it('the text form lists each leaf with its API lines and the global flags', () => {
    const text = formatReference(tree);
    expect(text).toMatch(/^Global flags \(every command\):\n {2}-V, --version/);
    expect(text).toContain('gsh files trash restore\n');
    expect(text).toMatch(/gsh power kill \[server\]\n {2}Kill: .*\n {2}API: POST \/servers\/\{server_id\}\/power\n {2}scope: servers:power/);
    expect(text).toContain('  -o, --output <format>  output format [one of table, json, jsonl, yaml, csv, tsv, markdown]');
  });
});
