import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { archiveChunks, archiveSize, type ArchiveSpec } from '../../src/sandbox/node/archive.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { call, TIMESTAMP, until, withSandbox } from './helpers.js';

// The sandbox's signed archive downloads (03-endpoints-part-b.md "Worlds": "a signed short-lived
// URL of a compressed archive built on demand"; backups and database backups name a `download`
// action) and its backups that take a while. Archives are real .tar.gz files of a size known
// before the first byte; a 'cut' injection sends half of one and drops the connection.

/** A demo server with a game's files (a world folder, eula.txt). */
const gameServer = (sb: Sandbox) => [...sb.state.servers.values()].find((s) => s.application === 'minecraft')!.id;

/** The names and contents of a ustar archive (what tar tz would list). */
function untar(tar: Buffer): Record<string, Buffer> {
  const out: Record<string, Buffer> = {};
  for (let off = 0; off + 512 <= tar.length;) {
    const h = tar.subarray(off, off + 512);
    if (h.every((b) => b === 0)) break;
    const field = (a: number, n: number) => h.subarray(a, a + n).toString('utf8').replace(/\0.*$/s, '');
    const size = parseInt(field(124, 12), 8);
    const prefix = field(345, 155);
    const name = (prefix ? `${prefix}/` : '') + field(0, 100);
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : h[i]!;
    expect(parseInt(field(148, 8), 8), `checksum of ${name}`).toBe(sum);
    out[name] = tar.subarray(off + 512, off + 512 + size);
    off += 512 + Math.ceil(size / 512) * 512;
  }
  return out;
}

describe('archives (node/archive.ts)', () => {
  it('are valid gzip of a valid tar, exactly as large as announced, across stored-block edges', () => {
    const entries = [{ name: 'world/level.dat', data: Buffer.from('level\n') }, { name: `${'deep/'.repeat(30)}f.txt`, data: Buffer.alloc(70_000, 7) }];
    // Filler sizes around the 65535-byte stored block: the tar is then an exact multiple, one more, one less.
    const base = 512 + 512 + 512 + 70_144 + 1024;
    for (const fillerBytes of [0, 1, 65535 * 3 - base - 512, 65535 * 3 - base - 511, 65535 * 4 - base - 512 - 1]) {
      const spec: ArchiveSpec = { filename: 'x.tar.gz', entries, fillerBytes };
      const bytes = Buffer.concat([...archiveChunks(spec)]);
      expect(bytes.length, `filler ${fillerBytes}`).toBe(archiveSize(spec));
      const files = untar(gunzipSync(bytes));
      expect(files['world/level.dat']?.toString()).toBe('level\n');
      expect(files[`${'deep/'.repeat(30)}f.txt`]?.length).toBe(70_000);
      expect(files['filler.bin']?.length).toBe(fillerBytes || undefined);
    }
  });
});

