import './wasm-flags.js';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import Agent from 'undici/lib/dispatcher/agent.js';
import apiRequest from 'undici/lib/api/api-request.js';
import type { Proxy, WireAnswer, WireRequest } from './wire.js';

// undici's side of core/transport.ts, loaded on its first request (wasm-flags.js first: undici's
// parser is WebAssembly). The agent and request API are imported by path: the package index
// loads every dispatcher, fetch, cache and mock.

async function makeDispatcher(proxy: Proxy | undefined, env: NodeJS.ProcessEnv, connectTimeoutMs: number): Promise<Dispatcher> {
  if (proxy) {
    // Loaded only when a proxy is configured, from the package index: the proxy agent needs the
    // API methods the index attaches to every dispatcher. It applies NO_PROXY itself; the values
    // are passed explicitly because it would otherwise read process.env, not the given env.
    const { default: undici } = await import('undici');
    const { EnvHttpProxyAgent } = undici;
    return new EnvHttpProxyAgent({
      httpProxy: proxy.httpProxy,
      httpsProxy: proxy.httpsProxy ?? proxy.httpProxy,
      noProxy: env.NO_PROXY ?? env.no_proxy ?? '',
      connect: { timeout: connectTimeoutMs },
    });
  }
  return new Agent({ keepAliveTimeout: 4_000, connections: 16, connect: { timeout: connectTimeoutMs } });
}

/** The dispatcher (the given one, or one of our own) and how one attempt is sent on it. */
export async function undiciSender(proxy: Proxy | undefined, env: NodeJS.ProcessEnv, connectTimeoutMs: number, given?: Dispatcher) {
  const dispatcher = given ?? (await makeDispatcher(proxy, env, connectTimeoutMs));
  const send = async (req: WireRequest): Promise<WireAnswer> => {
    const res = await apiRequest.call(dispatcher, {
      origin: req.url.origin,
      path: req.url.pathname + req.url.search,
      method: req.method as Dispatcher.HttpMethod,
      headers: req.headers,
      // An async iterable goes as is (undici documents it; its types lag): undici awaits the socket's
      // drain between chunks, so backpressure reaches the file reads and memory stays flat.
      body: req.body as string | Buffer | Readable | undefined,
      headersTimeout: req.timeoutMs,
      bodyTimeout: req.timeoutMs,
      ...(req.signal ? { signal: req.signal } : {}),
    });
    return { statusCode: res.statusCode, headers: res.headers, body: res.body };
  };
  return { dispatcher, send };
}
