import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type E2E, setup } from './helpers.js';

// Files against the sandbox's per-server tree (03-endpoints-part-b.md "Files", "File transfers",
// "File tools", "Archives and structured data files"): signed upload and download URLs that move
// real bytes, the 64 KB inline limit, and archives that round-trip.

let t: E2E;
let dir: string;
let S: string;
beforeAll(async () => {
  t = await setup({ servers: 3, clock: 'fast' });
  dir = mkdtempSync(join(tmpdir(), 'gsh-files-'));
  S = [...t.sandbox.state.servers.values()].find((s) => s.application === 'minecraft')?.id ?? [...t.sandbox.state.servers.keys()][0]!;
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

const json = (r: { stdout: unknown }) => JSON.parse(String(r.stdout));
const since = (n: number) => t.sandbox.log.slice(n).map((e) => `${e.method} ${e.path.replace(S, 'S')} ${e.status}`);

describe('files put / files get ("File transfers": signed upload and download URLs)', () => {
  it('moves a multi-megabyte file up and back byte for byte through the node', async () => {
    const local = join(dir, 'world-notes.txt');
    const line = 'Zeile mit Umlauten äöü and emoji 🌍 — line of a large text file\n';
    const content = line.repeat(Math.ceil((5 * 1024 * 1024) / Buffer.byteLength(line)));
    writeFileSync(local, content);
    const mark = t.sandbox.log.length;
    const put = await t.gsh(['files', 'put', local, '-s', S, '--dir', '/uploads', '--json']);
    expect(put.exitCode, String(put.stderr)).toBe(0);
    expect(json(put).files).toEqual([{ path: '/uploads/world-notes.txt', size: Buffer.byteLength(content) }]);
    const upload = t.sandbox.log.slice(mark).find((e) => e.path === '/__node/upload')!;
    expect(upload.query.directory).toBe('/uploads');
    expect(upload.keyId).toBeUndefined();

    const out = join(dir, 'back.txt');
    const get = await t.gsh(['files', 'get', '/uploads/world-notes.txt', '-s', S, '--to', out]);
    expect(get.exitCode, String(get.stderr)).toBe(0);
    expect(readFileSync(out).equals(Buffer.from(content))).toBe(true);
    // Besides -s's lookup and its check as an id the first time (README "Remembered servers").
    expect(since(mark).filter((l) => !l.startsWith('GET /servers ') && l !== 'GET /servers/S 200')).toEqual([
      'POST /servers/S/files/upload 200', 'POST /__node/upload 200', 'POST /servers/S/files/download 200', 'GET /__node/download 200',
    ]);

    const list = await t.gsh(['files', 'list', '-s', S, '--directory', '/uploads', '--json']);
    expect(json(list)).toEqual([expect.objectContaining({ name: 'world-notes.txt', size: Buffer.byteLength(content), type: 'file' })]);
  });

  it('signed URLs are bound to their signature and expire', async () => {
    const issue = async (ttl?: number) => {
      if (ttl !== undefined) t.sandbox.families.setSignedUrlTtl(ttl);
      const r = await t.gsh(['files', 'download', '-s', S, '-f', 'file=/eula.txt', '--json']);
      t.sandbox.families.setSignedUrlTtl(5 * 60_000);
      return json(r).url as string;
    };
    const url = await issue();
    expect(url.startsWith(`${t.sandbox.origin}/__node/download?`)).toBe(true);
    expect(await (await fetch(url)).text()).toBe('eula=false\n');
    const tampered = url.replace('eula.txt', 'server.properties');
    expect((await fetch(tampered)).status).toBe(403);
    const expired = await issue(-1);
    expect((await fetch(expired)).status).toBe(410);
  });

  it('files put and get keep binary and JSON files byte for byte (no decoding or re-serializing)', async () => {
    const bin = join(dir, 'blob.bin');
    const bytes = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 131 + (i >> 8)) % 256));
    writeFileSync(bin, bytes);
    const cfg = join(dir, 'ops.json');
    const jsonText = '{ "b": 1,\n  "a": [1, 2] }\n';
    writeFileSync(cfg, jsonText);
    for (const [local, name] of [[bin, 'blob.bin'], [cfg, 'ops.json']] as const) {
      expect((await t.gsh(['files', 'put', local, '-s', S, '--dir', '/raw'])).exitCode).toBe(0);
      const out = join(dir, `back-${name}`);
      const get = await t.gsh(['files', 'get', `/raw/${name}`, '-s', S, '--to', out]);
      expect(get.exitCode, String(get.stderr)).toBe(0);
      expect(readFileSync(out).equals(readFileSync(local)), name).toBe(true);
    }
    const piped = await t.gsh(['files', 'get', '/raw/blob.bin', '-s', S]);
    expect(piped.stdoutBytes.equals(bytes)).toBe(true);
  });

  it('binary bytes survive the node unchanged', async () => {
    const bytes = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 31) % 256));
    const up = json(await t.gsh(['files', 'upload', '-s', S, '--json'])).url as string;
    const form = new FormData();
    form.append('files', new Blob([bytes]), 'blob.bin');
    expect((await fetch(`${up}&directory=/bin`, { method: 'POST', body: form })).status).toBe(200);
    const down = json(await t.gsh(['files', 'download', '-s', S, '-f', 'file=/bin/blob.bin', '--json'])).url as string;
    expect(Buffer.from(await (await fetch(down)).arrayBuffer()).equals(bytes)).toBe(true);
    const text = await t.gsh(['files', 'content', 'get', '-s', S, '--path', '/bin/blob.bin']);
    expect(text.exitCode).not.toBe(0);
    expect(t.sandbox.log.at(-1)!.status).toBe(400);
  });
});

