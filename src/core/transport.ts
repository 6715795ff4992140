import type { Dispatcher } from 'undici';
import type { Proxy, WireAnswer, WireRequest } from './wire.js';

export type { Proxy, WireAnswer, WireRequest } from './wire.js';

// What carries one attempt of the request core (http.ts) to the wire and back. The core builds
// the request and reads the answer the same way whichever carries it; only this differs:
//
// - undici (the HTTP client of the design), for a request or answer that streams (uploads and
//   downloads: its backpressure and its timeouts between chunks), behind a proxy (its
//   EnvHttpProxyAgent applies NO_PROXY), and on a dispatcher the caller hands in (tests).
// - node:http, for every other request: the JSON requests of nearly every command. Its HTTP
//   parser is native and already in Node; undici's is WebAssembly in a 290 KB chunk that has to
//   be compiled at every start. Measured on `servers list --limit 5` (issue 39): 347 M
//   instructions and 54 MiB peak with undici, 229 M and 49 MiB with node:http and the other
//   start-up cuts made with it (callgrind; resourceUsage().maxRSS).

export interface Transport {
  send(req: WireRequest): Promise<WireAnswer>;
  /** Closes the connections this transport opened (not a dispatcher it was handed). */
  close(): Promise<void>;
}

/** The proxy the environment names, if any (HTTP(S)_PROXY, either case). */
export function proxyOf(env: NodeJS.ProcessEnv): Proxy | undefined {
  const httpProxy = env.HTTP_PROXY || env.http_proxy;
  const httpsProxy = env.HTTPS_PROXY || env.https_proxy;
  return httpProxy || httpsProxy ? { httpProxy, httpsProxy } : undefined;
}

/** undici: streamed transfers, proxies, a handed-in dispatcher. Loaded on first use. */
export function undiciTransport(env: NodeJS.ProcessEnv, connectTimeoutMs: number, dispatcher?: Dispatcher): Transport {
  let loaded: Promise<{ dispatcher: Dispatcher; send: (req: WireRequest) => Promise<WireAnswer> }> | undefined;
  // wasm-flags.js runs before undici's chunk is even loaded: a chunk's own imports run before its
  // body, so the import at the top of undici-transport.ts alone would come after undici's code.
  const load = () => (loaded ??= import('./wasm-flags.js')
    .then(() => import('./undici-transport.js'))
    .then((m) => m.undiciSender(proxyOf(env), env, connectTimeoutMs, dispatcher)));
  return {
    send: async (req) => (await load()).send(req),
    close: async () => {
      if (loaded && !dispatcher) await (await loaded).dispatcher.close();
    },
  };
}

/** node:http(s), kept-alive connections (a run's pages and fleet requests reuse them). */
export function nodeTransport(): Transport {
  type Agent = import('node:http').Agent;
  const agents = new Map<string, Agent>();
  return {
    async send(req) {
      const secure = req.url.protocol === 'https:';
      // node:https brings TLS: loaded only for an https URL.
      const mod = secure ? await import('node:https') : await import('node:http');
      let agent = agents.get(req.url.protocol);
      if (!agent) agents.set(req.url.protocol, (agent = new mod.Agent({ keepAlive: true, maxSockets: 16 })));
      return sendWith(mod.request, agent, req);
    },
    async close() {
      for (const agent of agents.values()) agent.destroy();
    },
  };
}

function sendWith(request: typeof import('node:http').request, agent: import('node:http').Agent, req: WireRequest): Promise<WireAnswer> {
  const { signal, body } = req;
  if (body !== undefined && typeof body !== 'string' && !Buffer.isBuffer(body)) return Promise.reject(new Error('a streamed body goes through undici'));
  return new Promise<WireAnswer>((resolve, reject) => {
    signal?.throwIfAborted();
    const outgoing = request(req.url, { method: req.method, headers: req.headers, agent });
    let answer: import('node:http').IncomingMessage | undefined;
    // An abort ends the attempt with the signal's own reason (an interrupt, --request-timeout),
    // before the answer or while its body is read: the core tells them apart by that reason.
    const abort = () => (answer ?? outgoing).destroy(signal?.reason);
    signal?.addEventListener('abort', abort, { once: true });
    outgoing.once('close', () => signal?.removeEventListener('abort', abort));
    outgoing.on('error', reject);
    outgoing.once('response', (res) => {
      answer = res;
      resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: res });
    });
    outgoing.end(body);
  });
}
