import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy, type TestProxy } from '../helpers/test-proxy.js';
import { makeCa, type TestCa, tlsFront, type TlsFront } from '../helpers/test-tls.js';
import { needing } from '../helpers/tools.js';
import { type E2E, setup } from './helpers.js';

// An https:// API behind a proxy, with real TLS (issue 45; README "Authentication and
// configuration", Proxies): the sandbox behind a TLS terminator whose certificate a CA made at
// test time signs, reached through HTTPS_PROXY, which gsh asks for a CONNECT tunnel. gsh has no
// CA option of its own: a user trusts a private CA with NODE_EXTRA_CA_CERTS, which Node reads only
// when a process starts, so the runs that complete the handshake are the built binary's
// (gshProcess); those that end before it (a refused tunnel) or at it (an unknown CA) run in-process.

const suite = needing('an https:// API through HTTPS_PROXY (CONNECT), real TLS', 'openssl');

describe.skipIf(suite.missing)(suite.title, () => {
  let t: E2E;
  let ca: TestCa;
  let front: TlsFront;
  let base: string;
  const proxies: TestProxy[] = [];
  beforeAll(async () => {
    t = await setup({ servers: 3 });
    ca = makeCa();
    front = await tlsFront(ca, t.sandbox.origin);
    base = `${front.origin}/api/v2`;
  });
  afterAll(async () => {
    await Promise.all(proxies.map((p) => p.close()));
    await front?.close();
    await t?.close();
    ca?.remove();
  });
  const proxy = async (opts: Parameters<typeof startProxy>[0] = {}) => {
    const p = await startProxy(opts);
    proxies.push(p);
    return p;
  };
  const tunnel = () => `CONNECT ${new URL(front.origin).host}`;

  it('servers list exits 0 through the tunnel, and --debug names the proxy (NODE_EXTRA_CA_CERTS trusts the CA)', async () => {
    const p = await proxy();
    const r = await t.gshProcess(['servers', 'list', '--debug'], { env: { GSH_BASE_URL: base, HTTPS_PROXY: p.url, NODE_EXTRA_CA_CERTS: ca.caFile } });
    expect(r.exitCode, r.stderr).toBe(0);
    for (const s of t.sandbox.state.servers.values()) expect(r.stdout).toContain(s.name);
    expect(r.stderr).toContain(`> GET ${base}/servers`);
    expect(r.stderr).toContain(`> through the proxy ${p.url} (from HTTPS_PROXY)`);
    // Through a tunnel, never an absolute-URI request: the proxy saw no path, no header, no key.
    expect(p.seen).toEqual([tunnel()]);
  });

  it('a proxy that refuses CONNECT: exit 9, naming the proxy and its variable', async () => {
    const p = await proxy({ refuseConnect: true });
    const r = await t.gsh(['servers', 'list'], { env: { GSH_BASE_URL: base, HTTPS_PROXY: p.url } });
    expect(r.exitCode).toBe(9);
    expect(r.stderr).toContain(`the proxy ${p.url} (from HTTPS_PROXY) refused to open a tunnel to ${new URL(front.origin).host} (HTTP 403 to CONNECT)`);
    expect(r.stderr).not.toMatch(/could not reach|Proxy response \(/);
    // Refused tunnels are not retried: the proxy's rule will not change.
    expect(p.seen).toEqual([tunnel()]);
  });

  it('a CA the machine does not trust: said as TLS through the proxy, not as the proxy\'s failure', async () => {
    const p = await proxy();
    const r = await t.gsh(['servers', 'list'], { env: { GSH_BASE_URL: base, HTTPS_PROXY: p.url } });
    expect(r.exitCode).toBe(9);
    expect(r.stderr).toContain(`could not connect securely to ${new URL(front.origin).host} through the proxy ${p.url} (from HTTPS_PROXY): its certificate is not signed by an authority this machine trusts`);
    expect(r.stderr).toContain('NODE_EXTRA_CA_CERTS');
  });

  it('a proxy that asks for a user and password: given in HTTPS_PROXY they pass; wrong, exit 9 naming the proxy, the password never printed', async () => {
    const p = await proxy({ auth: { user: 'ops', password: 'tunnel-pw' } });
    const good = await t.gshProcess(['servers', 'list', '--debug'], { env: { GSH_BASE_URL: base, HTTPS_PROXY: p.url.replace('http://', 'http://ops:tunnel-pw@'), NODE_EXTRA_CA_CERTS: ca.caFile } });
    expect(good.exitCode, good.stderr).toBe(0);
    expect(good.stderr).toContain(`> through the proxy ${p.url} (from HTTPS_PROXY)`);
    expect(good.stderr).not.toContain('tunnel-pw');
    const bad = await t.gsh(['servers', 'list', '--debug'], { env: { GSH_BASE_URL: base, HTTPS_PROXY: p.url.replace('http://', 'http://ops:wr0ng-pw@') } });
    expect(bad.exitCode).toBe(9);
    expect(bad.stderr).toContain(`the proxy ${p.url} (from HTTPS_PROXY) refused to open a tunnel to ${new URL(front.origin).host}: it did not accept the user and password in HTTPS_PROXY (HTTP 407 to CONNECT)`);
    expect(bad.stderr).not.toMatch(/wr0ng-pw|ops:/);
  });
});
