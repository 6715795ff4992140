import { EventEmitter } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fastClock, runGsh, testContext } from '../helpers/context.js';
import { type E2E, runEnv, setup } from './helpers.js';

// Garbage in, clear errors out. Small deliberately broken servers stand in for a proxy's login
// page, a website at a wrong base URL and a broken gateway: a 2xx that is not the API's envelope
// (01-general-contract.md "Envelope rules") is an error, never an empty success.

const servers: Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => { s.closeAllConnections(); s.close(r); })));
});

async function answering(status: number, contentType: string | undefined, body: string, headers: Record<string, string> = {}): Promise<string> {
  const srv = createServer((_req, res) => {
    res.writeHead(status, { ...(contentType ? { 'content-type': contentType } : {}), ...headers });
    res.end(body);
  });
  servers.push(srv);
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(srv.address() as AddressInfo).port}/api/v2`;
}

const gsh = (baseUrl: string, argv: string[]) =>
  runGsh(argv, { env: runEnv({ GSH_BASE_URL: baseUrl, GSH_API_KEY: 'gsh_live_x', GSH_CONFIG_DIR: '/nonexistent-gsh-config' }), clock: fastClock(0.001) });

describe('answers that are not the API', () => {
  it('a 200 HTML page: exit 1, one line naming status, type and the page, and a --base-url hint', async () => {
    const url = await answering(200, 'text/html; charset=utf-8', '<!doctype html><html><head><title>Sign in – Corp Proxy</title></head><body><form>…</form></body></html>');
    const r = await gsh(url, ['servers', 'list']);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: the answer is not the API's: HTTP 200, text\/html; charset=utf-8, an HTML page: "Sign in – Corp Proxy"$/m);
    expect(r.stderr).toMatch(/check --base-url/);
    expect(r.stderr).not.toMatch(/<form>/);
  });

  it('broken JSON and JSON without data are errors too, for lists and for single objects', async () => {
    const broken = await answering(200, 'application/json', '{"data": [1, 2');
    const noData = await answering(200, 'application/json', '{"servers": []}');
    for (const url of [broken, noData]) {
      for (const argv of [['servers', 'list'], ['servers', 'list', '--all', '-o', 'json'], ['me']]) {
        const r = await gsh(url, argv);
        expect(r.exitCode, `${url} ${argv.join(' ')}`).toBe(1);
        expect(r.stderr).toMatch(/the answer is not the API's: HTTP 200, application\/json/);
      }
    }
  });

  it('a redirect to a login page is named, with the --base-url hint', async () => {
    const url = await answering(302, undefined, '', { location: 'https://sso.example.com/login' });
    const r = await gsh(url, ['servers', 'list']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/HTTP 302, a redirect to https:\/\/sso\.example\.com\/login/);
  });

  it("a gateway's HTML error page becomes one line: status and title, no markup", async () => {
    const url = await answering(503, 'text/html', `<html><head><title>503 Service Temporarily Unavailable</title></head><body>${'<p>x</p>'.repeat(500)}</body></html>`);
    const r = await gsh(url, ['servers', 'list', '--retries', '0']);
    expect(r.exitCode).toBe(9);
    const first = r.stderr.split('\n')[0]!;
    expect(first).toMatch(/^error: HTTP 503: 503 Service Temporarily Unavailable \(http_503, HTTP 503\)$/);
    expect(r.stderr).not.toMatch(/<p>/);
  });

  it('binary and text endpoints keep working as documented', async () => {
    const url = await answering(200, 'text/markdown', '# API\n');
    const r = await gsh(url, ['llms']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('# API\n');
  });
});

describe('interrupts that tell the state', () => {
  let t: E2E;
  beforeAll(async () => {
    t = await setup({ servers: 3, timeScale: 1 });
  });
  afterAll(() => t.close());

  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    it(`${signal} during --wait exits ${code} and says how to resume the work still under way`, async () => {
      const s = [...t.sandbox.state.servers.values()].find((x) => x.state === 'offline') ?? [...t.sandbox.state.servers.values()][0]!;
      s.state = 'offline';
      const ctx = testContext({ env: runEnv(t.env()) });
      const running = runGsh(['power', 'start', s.id, '--wait'], ctx);
      await new Promise((r) => setTimeout(r, 300));
      (ctx.signals as EventEmitter).emit(signal);
      const r = await running;
      expect(r.exitCode).toBe(code);
      expect(r.stderr).toMatch(/interrupted while waiting; the work goes on without gsh/);
      expect(r.stderr).toContain(`Still under way: server ${s.id}, until running. Resume with:\n  gsh wait -s ${s.id} --for running`);
    });
  }

  it('a --wait that times out names what is under way and the resume command, in text and in -o json', async () => {
    const s = [...t.sandbox.state.servers.values()][1]!;
    s.state = 'offline';
    const r = await runGsh(['power', 'start', s.id, '--wait', '--timeout', '1s', '--json'], testContext({ env: runEnv(t.env()) }));
    expect(r.exitCode).toBe(10);
    const { error } = JSON.parse(r.stderr.trim().split('\n').pop()!);
    expect(error).toMatchObject({ exit_code: 10, under_way: { server: s.id, until: 'running' }, resume: `gsh wait -s ${s.id} --for running` });
  });
});