describe('signed archive downloads', () => {
  it('worlds download: a signed URL, its expiry, size and name; the node serves the archive without a credential', () =>
    withSandbox({}, async (sb) => {
      const id = gameServer(sb);
      const r = await call(sb, 'POST', `/servers/${id}/worlds/download`, { body: { world: 'world' } });
      expect(r.status).toBe(200);
      expect(r.body.data).toMatchObject({ object: 'signed_url', method: 'GET', filename: 'world.tar.gz' });
      expect(r.body.data.expires_at).toMatch(TIMESTAMP);
      const res = await fetch(r.body.data.url);
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(res.headers.get('content-length')).toBe(String(r.body.data.size));
      expect(res.headers.get('content-disposition')).toBe('attachment; filename="world.tar.gz"');
      expect(bytes.length).toBe(r.body.data.size);
      expect(Object.keys(untar(gunzipSync(bytes)))).toEqual(['world/level.dat']);
      // The first hex digit changed to another (a fixed replacement would equal it one time in 16).
      expect((await fetch(r.body.data.url.replace(/signature=([0-9a-f])/, (_m: string, d: string) => `signature=${d === '0' ? '1' : '0'}`))).status).toBe(403);
      expect((await call(sb, 'POST', `/servers/${id}/worlds/download`, { body: { world: '../x' } })).status).toBe(400);
      expect((await call(sb, 'POST', `/servers/${id}/worlds/download`, { body: { world: 'nether' } })).status).toBe(404);
    }));

  it('POST /__sandbox/archives sets the filler of archives made afterwards', () =>
    withSandbox({}, async (sb) => {
      const id = gameServer(sb);
      const admin = await fetch(`${sb.origin}/__sandbox/archives`, { method: 'POST', body: JSON.stringify({ filler_bytes: 1_000_000 }) });
      expect(admin.status).toBe(200);
      expect((await fetch(`${sb.origin}/__sandbox/archives`, { method: 'POST', body: JSON.stringify({ filler_bytes: -1 }) })).status).toBe(400);
      const r = await call(sb, 'POST', `/servers/${id}/worlds/download`, { body: { world: 'world' } });
      expect(r.body.data.size).toBeGreaterThan(1_000_000);
      const files = untar(gunzipSync(Buffer.from(await (await fetch(r.body.data.url)).arrayBuffer())));
      expect(files['filler.bin']?.length).toBe(1_000_000);
    }));

  it("a 'cut' injection sends half the announced bytes, then drops the connection (once per count)", () =>
    withSandbox({}, async (sb) => {
      const id = gameServer(sb);
      sb.families.setArchiveFillerBytes(2_000_000);
      const { url, size } = (await call(sb, 'POST', `/servers/${id}/worlds/download`, { body: { world: 'world' } })).body.data;
      sb.inject({ kind: 'cut', path: '/__node/archive' });
      // An API request does not take the node's injection.
      expect((await call(sb, 'GET', `/servers/${id}`)).status).toBe(200);
      const res = await fetch(url);
      let got = 0;
      await expect((async () => {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) got += chunk.length;
      })()).rejects.toThrow();
      expect(got).toBe(Math.floor(size / 2));
      expect(Buffer.from(await (await fetch(url)).arrayBuffer()).length).toBe(size);
      expect(sb.log.filter((e) => e.path === '/__node/archive').map((e) => e.fault ?? null)).toEqual(['cut', null]);
    }));
});

describe('backups that take a while', () => {
  it('are created at once (202) without completed_at, finish after a while, and only then can be downloaded', () =>
    withSandbox({ timeScale: 0.05 }, async (sb) => {
      const id = gameServer(sb);
      const created = await call(sb, 'POST', `/servers/${id}/backups`, { body: { name: 'nightly' } });
      expect(created.status).toBe(202);
      const b = created.body.data;
      expect(b).toMatchObject({ object: 'server_backup', name: 'nightly', is_locked: false });
      expect(b.completed_at).toBeUndefined();
      expect((await call(sb, 'POST', `/servers/${id}/backups/${b.uuid}/download`)).status).toBe(409);
      const done = await until(async () => {
        const got = (await call(sb, 'GET', `/servers/${id}/backups/${b.uuid}`)).body.data;
        return got.completed_at ? got : undefined;
      });
      expect(done).toMatchObject({ is_successful: true });
      expect(done.completed_at).toMatch(TIMESTAMP);
      const offer = (await call(sb, 'POST', `/servers/${id}/backups/${b.uuid}/download`)).body.data;
      expect(offer.size).toBe(done.bytes);
      expect(offer.filename).toBe(`backup-${b.uuid}.tar.gz`);
      const files = untar(gunzipSync(Buffer.from(await (await fetch(offer.url)).arrayBuffer())));
      expect(files['eula.txt']?.toString()).toBe('eula=false\n');
      expect((await call(sb, 'GET', `/servers/${id}/backups`)).body.data.map((x: { id: string }) => x.id)).toEqual([b.uuid]);
      expect((await call(sb, 'POST', `/servers/${id}/backups/00000000-0000-4000-8000-000000000000/download`)).status).toBe(404);
    }));
});
