import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import type { ServerRecord } from '../../src/sandbox/index.js';
import { type E2E, setup } from './helpers.js';

// One server, one file (issue 51 items 4, 5 and 9; README "Configuration as code", "File
// transfers"): `config export` and `files get` from several servers name every server's file or
// folder at once, before anything is written, and never give two servers one; a name the service
// sent is made a safe file name that the reader takes back. Server names are the service's text
// (02-endpoints-part-a.md "Servers": `name`; a subuser with `settings.rename` may set any).

let t: E2E;
let root: string;
let a: ServerRecord;
let b: ServerRecord;
let c: ServerRecord;
beforeAll(async () => {
  t = await setup({ servers: 4, clock: 'fast' });
  root = mkdtempSync(join(tmpdir(), 'gsh-one-file-'));
  [a, b, c] = [...t.sandbox.state.servers.values()].filter((s) => !s.stored) as [ServerRecord, ServerRecord, ServerRecord];
});
afterAll(async () => {
  await t.close();
  rmSync(root, { recursive: true, force: true });
});

let n = 0;
const fresh = () => join(root, `d${n++}`);
const writes = (mark: number) => t.sandbox.log.slice(mark).filter((e) => e.method !== 'GET');

function rename(pairs: [ServerRecord, string][]): () => void {
  const before = pairs.map(([s]) => [s, s.name] as const);
  for (const [s, name] of pairs) s.name = name;
  return () => { for (const [s, name] of before) s.name = name; };
}

describe('config export: two servers named alike', () => {
  it('each gets NAME--ID.yaml pinned with id:, never one file for both; apply of each writes only its server', async () => {
    // Two servers with server properties (minecraft), named alike.
    const [m1, m2] = [...t.sandbox.state.servers.values()].filter((s) => s.application === 'minecraft' && !s.stored) as [ServerRecord, ServerRecord];
    const undo = rename([[m1, 'twin'], [m2, 'twin']]);
    try {
      const dir = fresh();
      const refs = `id:${m1.id},id:${m2.id}`;
      const dry = await t.gsh(['config', 'export', '-s', refs, '--dir', dir, '--only', 'properties', '--dry-run']);
      expect(dry.exitCode, dry.stderr).toBe(0);
      const r = await t.gsh(['config', 'export', '-s', refs, '--dir', dir, '--only', 'properties', '--force', '-o', 'json']);
      expect(r.exitCode, r.stderr).toBe(0);
      const rows = JSON.parse(r.stdout) as { server_id: string; file: string }[];
      const files = rows.map((x) => x.file);
      expect(new Set(files).size).toBe(2);
      expect(readdirSync(dir).sort()).toEqual([`twin--${m1.id}.yaml`, `twin--${m2.id}.yaml`].sort());
      // The dry run named exactly these paths.
      for (const f of files) expect(dry.stdout + dry.stderr).toContain(f);
      const fileA = join(dir, `twin--${m1.id}.yaml`);
      const doc = YAML.parse(readFileSync(fileA, 'utf8')) as { id: string; server: string; properties: Record<string, unknown> };
      expect(doc.id).toBe(m1.id);
      expect(doc.server).toBe('twin');
      // Apply of the first server's file, with a change, writes to that server only.
      doc.properties.motd = 'only-the-first';
      writeFileSync(fileA, YAML.stringify(doc));
      const mark = t.sandbox.log.length;
      const apply = await t.gsh(['config', 'apply', fileA, '--yes']);
      expect(apply.exitCode, apply.stderr).toBe(0);
      const w = writes(mark);
      expect(w.length).toBeGreaterThan(0);
      expect(w.every((e) => e.path.startsWith(`/servers/${m1.id}/`))).toBe(true);
    } finally {
      undo();
    }
  });

  it('names alike but for case, or for a replaced character, are told apart the same way', async () => {
    const undo = rename([[a, 'Lobby'], [b, 'lobby'], [c, 'lo/bby']]);
    try {
      const dir = fresh();
      const r = await t.gsh(['config', 'export', '-s', `id:${a.id},id:${b.id},id:${c.id}`, '--dir', dir, '--only', 'properties']);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(readdirSync(dir).sort()).toEqual([`Lobby--${a.id}.yaml`, `lobby--${b.id}.yaml`, `lo_bby.yaml`].sort());
    } finally {
      undo();
    }
  });

  it('server: NAME that two servers answer to: diff and apply exit 2 naming both ids; nothing is written', async () => {
    const undo = rename([[a, 'twin'], [b, 'twin']]);
    try {
      const dir = fresh();
      mkdirSync(dir, { recursive: true });
      const file = join(dir, 'twin.yaml');
      writeFileSync(file, 'version: 1\nserver: twin\nproperties:\n  motd: hello\n');
      for (const cmd of [['diff'], ['apply', '--yes']]) {
        const mark = t.sandbox.log.length;
        const r = await t.gsh(['config', ...cmd, file]);
        expect(r.exitCode).toBe(2);
        expect(r.stderr).toContain(`server: "twin" names 2 servers`);
        expect(r.stderr).toContain(a.id);
        expect(r.stderr).toContain(b.id);
        expect(writes(mark)).toEqual([]);
      }
      // A fleet file's exact key too.
      writeFileSync(file, 'version: 1\nservers:\n  twin:\n    properties:\n      motd: hello\n');
      const r = await t.gsh(['config', 'diff', file]);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain(`servers: "twin" names 2 servers`);
    } finally {
      undo();
    }
  });
});

