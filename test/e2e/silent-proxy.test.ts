import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy, type TestProxy } from '../helpers/test-proxy.js';
import { GSH, gshProcess } from './helpers.js';

// Issue 51 item 8: behind a proxy that accepts and never answers (the CONNECT of an https://
// target, carried by undici; the absolute-URI request of an http:// one, carried by node:http;
// ARCHITECTURE.md "Requests"), gsh obeys --request-timeout (exit 9, DESIGN "Exit codes": service
// or network unavailable) within the limit and 2 s, and SIGTERM and SIGINT end it at once
// (143, 130). The built binary: signals and the process's own end are the point.

let proxy: TestProxy;
let dir: string;
beforeAll(async () => {
  proxy = await startProxy({ silent: true });
  dir = mkdtempSync(join(tmpdir(), 'gsh-silent-proxy-'));
});
afterAll(async () => {
  await proxy.close();
  rmSync(dir, { recursive: true, force: true });
});

// Nothing listens behind: the proxy never gets that far.
const TARGETS = [
  ['an https:// target through CONNECT (undici)', 'https://127.0.0.1:9/api/v2'],
  ['an http:// target as an absolute-URI request (node:http)', 'http://127.0.0.1:9/api/v2'],
] as const;
const env = (base: string) => ({
  GSH_BASE_URL: base, GSH_API_KEY: 'gsh_test_key', GSH_CONFIG_DIR: join(dir, 'config'), GSH_PROFILE: undefined, GSH_TOKEN: undefined,
  HTTPS_PROXY: proxy.url, https_proxy: proxy.url, HTTP_PROXY: proxy.url, http_proxy: proxy.url, NO_PROXY: '', no_proxy: '', ALL_PROXY: '', all_proxy: '',
});

describe('a proxy that never answers', () => {
  for (const [what, base] of TARGETS) {
    it(`${what}: --request-timeout 1s ends the run with exit 9 within 3 s`, async () => {
      const started = Date.now();
      const r = await gshProcess(['servers', 'list', '--request-timeout', '1s', '--retries', '0'], env(base), { timeout: 20_000 });
      const took = Date.now() - started;
      expect(r.exitCode, String(r.stderr)).toBe(9);
      expect(String(r.stderr)).toContain('within 1 s (--request-timeout)');
      expect(took).toBeLessThan(3000);
    }, 30_000);

    for (const [signal, code] of [['SIGTERM', 143], ['SIGINT', 130]] as const) {
      it(`${what}: ${signal} ends it at once (${code})`, async () => {
        const child = execa(process.execPath, [GSH, 'servers', 'list'], { reject: false, env: env(base), extendEnv: true, timeout: 60_000 });
        // Sent once the proxy has the request: gsh is waiting on it.
        const seen = proxy.seen.length;
        while (proxy.seen.length === seen) await new Promise((r) => setTimeout(r, 20));
        const sent = Date.now();
        child.kill(signal);
        const r = await child;
        expect(r.exitCode, String(r.stderr)).toBe(code);
        expect(Date.now() - sent).toBeLessThan(1500);
      }, 30_000);
    }
  }
});
