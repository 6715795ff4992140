import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:tls';

// A loopback HTTPS API for tests (issue 45): a certificate authority and a certificate for
// 127.0.0.1 that it signs, made at test time with `openssl` (a company's own CA, as a user behind
// a TLS-inspecting proxy or with a private API has), and a TLS terminator that hands the bytes to
// a plain-http server (the sandbox) on loopback. Node has no API that makes a certificate; tests
// that need one are skipped with the reason where `openssl` is not installed (test/helpers/tools.ts).

export interface TestCa {
  /** The CA's certificate (PEM), as a user gives it to Node: NODE_EXTRA_CA_CERTS=caFile. */
  caFile: string;
  key: Buffer;
  cert: Buffer;
  remove(): void;
}

/** A CA, and a certificate for 127.0.0.1 it signed, valid for a day. */
export function makeCa(): TestCa {
  const dir = mkdtempSync(join(tmpdir(), 'gsh-tls-'));
  const at = (name: string) => join(dir, name);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  ssl('req', '-x509', ...ec, '-keyout', at('ca.key'), '-out', at('ca.pem'), '-subj', '/CN=gsh test CA', '-days', '1',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign');
  ssl('req', ...ec, '-keyout', at('api.key'), '-out', at('api.csr'), '-subj', '/CN=127.0.0.1');
  writeFileSync(at('api.ext'), 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
  ssl('x509', '-req', '-in', at('api.csr'), '-CA', at('ca.pem'), '-CAkey', at('ca.key'), '-CAcreateserial', '-out', at('api.pem'), '-days', '1', '-extfile', at('api.ext'));
  return { caFile: at('ca.pem'), key: readFileSync(at('api.key')), cert: readFileSync(at('api.pem')), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface TlsFront {
  /** https://127.0.0.1:PORT */
  origin: string;
  /** Each connection's first request head (request line and headers), in arrival order. */
  heads: string[];
  close(): Promise<void>;
}

/** TLS on loopback in front of the plain-http server at `target` (http://127.0.0.1:PORT). */
export async function tlsFront(ca: TestCa, target: string): Promise<TlsFront> {
  const { hostname, port } = new URL(target);
  const heads: string[] = [];
  const sockets = new Set<Socket>();
  const srv: Server = createServer({ key: ca.key, cert: ca.cert }, (client) => {
    const upstream = connect(Number(port), hostname);
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    let head = '';
    const record = (c: Buffer) => {
      head += c.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      heads.push(head.slice(0, end));
      client.off('data', record);
    };
    client.on('data', record);
    client.pipe(upstream).pipe(client);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  srv.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  // A client that rejects the certificate ends the handshake: nothing to report.
  srv.on('tlsClientError', () => {});
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return {
    origin: `https://127.0.0.1:${(srv.address() as AddressInfo).port}`,
    heads,
    close: () => new Promise((r) => {
      for (const s of sockets) s.destroy();
      srv.close(() => r());
    }),
  };
}
