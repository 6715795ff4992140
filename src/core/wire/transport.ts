import type { Dispatcher } from 'undici';
import { closedBeforeAnswer, IDLE_KEEPALIVE_MS, proxyAuthorization, STALE, STALE_RESENDS } from './transport-policy.js';
import type { ProxyChoice, WireAnswer, WireRequest } from './wire.js';

export type { ProxyChoice, WireAnswer, WireRequest } from './wire.js';

// What carries one attempt of the request core (http.ts) to the wire and back. The core builds
// the request and reads the answer the same way whichever carries it; only this differs:
//
// - undici (the HTTP client of the design), for a request or answer that streams (uploads, and
//   downloads through a proxy: its backpressure and its timeouts between chunks), through a CONNECT tunnel (an
//   https:// target behind a proxy), and on a dispatcher the caller hands in (tests).
// - a direct connection read into one reused buffer (direct-body.ts), for a streamed answer
//   (a download) with no proxy and no handed-in dispatcher: the bytes at the speed of the pipe.
// - node:http, for every other request: the JSON requests of nearly every command, direct or as
//   an absolute-URI request to an http:// proxy. Its HTTP parser is native and already in Node;
//   undici's is WebAssembly in a 290 KB chunk that has to be compiled at every start. Measured on
//   `servers list --limit 5` (issue 39): 347 M instructions and 54 MiB peak with undici, 229 M
//   and 49 MiB with node:http and the other start-up cuts made with it (callgrind;
//   resourceUsage().maxRSS).
//
// Both follow one policy (core/wire/transport-policy.ts): the proxy it chose, idle connections kept
// less than servers keep them, and a request whose kept-alive connection turns out closed before
// any byte of its answer is sent again at once on a new connection (resending, below).

export interface Transport {
  send(req: WireRequest): Promise<WireAnswer>;
  /** Closes the connections this transport opened (not a dispatcher it was handed). */
  close(): Promise<void>;
}

/**
 * Sends, and sends again at once (no pause, no retry of --retries spent) when the transport says
 * the connection it reused had been closed by the other side before any byte of the answer: the
 * service never saw the request, or a mutation's Idempotency-Key makes seeing it twice harmless.
 * A streamed body is not sent again (it is read once).
 */
export async function resending(req: WireRequest, once: (req: WireRequest, fresh: boolean) => Promise<WireAnswer>): Promise<WireAnswer> {
  for (let resends = 0; ; resends++) {
    try {
      // A resend asks for a connection of its own: the pool's other idle connections have
      // likely been closed the same way (one idle timeout closes them all).
      return await once(req, resends > 0);
    } catch (err) {
      const replayable = req.body === undefined || typeof req.body === 'string' || Buffer.isBuffer(req.body);
      if (!(err as { [STALE]?: boolean })[STALE] || resends >= STALE_RESENDS || req.signal?.aborted || !replayable || req.resendStale === false) throw err;
      req.note?.(`! the kept-alive connection was closed before any answer (${(err as { code?: string }).code}); sent again at once on a new connection`);
    }
  }
}

/** undici: streamed transfers, CONNECT tunnels, a handed-in dispatcher. Loaded on first use. */
export function undiciTransport(connectTimeoutMs: number, dispatcher?: Dispatcher): Transport {
  let loaded: Promise<import('./undici-transport.js').UndiciSender> | undefined;
  // wasm-flags.js runs before undici's chunk is even loaded: a chunk's own imports run before its
  // body, so the import at the top of undici-transport.ts alone would come after undici's code.
  const load = () => (loaded ??= import('../wasm-flags.js')
    .then(() => import('./undici-transport.js'))
    .then((m) => m.undiciSender(connectTimeoutMs, dispatcher)));
  return {
    send: async (req) => {
      const sender = await load();
      return resending(req, (r) => sender.send(r));
    },
    close: async () => {
      if (loaded) await (await loaded).close();
    },
  };
}

