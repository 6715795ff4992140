import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { connect, createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';

// A tiny forward proxy on loopback (issue 45), in the ways real ones behave: it forwards
// absolute-URI requests (`GET http://host/path`) and tunnels CONNECT, and it can
// - refuse CONNECT (squid's default outside port 443: 403),
// - close a kept-alive connection as a client reuses it, without forwarding the request (what a
//   server's idle timeout does when it fires just as the client writes),
// - cut the body of a mutation's 2xx answer (the head, then half the body, then the connection
//   closes), or send a body that is not JSON,
// - be dead: `deadProxy()` gives a loopback address nothing listens on,
// - ask for a user and password (`auth`): HTTP 407 with `Proxy-Authenticate` to a request or a
//   CONNECT without the right `Proxy-Authorization`, which is then neither forwarded nor tunnelled,
// - be silent (`silent`): accept every connection, request and CONNECT, and never answer.

export interface ProxyOptions {
  refuseConnect?: boolean;
  closeOnReuse?: boolean;
  /** The 2xx answers to POST/PUT/PATCH/DELETE arrive cut (`cut`) or malformed (`malformed`). */
  mutationAnswer?: 'cut' | 'malformed';
  /** The Basic user and password it requires; `challenge` is its Proxy-Authenticate (default `Basic realm="test"`). */
  auth?: { user: string; password: string; challenge?: string };
  /** Reads requests and CONNECTs and answers none (a hung proxy). */
  silent?: boolean;
}

export interface TestProxy {
  url: string;
  /** What came in: `GET http://…`, `CONNECT host:port`, `closed on reuse`. */
  seen: string[];
  close(): Promise<void>;
}

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Whether a request carries the Proxy-Authorization `auth` requires (always, without `auth`). */
function authorized(req: IncomingMessage, auth: ProxyOptions['auth']): boolean {
  if (!auth) return true;
  return req.headers['proxy-authorization'] === `Basic ${Buffer.from(`${auth.user}:${auth.password}`).toString('base64')}`;
}

function challenge(auth: NonNullable<ProxyOptions['auth']>): string {
  return auth.challenge ?? 'Basic realm="test"';
}

export async function startProxy(opts: ProxyOptions = {}): Promise<TestProxy> {
  const seen: string[] = [];
  const sockets = new Set<Socket>();
  const served = new WeakMap<Socket, number>();
  const srv: Server = createServer((req: IncomingMessage, res) => {
    const socket = req.socket;
    const count = served.get(socket) ?? 0;
    served.set(socket, count + 1);
    if (opts.closeOnReuse && count > 0) {
      seen.push('closed on reuse');
      socket.destroy();
      return;
    }
    seen.push(`${req.method} ${req.url}`);
    if (opts.silent) return;
    if (!authorized(req, opts.auth)) {
      seen.push('407');
      req.resume();
      res.writeHead(407, { 'proxy-authenticate': challenge(opts.auth!), 'content-type': 'text/html', 'content-length': 31 });
      res.end('<h1>Proxy auth required</h1>\r\n');
      return;
    }
    const up = httpRequest(req.url ?? '', { method: req.method, headers: req.headers, agent: false }, (r) => {
      const status = r.statusCode ?? 502;
      if (opts.mutationAnswer && MUTATING.has(req.method ?? '') && status < 300) {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => {
          const body = Buffer.concat(chunks);
          if (opts.mutationAnswer === 'malformed') {
            const bad = Buffer.from('{"data": {"object": "power_action", ');
            res.writeHead(status, { 'content-type': 'application/json', 'content-length': bad.length });
            res.end(bad);
            return;
          }
          res.writeHead(status, { 'content-type': 'application/json', 'content-length': body.length });
          res.write(body.subarray(0, Math.floor(body.length / 2)));
          setImmediate(() => socket.destroy());
        });
        return;
      }
      res.writeHead(status, r.headers);
      r.pipe(res);
    });
    up.on('error', () => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end('bad gateway');
    });
    req.pipe(up);
  });
  srv.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  srv.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    seen.push(`CONNECT ${req.url}`);
    if (opts.silent) return;
    if (!authorized(req, opts.auth)) {
      seen.push('407');
      client.end(`HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: ${challenge(opts.auth!)}\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    if (opts.refuseConnect) {
      client.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise((r) => {
      for (const s of sockets) s.destroy();
      srv.close(() => r());
    }),
  };
}

/** A loopback address nothing listens on (a port that was just freed). */
export async function deadProxy(): Promise<string> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as AddressInfo;
  await new Promise((r) => srv.close(r));
  return `http://127.0.0.1:${port}`;
}

export interface ForgetfulFront {
  /** The target's URL with this front's host and port (e.g. the sandbox's base URL). */
  url: string;
  /** Connections reset as the client wrote on them after the idle time. */
  resets: number;
  close(): Promise<void>;
}

/**
 * A TCP front to `target` that forgets a connection idle longer than `idleMs` without telling the
 * client, and resets it when the client next writes on it: what a server whose idle timeout is
 * shorter than the client's and not announced (no `Keep-Alive: timeout=N`) does when it fires as
 * the client writes, and what a NAT or firewall that drops idle connections does every time.
 */
export async function forgetfulFront(target: string, idleMs: number): Promise<ForgetfulFront> {
  const to = new URL(target);
  const sockets = new Set<Socket>();
  const front: ForgetfulFront = { url: '', resets: 0, close: async () => {} };
  const srv = createTcpServer((client) => {
    const upstream = connect(Number(to.port), to.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => { client.destroy(); upstream.destroy(); });
    }
    let last = 0;
    client.on('data', (chunk: Buffer) => {
      if (last !== 0 && Date.now() - last > idleMs) {
        front.resets++;
        upstream.destroy();
        client.resetAndDestroy();
        return;
      }
      last = Date.now();
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      last = Date.now();
      client.write(chunk);
    });
    client.on('end', () => upstream.end());
    upstream.on('end', () => client.end());
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const url = new URL(target);
  url.port = String((srv.address() as AddressInfo).port);
  front.url = url.href.replace(/\/$/, '');
  front.close = () => new Promise((r) => {
    for (const s of sockets) s.destroy();
    srv.close(() => r());
  });
  return front;
}
