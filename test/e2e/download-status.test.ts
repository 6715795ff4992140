import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gshInProcess } from './helpers.js';

// Issue 51 item 6: a download is a 2xx with a body (03-endpoints-part-b.md "File transfers": the
// signed URL serves the file's bytes). Any other answer of the signed URL, or of `gsh api --to`,
// is a failure in gsh's words, and nothing is left at the destination; a redirect is never
// followed (README "Security": redirects are never followed). An independent server written
// from the contract: files/download answers a signed URL on itself, which answers `status`.

const SERVER = '3f1c2a9e';
let srv: Server;
let base: string;
let status = 200;
const seen: string[] = [];
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gsh-download-status-'));
  srv = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const origin = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
    if (req.method === 'POST' && req.url === `/api/v2/servers/${SERVER}/files/download`) {
      req.resume();
      const body = JSON.stringify({ data: { url: `${origin}/node/file?signature=0123456789abcdef` } });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      return res.end(body);
    }
    if (req.url?.startsWith('/node/file') || req.url === '/api/v2/export') {
      const bytes = status === 204 ? '' : 'Moved here.\n';
      res.writeHead(status, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(bytes), ...(status >= 300 && status < 400 ? { location: `${origin}/elsewhere` } : {}) });
      return res.end(bytes);
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"error":{"code":"not_found","message":"no"}}');
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/api/v2`;
});
afterAll(async () => {
  await new Promise((r) => srv.close(r));
  rmSync(dir, { recursive: true, force: true });
});

/** A fresh empty directory for one case. */
const fresh = (name: string) => {
  const d = join(dir, name);
  mkdirSync(d);
  return d;
};
const env = () => ({ GSH_BASE_URL: base, GSH_TOKEN: 'independent-server-token', GSH_CONFIG_DIR: join(dir, 'config') });
const NOT_A_DOWNLOAD = [300, 301, 302, 303, 307, 308, 204];

describe('a download that is not a 2xx with a body', () => {
  for (const code of NOT_A_DOWNLOAD) {
    it(`files get: the signed URL answers ${code}: exit 1 saying so, no file at --to, the redirect not followed`, async () => {
      status = code;
      const to = fresh(`files-${code}`);
      const mark = seen.length;
      const r = await gshInProcess(['files', 'get', '/world.zip', '-s', `id:${SERVER}`, '--to', join(to, 'world.zip')], env());
      expect(r.exitCode, r.stderr).toBe(1);
      expect(r.stderr).toContain(`HTTP ${code} (${code === 204 ? 'no body' : 'a redirect to http://127.0.0.1'}`);
      expect(r.stderr).toContain('nothing was saved');
      expect(r.stderr).not.toContain('Saved');
      expect(r.stderr).not.toContain('0123456789abcdef');
      expect(readdirSync(to)).toEqual([]);
      expect(seen.slice(mark).some((l) => l.includes('elsewhere'))).toBe(false);
    });
  }

  it('gsh api --to: a 307 is exit 1 and no file; --to - writes nothing to stdout', async () => {
    status = 307;
    const to = fresh('api');
    const r = await gshInProcess(['api', '/export', '--to', join(to, 'export.bin')], env());
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stderr).toContain('HTTP 307 (a redirect to');
    expect(readdirSync(to)).toEqual([]);
    const piped = await gshInProcess(['api', '/export', '--to', '-'], env());
    expect([piped.exitCode, piped.stdout]).toEqual([1, '']);
  });

  it('a 200 is saved (the control)', async () => {
    status = 200;
    const to = fresh('ok');
    const r = await gshInProcess(['files', 'get', '/world.zip', '-s', `id:${SERVER}`, '--to', join(to, 'world.zip')], env());
    expect(r.exitCode, r.stderr).toBe(0);
    expect(readdirSync(to)).toEqual(['world.zip']);
  });
});