describe('inline content ("Files": PUT files/content, at most 64 KB, else 413)', () => {
  it('writes 64 KB inline and refuses one byte more with 413', async () => {
    const body = (n: number) => {
      const file = join(dir, `inline-${n}.json`);
      writeFileSync(file, JSON.stringify({ path: '/inline.txt', content: 'a'.repeat(n) }));
      return file;
    };
    const fits = await t.gsh(['files', 'content', 'update', '-s', S, '--input', body(64 * 1024), '--json']);
    expect(fits.exitCode, String(fits.stderr)).toBe(0);
    const over = await t.gsh(['files', 'content', 'update', '-s', S, '--input', body(64 * 1024 + 1)]);
    expect(over.exitCode).not.toBe(0);
    expect(t.sandbox.log.at(-1)).toMatchObject({ status: 413, errorCode: 'payload_too_large' });
    const read = await t.gsh(['files', 'content', 'get', '-s', S, '--path', '/inline.txt']);
    expect(String(read.stdout).trim()).toHaveLength(64 * 1024);
  });

  it('keeps a change history newest first', async () => {
    await t.gsh(['files', 'content', 'update', '-s', S, '-f', 'path=/notes.txt', '-f', 'content=one']);
    await t.gsh(['files', 'content', 'update', '-s', S, '-f', 'path=/notes.txt', '-f', 'content=two']);
    const h = json(await t.gsh(['files', 'history', '-s', S, '--path', '/notes.txt', '--json']));
    expect(h.map((x: { size: number; diff: string }) => x.diff)).toEqual(['@@ -1,1 +1,1 @@\n-one\n+two', '@@ -1,0 +1,1 @@\n+one']);
  });
});

describe('tree operations ("Files", "File tools", "Archives")', () => {
  it('folder, rename, move, copy, compress, archive list, extract, delete', async () => {
    const run = async (...args: string[]) => {
      const r = await t.gsh([...args, '-s', S, '--yes', '--json']);
      expect(r.exitCode, `${args.join(' ')}: ${String(r.stderr)}`).toBe(0);
      return json(r);
    };
    await run('files', 'folder', '--name', 'kit', '--path', '/');
    await run('files', 'content', 'update', '-f', 'path=/kit/a.txt', '-f', 'content=A');
    await run('files', 'rename', '--from', '/kit/a.txt', '--to', 'b.txt');
    expect((await run('files', 'copy', '-f', 'location=/kit/b.txt')).path).toBe('/kit/b (1).txt');
    const archive = await run('files', 'compress', '--directory', '/', '-f', 'files[]=kit');
    expect((await run('files', 'archive', 'list', '--path', archive.path)).map((e: { path: string }) => e.path)).toEqual(['kit', 'kit/b.txt', 'kit/b (1).txt']);
    await run('files', 'move', '--from', '/kit', '--to', '/old/kit');
    await run('files', 'archive', 'extract', '-f', `path=${archive.path}`, '--directory', '/restored');
    const restored = await t.gsh(['files', 'content', 'get', '-s', S, '--path', '/restored/kit/b.txt']);
    expect(String(restored.stdout)).toBe('A');
    await run('files', 'delete', '-f', 'files[]=/old');
    expect((await t.gsh(['files', 'list', '-s', S, '--directory', '/old', '--json'])).exitCode).toBe(5);
  });
});
