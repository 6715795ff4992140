import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy, type TestProxy } from '../helpers/test-proxy.js';
import { makeCa, type TestCa, type TlsFront, tlsFront } from '../helpers/test-tls.js';
import { needing } from '../helpers/tools.js';
import { type E2E, setup } from './helpers.js';

// A download over https (issue 55; README "Downloads"; 03-endpoints-part-b.md "Worlds": a signed
// short-lived URL of an archive): the node behind TLS, with a certificate a CA made at test time
// signs. With no proxy the bytes come on a connection of gsh's own, read into one reused buffer
// (core/wire/direct-body.ts); that path must check the certificate exactly as the API's requests
// do (node:https) and as the CONNECT tunnel through a proxy does (undici): a CA the machine does
// not trust, or a certificate for another name, is refused before any byte, and nothing is saved.
// gsh has no CA option of its own: a private CA is trusted with NODE_EXTRA_CA_CERTS, read when a
// process starts, so the runs that complete the handshake are the built binary's (gshProcess);
// the one refused for its CA runs in-process. The archive's gzip trailer (CRC-32 and length of
// all of it) proves the bytes arrived whole and in order.

const suite = needing('downloads over https: the direct connection checks the certificate as every request does', 'openssl');

describe.skipIf(suite.missing)(suite.title, () => {
  let t: E2E;
  let ca: TestCa;
  let front: TlsFront;
  let dir: string;
  let S: string;
  const proxies: TestProxy[] = [];
  /** 8 MiB of filler: hundreds of TLS records and many reads of the one buffer. */
  const FILLER = 8 * 1024 * 1024;

  beforeAll(async () => {
    t = await setup({ servers: 3, clock: 'fast' });
    ca = makeCa();
    front = await tlsFront(ca, t.sandbox.origin);
    // The node's signed URLs point at the TLS front, as a real node's are https.
    t.sandbox.extensions.context.origin = front.origin;
    t.sandbox.families.setArchiveFillerBytes(FILLER);
    dir = mkdtempSync(join(tmpdir(), 'gsh-downloads-https-'));
    S = [...t.sandbox.state.servers.values()].find((s) => s.application === 'minecraft')?.id ?? [...t.sandbox.state.servers.keys()][0]!;
  });
  afterAll(async () => {
    await Promise.all(proxies.map((p) => p.close()));
    await front?.close();
    await t?.close();
    ca?.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  const fresh = (name: string) => {
    const d = join(dir, name);
    mkdirSync(d);
    return d;
  };
  const api = () => `${front.origin}/api/v2`;
  const trusted = (extra: Record<string, string> = {}) => ({ env: { GSH_BASE_URL: api(), NODE_EXTRA_CA_CERTS: ca.caFile, ...extra } });
  const download = (out: string, ...more: string[]) => ['worlds', 'download', '-s', S, '-f', 'world=world', '--to', out, ...more];
  const archiveGets = (from: number) => t.sandbox.log.slice(from).filter((e) => e.path === '/__node/archive').map((e) => `${e.status}${e.fault ? ` ${e.fault}` : ''}`);
  /** The size the answer announces, asked over plain http in-process (the sandbox's own origin is loopback). */
  const announced = async () => {
    const r = await t.gsh(['worlds', 'download', '-s', S, '-f', 'world=world', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const data = JSON.parse(r.stdout) as { url: string; size: number };
    expect(data.url.startsWith(`${front.origin}/__node/archive?`)).toBe(true);
    return data.size;
  };
  /** The archive is whole: gunzip checks the CRC-32 and length of all of it. */
  const expectWholeArchive = (path: string, size: number) => {
    const bytes = readFileSync(path);
    expect(bytes.length).toBe(size);
    const tar = gunzipSync(bytes);
    expect(tar.length).toBeGreaterThan(FILLER);
    expect(tar.subarray(0, 100).toString('latin1')).toContain('world/level.dat');
  };

  it('--to FILE over https with the CA trusted (NODE_EXTRA_CA_CERTS): the archive whole, through a temporary file renamed at the end, on a connection of its own', async () => {
    const size = await announced();
    const d = fresh('direct');
    const out = join(d, 'world.tar.gz');
    const mark = t.sandbox.log.length;
    const heads = front.heads.length;
    const r = await t.gshProcess(download(out), trusted());
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toBe(`Saved ${size} bytes to ${out}`);
    expect(readdirSync(d)).toEqual(['world.tar.gz']);
    expectWholeArchive(out, size);
    expect(archiveGets(mark)).toEqual(['200']);
    // The API's POST (node:https) and the archive's GET both came through TLS; the GET on a
    // connection of its own, closed when its answer ends, with no bearer on it.
    const get = front.heads.slice(heads).filter((h) => h.startsWith('GET /__node/archive?'));
    expect(get).toHaveLength(1);
    expect(get[0]).toMatch(/^connection: close$/m);
    expect(get[0]).not.toMatch(/^authorization:/im);
    expect(front.heads.slice(heads).some((h) => /^(GET|POST) \/api\/v2\//.test(h))).toBe(true);
  });

  it('a certificate no trusted authority signed: the download is refused before any byte, exit 9, nothing saved, in the words the API\'s own requests get', async () => {
    const d = fresh('untrusted');
    const out = join(d, 'world.tar.gz');
    const heads = front.heads.length;
    const mark = t.sandbox.log.length;
    // The API over plain loopback http, so that only the signed URL is https.
    const r = await t.gsh(download(out));
    expect(r.exitCode).toBe(9);
    const why = `could not connect securely to ${new URL(front.origin).host}: its certificate is not signed by an authority this machine trusts`;
    expect(r.stderr).toContain(`error: ${why}\n`);
    expect(r.stderr).not.toContain('Saved');
    expect(r.stderr).not.toMatch(/signature=[0-9a-f]{16}/);
    expect(readdirSync(d)).toEqual([]);
    // Not retried (the certificate will not change), and no request got past the handshake.
    expect(front.heads.slice(heads)).toEqual([]);
    expect(archiveGets(mark)).toEqual([]);
    const apiToo = await t.gsh(['servers', 'list'], { env: { GSH_BASE_URL: api() } });
    expect(apiToo.exitCode).toBe(9);
    expect(apiToo.stderr).toContain(`error: ${why}\n`);
    expect(apiToo.stderr).toContain('NODE_EXTRA_CA_CERTS');
  });

  it('a certificate for another name: refused with the CA trusted, nothing saved', async () => {
    const ctx = t.sandbox.extensions.context;
    const port = new URL(front.origin).port;
    ctx.origin = `https://localhost:${port}`;
    try {
      const d = fresh('other-name');
      const heads = front.heads.length;
      const r = await t.gshProcess(download(join(d, 'world.tar.gz')), trusted());
      expect(r.exitCode).toBe(9);
      expect(r.stderr).toContain(`could not connect securely to localhost:${port}: its certificate is for another name`);
      expect(readdirSync(d)).toEqual([]);
      // The API's POST went through (its name matches); the archive's GET never left gsh.
      expect(front.heads.slice(heads).filter((h) => h.startsWith('GET '))).toEqual([]);
    } finally {
      ctx.origin = front.origin;
    }
  });

  it('cut halfway (the TLS connection closed cleanly before the Content-Length): retried, the file whole; cut every time, exit 9 and no temporary file', async () => {
    const size = await announced();
    const once = fresh('cut-once');
    t.sandbox.inject({ kind: 'cut', path: '/__node/archive' });
    let mark = t.sandbox.log.length;
    const r = await t.gshProcess(download(join(once, 'w.tar.gz')), trusted());
    expect(r.exitCode, r.stderr).toBe(0);
    expect(archiveGets(mark)).toEqual(['200 cut', '200']);
    expect(readdirSync(once)).toEqual(['w.tar.gz']);
    expectWholeArchive(join(once, 'w.tar.gz'), size);

    const always = fresh('cut-always');
    t.sandbox.inject({ kind: 'cut', path: '/__node/archive', count: 2 });
    mark = t.sandbox.log.length;
    const failed = await t.gshProcess(download(join(always, 'w.tar.gz'), '--retries', '1'), trusted());
    expect(failed.exitCode).toBe(9);
    expect(archiveGets(mark)).toEqual(['200 cut', '200 cut']);
    expect(failed.stderr).toMatch(/error: could not download from https:\/\/127\.0\.0\.1:\d+\/__node\/archive: /);
    expect(readdirSync(always)).toEqual([]);
  });

  it('through HTTPS_PROXY the download goes through the CONNECT tunnel (undici), not the direct path: the same bytes, temporary file and rename', async () => {
    const size = await announced();
    const p = await startProxy();
    proxies.push(p);
    const d = fresh('tunnel');
    const out = join(d, 'world.tar.gz');
    const heads = front.heads.length;
    const r = await t.gshProcess(download(out), trusted({ HTTPS_PROXY: p.url }));
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toBe(`Saved ${size} bytes to ${out}`);
    expect(readdirSync(d)).toEqual(['world.tar.gz']);
    expectWholeArchive(out, size);
    // Only tunnels: the proxy saw no path, no header, no signature.
    const tunnel = `CONNECT ${new URL(front.origin).host}`;
    expect(p.seen.length).toBeGreaterThan(0);
    expect(p.seen.every((s) => s === tunnel)).toBe(true);
    const get = front.heads.slice(heads).filter((h) => h.startsWith('GET /__node/archive?'));
    expect(get).toHaveLength(1);
    expect(get[0]).not.toMatch(/^connection: close$/m);
  });
});