describe('safe file names and headers (issue 51 item 9)', () => {
  it('ESC, CR, LF and a leading dot are replaced in the file name; the header is one line of text; lint and diff of the directory read the file back', async () => {
    const hostile = '.evil\x1b]0;pwn\x07\r\nname';
    const undo = rename([[a, hostile]]);
    try {
      const dir = fresh();
      const dry = await t.gsh(['config', 'export', '-s', `id:${a.id}`, '--dir', dir, '--only', 'properties', '--dry-run']);
      const r = await t.gsh(['config', 'export', '-s', `id:${a.id}`, '--dir', dir, '--only', 'properties']);
      expect(r.exitCode, r.stderr).toBe(0);
      const [name] = readdirSync(dir);
      expect(name).toBe('_evil_]0;pwn___name.yaml');
      expect(dry.stdout + dry.stderr).toContain(join(dir, name!));
      const text = readFileSync(join(dir, name!), 'utf8');
      // eslint-disable-next-line no-control-regex
      expect(text).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
      const header = text.split('\n').filter((l) => l.startsWith('#'));
      expect(header[0]).toBe('# gsh config export of .evil\\u001b]0;pwn\\u0007\\u000d\\u000aname. Edit, then: gsh config diff FILE; gsh config apply FILE');
      // Every line that is not YAML data is a comment: nothing of the name started a line of its own.
      expect(text.split('\n').filter((l) => l !== '' && !l.startsWith('#') && !/^(\s|version:|server:|id:|properties:)/.test(l))).toEqual([]);
      const lint = await t.gsh(['config', 'lint', dir]);
      expect(lint.exitCode, lint.stdout).toBe(0);
      const diff = await t.gsh(['config', 'diff', dir, '-o', 'json']);
      expect(diff.exitCode, diff.stderr).toBe(0);
      expect((JSON.parse(diff.stdout) as { server_id: string }[]).map((x) => x.server_id)).toEqual([a.id]);
    } finally {
      undo();
    }
  });
});

describe('export --dry-run shows the paths the run writes', () => {
  it('a name with dot segments and separators: the dry run and the run name one path, inside --dir', async () => {
    const undo = rename([[a, '../../escape/me']]);
    try {
      const dir = fresh();
      const dry = await t.gsh(['config', 'export', '-s', `id:${a.id}`, '--dir', dir, '--only', 'properties', '--dry-run']);
      expect(dry.exitCode, dry.stderr).toBe(0);
      const r = await t.gsh(['config', 'export', '-s', `id:${a.id}`, '--dir', dir, '--only', 'properties', '-o', 'json']);
      expect(r.exitCode, r.stderr).toBe(0);
      const [row] = JSON.parse(r.stdout) as { file: string }[];
      expect(row!.file).toBe(join(dir, '_._.._escape_me.yaml'));
      expect(dry.stdout + dry.stderr).toContain(`write ${row!.file}`);
      expect(readdirSync(dir)).toEqual(['_._.._escape_me.yaml']);
    } finally {
      undo();
    }
  });
});

describe('files get from several servers: a folder each', () => {
  it('a name equal to another server\'s id and two names alike: distinct folders, both files kept', async () => {
    // c is named as a's id; a and b share a name.
    const undo = rename([[a, 'same'], [b, 'same'], [c, a.id]]);
    try {
      const into = fresh();
      mkdirSync(into, { recursive: true });
      const local = join(root, 'x.txt');
      writeFileSync(local, 'x');
      const put = await t.gsh(['files', 'put', local, '-s', `id:${a.id},id:${b.id},id:${c.id}`, '--dir', '/']);
      expect(put.exitCode, put.stderr).toBe(0);
      // By name: a glob for the two alike, and one for the server named as a's id.
      const r = await t.gsh(['files', 'get', '/x.txt', '-s', '[s]ame', '-s', `${a.id.slice(0, 6)}*`, '--to', `${into}/`, '-o', 'json']);
      expect(r.exitCode, r.stderr + r.stdout).toBe(0);
      const folders = readdirSync(into).sort();
      expect(folders).toHaveLength(3);
      expect(folders).toEqual([a.id, b.id, c.id].sort());
      for (const f of folders) expect(readFileSync(join(into, f, 'x.txt'), 'utf8')).toBe('x');
    } finally {
      undo();
    }
  });
});