/**
 * A streamed answer on a direct connection (no proxy, no handed-in dispatcher): read into one
 * reused buffer and drained synchronously by its sink (core/wire/direct-body.ts). Loaded on first use.
 */
export function directTransport(connectTimeoutMs: number): Transport {
  return {
    send: async (req) => (await import('./direct-body.js')).sendDirect(req, connectTimeoutMs),
    // Each attempt has a connection of its own, closed when its answer ends.
    close: async () => {},
  };
}

/** Whether node:http carries this request: not streamed, and direct or to an http:// proxy for an http:// target. */
export function nodeCarries(url: URL, proxy: ProxyChoice | undefined): boolean {
  return !proxy || (proxy.url.protocol === 'http:' && url.protocol === 'http:');
}

/** node:http(s), kept-alive connections (a run's pages and fleet requests reuse them). */
export function nodeTransport(): Transport {
  type Agent = import('node:http').Agent;
  const agents = new Map<string, Agent>();
  return {
    async send(req) {
      const endpoint = req.proxy?.url ?? req.url;
      const secure = endpoint.protocol === 'https:';
      // node:https brings TLS: loaded only for an https URL.
      const mod = secure ? await import('node:https') : await import('node:http');
      let agent = agents.get(endpoint.protocol);
      // `timeout` closes a connection idle that long (measured: it does not cut an answer under way).
      if (!agent) agents.set(endpoint.protocol, (agent = new mod.Agent({ keepAlive: true, maxSockets: 16, timeout: IDLE_KEEPALIVE_MS })));
      const used = agent;
      // A resend goes on a new connection of its own (agent false), never on another idle one of the pool.
      return resending(req, (r, fresh) => sendWith(mod.request, fresh ? false : used, r));
    },
    async close() {
      for (const agent of agents.values()) agent.destroy();
    },
  };
}

function sendWith(request: typeof import('node:http').request, agent: import('node:http').Agent | false, req: WireRequest): Promise<WireAnswer> {
  const { signal, body, proxy } = req;
  if (body !== undefined && typeof body !== 'string' && !Buffer.isBuffer(body)) return Promise.reject(new Error('a streamed body goes through undici'));
  return new Promise<WireAnswer>((resolve, reject) => {
    signal?.throwIfAborted();
    let outgoing: import('node:http').ClientRequest;
    if (proxy) {
      // An http:// target through an http:// proxy: an absolute-URI request (RFC 9112 3.2.2), as
      // curl sends it, never a CONNECT tunnel (proxies refuse CONNECT outside port 443).
      const auth = proxyAuthorization(proxy.url);
      outgoing = request({
        protocol: 'http:', hostname: proxy.url.hostname.replace(/^\[|\]$/g, ''), port: proxy.url.port || 80, path: req.url.href,
        method: req.method, headers: { ...req.headers, host: req.url.host, ...(auth ? { 'proxy-authorization': auth } : {}) }, agent,
      });
    } else {
      outgoing = request(req.url, { method: req.method, headers: req.headers, agent });
    }
    let answer: import('node:http').IncomingMessage | undefined;
    // An abort ends the attempt with the signal's own reason (an interrupt, --request-timeout),
    // before the answer or while its body is read: the core tells them apart by that reason.
    const abort = () => (answer ?? outgoing).destroy(signal?.reason);
    signal?.addEventListener('abort', abort, { once: true });
    outgoing.once('close', () => signal?.removeEventListener('abort', abort));
    outgoing.on('error', (err) => {
      // A reused connection the other side had closed: nothing of the answer came.
      if (!answer && outgoing.reusedSocket && closedBeforeAnswer(err) && !signal?.aborted) (err as { [STALE]?: boolean })[STALE] = true;
      reject(err);
    });
    outgoing.once('response', (res) => {
      answer = res;
      resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: res });
    });
    outgoing.end(body);
  });
}
