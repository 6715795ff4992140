import '../wasm-flags.js';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import Agent from 'undici/lib/dispatcher/agent.js';
import apiRequest from 'undici/lib/api/api-request.js';
import { closedBeforeAnswer, IDLE_KEEPALIVE_MS, proxyAuthorization, STALE } from './transport-policy.js';
import type { ProxyChoice, WireAnswer, WireRequest } from './wire.js';

// undici's side of core/wire/transport.ts, loaded on its first request (wasm-flags.js first: undici's
// parser is WebAssembly). The agent and request API are imported by path: the package index
// loads every dispatcher, fetch, cache and mock.

export interface UndiciSender {
  send(req: WireRequest): Promise<WireAnswer>;
  close(): Promise<void>;
}

/**
 * The proxy's agent: an http:// target as an absolute-URI request (proxyTunnel false, as curl),
 * an https:// one through CONNECT. Loaded only when a proxy is used, from the package index: the
 * proxy agent needs the API methods the index attaches to every dispatcher.
 */
async function proxyAgent(proxy: ProxyChoice, connectTimeoutMs: number): Promise<Dispatcher> {
  const { default: undici } = await import('undici');
  const auth = proxyAuthorization(proxy.url);
  const uri = `${proxy.url.protocol}//${proxy.url.host}`;
  return new undici.ProxyAgent({
    uri,
    proxyTunnel: false,
    ...(auth ? { token: auth } : {}),
    keepAliveTimeout: IDLE_KEEPALIVE_MS,
    connect: { timeout: connectTimeoutMs },
    // The proxy's own connections (absolute-URI requests) are kept no longer than the others.
    factory: (origin: string | URL, opts: object) => new undici.Pool(origin, { ...opts, keepAliveTimeout: IDLE_KEEPALIVE_MS }),
    // The CONNECT itself: a proxy that accepts it and never answers is given one attempt's time
    // (undici's default is 300 s), so a streamed transfer, which has no overall timer, ends too.
    clientFactory: (origin: string | URL, opts: object) => new undici.Pool(origin, { ...opts, headersTimeout: connectTimeoutMs }),
  } as ConstructorParameters<typeof undici.ProxyAgent>[0]);
}

/** How one attempt is sent: on the given dispatcher, or on agents of our own (one per proxy). */
export async function undiciSender(connectTimeoutMs: number, given?: Dispatcher): Promise<UndiciSender> {
  let direct: Dispatcher | undefined = given;
  const proxied = new Map<string, Promise<Dispatcher>>();
  /** When an answer last came from each endpoint (a proxy, or the target's origin) on a connection kept alive. */
  const lastAnswer = new Map<string, number>();
  const dispatcherFor = (proxy: ProxyChoice | undefined): Promise<Dispatcher> => {
    if (given) return Promise.resolve(given);
    if (!proxy) return Promise.resolve((direct ??= new Agent({ keepAliveTimeout: IDLE_KEEPALIVE_MS, connections: 16, connect: { timeout: connectTimeoutMs } })));
    const key = proxy.url.href;
    let agent = proxied.get(key);
    if (!agent) proxied.set(key, (agent = proxyAgent(proxy, connectTimeoutMs)));
    return agent;
  };
  const send = async (req: WireRequest): Promise<WireAnswer> => {
    const endpoint = req.proxy ? req.proxy.url.origin : req.url.origin;
    const dispatcher = await dispatcherFor(req.proxy);
    const sentAt = Date.now();
    try {
      const answer = apiRequest.call(dispatcher, {
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
      const res = req.signal ? await untilAborted(answer, req.signal) : await answer;
      const connection = res.headers.connection;
      if (!(typeof connection === 'string' && /close/i.test(connection))) lastAnswer.set(endpoint, Date.now());
      return { statusCode: res.statusCode, headers: res.headers, body: res.body };
    } catch (err) {
      // undici does not say whether the connection was reused: it was when an answer came from
      // the same endpoint on a kept-alive connection within the idle time, and the socket had
      // read bytes (a new connection that closes before answering has read none).
      const last = lastAnswer.get(endpoint);
      const socket = (err as { socket?: { bytesRead?: number } }).socket;
      const reused = last !== undefined && sentAt - last <= IDLE_KEEPALIVE_MS + 1000 && (socket?.bytesRead === undefined || socket.bytesRead > 0);
      if (reused && closedBeforeAnswer(err) && !req.signal?.aborted) (err as { [STALE]?: boolean })[STALE] = true;
      throw err;
    }
  };
  // Destroyed, not closed: a close waits for every request in the queue, and one given up on
  // (aborted while its connection was still being made) would hold the run's end until then.
  const close = async () => {
    if (given) return;
    await Promise.all([direct?.destroy(), ...[...proxied.values()].map(async (p) => (await p).destroy())]);
  };
  return { send, close };
}

/**
 * The answer, or the signal's reason as soon as it aborts. undici hears of an abort only once a
 * request has a connection: one queued behind a connection being made (a CONNECT the proxy never
 * answers) would otherwise wait for it, past --request-timeout and past Ctrl-C and SIGTERM.
 */
function untilAborted<T>(answer: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    answer.catch(() => {});
    return Promise.reject(signal.reason as Error);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      answer.catch(() => {});
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    answer.then(
      (res) => {
        signal.removeEventListener('abort', onAbort);
        resolve(res);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err as Error);
      },
    );
  });
}
