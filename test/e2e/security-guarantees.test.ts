import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/core/wire/http.js';
import { staticCredential } from '../../src/core/auth/credentials.js';
import { type E2E, gshInProcess, setup } from './helpers.js';

// The guarantees of README "Security" that had no test of their own (issue #28): redirects are
// never followed (and so no credential follows one), signed URLs get no Authorization on the
// wire, the config directory is made 0700, and a manifest's webhook secret reaches no
// machine-readable lint output (SARIF, JSON, GitHub annotations and job summary).

let t: E2E;
const dirs: string[] = [];
beforeAll(async () => {
  t = await setup({ servers: 1 });
});
afterAll(async () => {
  await t.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const fresh = () => {
  const d = mkdtempSync(join(tmpdir(), 'gsh-guarantees-'));
  dirs.push(d);
  return d;
};

async function listener(answer: (res: ServerResponse) => void) {
  const seen: { url: string; headers: IncomingHttpHeaders }[] = [];
  const server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    answer(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, seen, close: () => new Promise((resolve) => server.close(resolve)) };
}

describe('redirects are not followed', () => {
  it('a 302 to another host sends nothing there, for a command and for auth login', async () => {
    const target = await listener((res) => res.end('{"data":[]}'));
    const redirecting = await listener((res) => {
      res.writeHead(302, { location: `${target.origin}/api/v2/servers` });
      res.end();
    });
    try {
      const base = `${redirecting.origin}/api/v2`;
      const list = await t.gsh(['servers', 'list'], { env: { GSH_BASE_URL: base } });
      expect(list.exitCode).toBe(1);
      expect(list.stderr).toContain(`a redirect to ${target.origin}/api/v2/servers`);
      const config = join(fresh(), 'config.json');
      const login = await t.gsh(['auth', 'login', '--base-url', base], { env: { GSH_API_KEY: undefined, GSH_BASE_URL: undefined, GSH_CONFIG_DIR: join(config, '..') }, input: 'gsh_live_k\n' });
      expect(login.exitCode).toBe(1);
      expect(existsSync(config)).toBe(false);
      expect(redirecting.seen).toHaveLength(2);
      expect(target.seen).toHaveLength(0);
    } finally {
      await target.close();
      await redirecting.close();
    }
  });
});

describe('signed URLs carry no Authorization', () => {
  it('on the wire: the bearer goes with a base-URL request, never with an absolute (signed) URL', async () => {
    const node = await listener((res) => res.end('ok'));
    const client = new ApiClient({ baseUrl: `${node.origin}/api/v2`, credential: staticCredential('gsh_live_secret', 'test'), retries: 0 });
    try {
      await client.request({ method: 'GET', path: '/me' });
      await client.request({ method: 'GET', path: `${node.origin}/__node/download?expires=1&signature=abc`, binary: true });
      expect(node.seen.map((s) => [s.url, s.headers.authorization])).toEqual([
        ['/api/v2/me', 'Bearer gsh_live_secret'],
        ['/__node/download?expires=1&signature=abc', undefined],
      ]);
    } finally {
      await client.close();
      await node.close();
    }
  });
});

describe('the config directory and file', () => {
  it('a directory gsh makes is 0700, the file 0600', async () => {
    const dir = join(fresh(), 'nested', 'gsh');
    const r = await t.gsh(['auth', 'login', '--profile', 'p'], { env: { GSH_API_KEY: undefined, GSH_CONFIG_DIR: dir }, input: `${t.sandbox.keys.all}\n` });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
  });
});

describe('lint output for machines never quotes a secret', () => {
  it('sarif, json, compact, github and the job summary name the problem, not the value', async () => {
    const dir = fresh();
    const secret = 'hunter2-too-short';
    // A secret of 17 characters is valid; one of 15 is not (16 to 128): the problem sits on the secret's line.
    const manifest = join(dir, 'm.yaml');
    writeFileSync(manifest, `#service-init\nversion: 1\nhooks:\n  - url: https://hooks.example.com/a\n    events: [server.idle]\n    secret: "${secret.slice(0, 15)}"\n`);
    const summary = join(dir, 'summary.md');
    for (const format of ['sarif', 'json', 'compact', 'github']) {
      const r = await gshInProcess(['init', 'lint', '--format', format, manifest], { GITHUB_STEP_SUMMARY: summary });
      expect(r.exitCode, `${format}: ${r.stderr}`).toBe(1);
      expect(r.stdout).toMatch(/secret/);
      expect(r.stdout + r.stderr, format).not.toContain(secret.slice(0, 15));
    }
    expect(readFileSync(summary, 'utf8')).toContain('hooks[0].secret');
    expect(readFileSync(summary, 'utf8')).not.toContain(secret.slice(0, 15));
  });
});
