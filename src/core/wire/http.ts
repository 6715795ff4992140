import type { Dispatcher } from 'undici';
import { summarise } from './envelope.js';
import type { ApiResponse, Method, QueryValue, RateLimitState, RequestSpec } from '../request-spec.js';
import { ApiError, type ApiErrorBody, GshError, NetworkError, OutcomeUnknownError, ownError, UsageError } from '../errors.js';
import { type AttemptProof, type MutationRecord, proofOfStatus, recordMutation, type RunOutcomes } from '../outcome.js';
import type { PlannedRequest } from '../plan.js';
import { maxResponseBytes, readLimited } from './body-limit.js';
import { decideRetry, parseRetryAfter } from './retry.js';
import { redactBody, redactHeaders, redactSignedUrls, truncateForTrace } from '../redact.js';
import { VERSION } from '../version.js';
import { sleep, untilAborted } from '../sleep.js';
import { checkHeaderValues, describeFailure, failureCode, isTransportFailure, ProxyRefused } from './transport-errors.js';
import { checkProxiedPlainHttp, proxyFor, proxyName } from './transport-policy.js';
import { directTransport, nodeCarries, nodeTransport, type ProxyChoice, type Transport, undiciTransport } from './transport.js';

// The one request core (ARCHITECTURE.md "Requests"): every command, hand-written or generated,
// sends through ApiClient.request, which owns auth, retries, idempotency keys, envelope parsing and
// tracing. Nothing else in gsh opens an HTTP connection to the API.

export type { ApiResponse, Method, QueryValue, RateLimitState, RequestSpec, StreamBody } from '../request-spec.js';

/** Supplies the bearer for a request; agent credentials renew themselves here. */
export interface CredentialProvider {
  /** Where the credential came from, for `auth status` and error hints. */
  readonly source: string;
  bearer(): Promise<string>;
  /** Called once after a 401; resolve true when a fresh credential is worth one more try. */
  renewAfterUnauthorized?(): Promise<boolean>;
}

/**
 * Given an error that needs a person (approval, ad view), resolve true once the identical request
 * may be repeated (same body, same Idempotency-Key); resolve false or throw to stop.
 */
export type PersonMustActHandler = (err: ApiError, spec: RequestSpec) => Promise<boolean>;

/**
 * A rate budget kept beyond this client: the account that gsh processes on one machine with the
 * same key and base URL share (core/run/shared-budget.ts), so together they stay within the key's
 * per-minute limit (01-general-contract.md "Limits").
 */
export interface SharedRateBudget {
  /** Takes one request from the budget: 0, or how long (ms) to wait before asking again. */
  take(nowMs: number): number;
  /** What an answer's X-RateLimit-* headers said. */
  seen(limit: number, remaining: number, reset: number): void;
}

export interface ClientOptions {
  baseUrl: string;
  credential?: CredentialProvider;
  /** Retries after the first attempt. */
  retries?: number;
  /** Limit on one whole attempt: connecting, sending, the answer and its body (a streamed download: between chunks). */
  attemptTimeoutMs?: number;
  /** Aborted on Ctrl-C / SIGTERM: requests under way are cancelled and pauses end; its reason is thrown. */
  signal?: AbortSignal;
  /** Wraps each request (its attempts and pauses) while it is under way: the run listens for signals then. */
  interruptible?: <T>(work: () => Promise<T>) => Promise<T>;
  /** Carries the requests (Context.dispatcher); absent: transports of our own (core/wire/transport.ts). */
  dispatcher?: Dispatcher;
  trace?: (line: string) => void;
  /** Says on stderr why the client waits when a wait is long (a 429's Retry-After, the rate-limit window). */
  notify?: (line: string) => void;
  sleep?: (ms: number) => Promise<void>;
  /** The run's clock (X-RateLimit-Reset is compared with it). */
  now?: () => number;
  random?: () => number;
  env?: NodeJS.ProcessEnv;
  onPersonMustAct?: PersonMustActHandler;
  /** The run this client belongs to: the mutations it sends are recorded in the run's tracker. */
  outcomes?: RunOutcomes;
  /** The budget shared with other gsh processes on this key and base URL. */
  sharedBudget?: SharedRateBudget;
}

const MUTATIONS = new Set<Method>(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The reason an attempt is aborted when --request-timeout runs out (the body included). */
class AttemptTimeout extends Error {
  readonly code = 'GSH_ATTEMPT_TIMEOUT';
}

/** What one attempt was before it failed: its URL and proxy, and the status when the service answered before the body stalled or broke. */
interface AttemptSeen {
  status?: number;
  url?: URL;
  proxy?: ProxyChoice;
}

/** The contract's limit: printable ASCII, at most 200 characters ("Limits": idempotency key). */
export function checkIdempotencyKey(key: string): string {
  if (key.length === 0 || key.length > 200 || !/^[\x20-\x7e]+$/.test(key)) {
    throw new UsageError('--idempotency-key must be 1 to 200 printable ASCII characters');
  }
  return key;
}

/** A mutation carries an Idempotency-Key: the given one, or a fresh UUID fixed here and kept for every retry. */
export async function withIdempotencyKey(spec: RequestSpec): Promise<RequestSpec> {
  if (!MUTATIONS.has(spec.method) || spec.resend !== undefined) return { ...spec, idempotencyKey: undefined };
  // node:crypto is loaded only for mutations: reads must not pay for it at startup.
  return { ...spec, idempotencyKey: checkIdempotencyKey(spec.idempotencyKey ?? (await import('node:crypto')).randomUUID()) };
}

export function normalizeBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`invalid base URL: ${withoutUserinfo(raw)}`, 'Give the service root, e.g. https://api.example.com/api/v2');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`base URL must be http(s): ${withoutUserinfo(raw)}`);
  }
  checkNoUserinfo(raw);
  return url.href.replace(/\/+$/, '');
}

/** A URL as it may be printed: whatever stands between `//` and an `@` before the path left out. */
export function withoutUserinfo(raw: string): string {
  return raw.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1');
}

/**
 * A base URL holding `user:password@` is refused (exit 2) wherever it comes from (`from`: the
 * flag, the variable, the profile): gsh would print it in traces, plans and errors and save it
 * in config.json, and it sends a key, never a password. Said without the user and password.
 */
export function checkNoUserinfo(raw: string, from = 'the base URL'): void {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return; // normalizeBaseUrl says what is wrong with it
  }
  if (url.username === '' && url.password === '') return;
  throw new UsageError(
    `${from} holds a user name or password before its host (${withoutUserinfo(raw)}): gsh neither sends nor keeps them`,
    'Give the base URL without "user:password@"; the API key is the credential (GSH_API_KEY, or gsh auth login).',
  );
}

/**
 * An API path with a `.` or `..` step (`%2e` counts as a dot, as the URL parser reads it) would
 * reach another path once the parser collapses it: `/servers/S/hooks/..` is `/servers/S/`. The
 * planners refuse such ids by name (core/flags/checks.ts); this holds for every other path too
 * (an id from an answer, gsh api's PATH).
 */
export function refuseDotSteps(path: string): void {
  const steps = path.split(/[?#]/, 1)[0]!.split('/').map((step) => step.replace(/%2e/gi, '.'));
  if (steps.some((step) => step === '.' || step === '..')) {
    throw new UsageError(`the path ${path} has a "." or ".." step, which a URL reads as another path`, 'Give the ids themselves, not a relative path.');
  }
}

export function buildUrl(baseUrl: string, path: string, query?: Record<string, QueryValue>): URL {
  const absolute = /^https?:\/\//.test(path);
  if (!absolute) refuseDotSteps(path);
  const url = absolute ? new URL(path) : new URL(baseUrl + (path.startsWith('/') ? path : `/${path}`));
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v === undefined) continue;
    if (Array.isArray(v)) for (const item of v) url.searchParams.append(k, String(item));
    else url.searchParams.set(k, String(v));
  }
  return url;
}

function headerRecord(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

export class ApiClient {
  readonly baseUrl: string;
  /** The most recent X-RateLimit-* headers seen: the budget every request of this client paces on. */
  private rateLimit: RateLimitState | undefined;
  /** Streamed transfers, proxies and a handed-in dispatcher: undici (core/wire/transport.ts). */
  private undici: Transport | undefined;
  /** Every other request: node:http. */
  private light: Transport | undefined;
  private direct: Transport | undefined;
  private readonly opts: Required<Pick<ClientOptions, 'retries' | 'attemptTimeoutMs' | 'sleep' | 'now' | 'random' | 'env'>> & ClientOptions;
  /** Requests sent whose answers (and so their X-RateLimit-Remaining) are not in yet. */
  private inFlight = 0;
  /** The most of an answer read into memory (GSH_MAX_RESPONSE_BYTES); sinks stream past it. */
  private readonly maxResponseBytes: number;
  /** Until when a pause has been announced: workers waiting out the same window say it once. */
  private announcedUntil = 0;
  /**
   * The part of the key's per-minute budget this client may use (--rate-share, 1/N of a shard:
   * N runners on one key, on any machines, stay within its limit together).
   */
  rateShare = 1;
  /** The budget shared with other gsh processes on this key and base URL (set once the credential is known). */
  sharedBudget: SharedRateBudget | undefined;
  /** This client's own requests in the window ending at `reset` (unix seconds), for rateShare. */
  private own = { reset: 0, used: 0 };

  constructor(opts: ClientOptions) {
    this.baseUrl = normalizeBaseUrl(opts.baseUrl);
    this.opts = {
      retries: 4,
      attemptTimeoutMs: 30_000,
      sleep,
      now: Date.now,
      random: Math.random,
      env: process.env,
      ...opts,
    };
    this.maxResponseBytes = maxResponseBytes(this.opts.env);
    this.sharedBudget = opts.sharedBudget;
  }

  /** The key's budget as last seen (X-RateLimit-*), for callers that plan a timeline of requests. */
  get rateLimitState(): RateLimitState | undefined {
    return this.rateLimit;
  }

  /** The client's pause (the run's clock), for callers that pace themselves. */
  sleep(ms: number): Promise<void> {
    return this.opts.sleep(ms);
  }

  get credentialSource(): string | undefined {
    return this.opts.credential?.source;
  }

  async close(): Promise<void> {
    await Promise.all([this.undici?.close(), this.light?.close()]);
  }

  /** The request as it would go on the wire, credential redacted and nothing sent (`--dry-run`). */
  describe(spec: RequestSpec): PlannedRequest {
    const { url, headers } = this.wire(spec, undefined);
    if (this.sendsCredential(spec)) headers.authorization = 'Bearer [redacted]';
    // The body as the user would read it: JSON and form fields as values, raw bytes by size.
    const shown = spec.streamBody ? `[${spec.streamBody.length} bytes, streamed]` : spec.rawBody !== undefined ? `[${Buffer.byteLength(spec.rawBody)} bytes]` : redactBody(spec.form ?? spec.body);
    return { method: spec.method, url: url.href, headers, ...(shown === undefined ? {} : { body: shown }) };
  }

  request<T = unknown>(spec: RequestSpec): Promise<ApiResponse<T>> {
    return this.opts.interruptible && !spec.afterInterrupt ? this.opts.interruptible(() => this.send<T>(spec)) : this.send<T>(spec);
  }

  private async send<T>(spec: RequestSpec): Promise<ApiResponse<T>> {
    const keyed = await withIdempotencyKey(spec);
    // One record for the mutation across every attempt, renewals and approvals included.
    const record = keyed.idempotencyKey === undefined ? undefined : recordMutation(keyed.idempotencyKey, this.opts.outcomes);
    let renewed = false;
    for (;;) {
      try {
        return await this.withRetries<T>(keyed, record);
      } catch (caught) {
        const err = ownError(caught);
        if (err instanceof ApiError) {
          if (err.status === 401 && !renewed && keyed.auth !== false && this.opts.credential?.renewAfterUnauthorized) {
            renewed = true;
            if (await this.opts.credential.renewAfterUnauthorized()) continue;
          }
          if (this.opts.onPersonMustAct && err.exitCode === 7 && (await this.opts.onPersonMustAct(err, keyed))) continue;
        }
        // Every ending of a mutation says what all its attempts prove, not what the last one got.
        if (record && err instanceof GshError) {
          err.outcome = record.outcome;
          err.idempotencyKey = record.idempotencyKey;
        }
        throw err;
      }
    }
  }

  private async withRetries<T>(spec: RequestSpec, record: MutationRecord | undefined): Promise<ApiResponse<T>> {
    const idempotent = spec.method === 'GET' || spec.idempotencyKey !== undefined || spec.resend === 'safe';
    const maxRetries = spec.resend === 'never' ? 0 : this.opts.retries;
    for (let attempt = 0; ; attempt++) {
      let status: number | undefined;
      let retryAfterMs: number | undefined;
      let failure: Error;
      const seen: AttemptSeen = {};
      try {
        await this.takeFromRateLimit(spec);
        if (record) record.inFlight = true;
        const res = await this.once<T>(spec, seen).finally(() => this.inFlight--);
        if (record) {
          record.attempt(proofOfStatus(res.status));
          record.inFlight = false;
        }
        if (res.status < 400) return res;
        status = res.status;
        retryAfterMs = parseRetryAfter(res.headers['retry-after']);
        failure = toApiError(res);
        // The service stored this failure under the key: every retry would get it back.
        if (res.status >= 500 && res.replayed) throw storedFailure(failure as ApiError);
      } catch (err) {
        const transportFailure = isTransportFailure(err) && seen.url !== undefined;
        // A signed node URL is named without its query (its signature is a credential).
        const where = /^https?:\/\//.test(spec.path) ? new URL(spec.path).origin + new URL(spec.path).pathname : this.baseUrl;
        const words = transportFailure
          ? describeFailure(err, {
            where, target: seen.url as URL, status: seen.status, timeoutMs: spec.sink && spec.idleTimeoutMs !== undefined ? spec.idleTimeoutMs : this.opts.attemptTimeoutMs, download: spec.sink !== undefined,
            ...(seen.proxy ? { proxy: { name: proxyName(seen.proxy), from: seen.proxy.from, withCredentials: seen.proxy.url.username !== '' } } : {}),
          })
          : undefined;
        if (record?.inFlight) {
          record.attempt(proofOfFailure(words, seen));
          record.inFlight = false;
        }
        // Ctrl-C / SIGTERM cancelled the attempt: whatever undici calls that, it is the interrupt, never a retry.
        const run = spec.afterInterrupt ? undefined : this.opts.signal;
        if (run?.aborted) throw run.reason;
        if (!words || spec.signal?.aborted) throw err;
        const code = (err as { code?: string }).code;
        // Node's and undici's own words, under --debug only.
        this.trace(`! ${String((err as Error).message ?? err)}${code ? ` (${code})` : ''}`);
        failure = new NetworkError(words.message, failureCode(err, words.kind), words.hint);
        if (!words.transient) throw outcomeOf(failure, record);
      } finally {
        if (record) record.inFlight = false;
      }
      const decision = decideRetry({
        status, attempt, maxRetries, retryAfterMs, idempotent, random: this.opts.random,
        refused: (failure as NetworkError).causeCode === 'ECONNREFUSED',
        keyInFlight: status === 409 && (failure as ApiError).code === 'idempotency_conflict',
      });
      if (!decision.retry) throw outcomeOf(failure, record);
      this.trace(`! ${decision.reason}; retry ${attempt + 1}/${this.opts.retries} in ${decision.delayMs} ms`);
      if (status === 429) this.announce(`rate limited (429): waiting ${Math.ceil(decision.delayMs / 1000)} s as Retry-After asks, then retrying`, decision.delayMs);
      await this.pause(decision.delayMs, spec);
    }
  }

  /** A pause that Ctrl-C / SIGTERM ends at once (its reason is thrown), unless the request is the run's clean-up. */
  private pause(ms: number, spec: RequestSpec): Promise<void> {
    return untilAborted(this.opts.sleep(ms), spec.afterInterrupt ? undefined : this.opts.signal);
  }

  /**
   * Says a long wait on stderr once: workers of a fleet that wait out the same window (or the same
   * burst of 429s) would otherwise each print it.
   */
  private announce(line: string, waitMs: number): void {
    const until = this.opts.now() + waitMs;
    if (waitMs <= ANNOUNCED_WAIT_MS || until <= this.announcedUntil + ANNOUNCED_WAIT_MS) return;
    this.announcedUntil = until;
    this.opts.notify?.(line);
  }

  /** URL, headers and body of a request; the one place they are built, for sending and for plans. */
  private wire(spec: RequestSpec, bearer: string | undefined): { url: URL; headers: Record<string, string>; body: string | Buffer | undefined } {
    const url = buildUrl(this.baseUrl, spec.path, spec.query);
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': `gsh/${VERSION} node/${process.versions.node}`,
      ...spec.headers,
    };
    let body: string | Buffer | undefined;
    if (spec.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(spec.form).toString();
    } else if (spec.rawBody !== undefined) {
      body = spec.rawBody;
    } else if (spec.streamBody) {
      headers['content-length'] = String(spec.streamBody.length);
    } else if (spec.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(spec.body);
    }
    if (spec.idempotencyKey) headers['idempotency-key'] = spec.idempotencyKey;
    if (bearer !== undefined) headers.authorization = `Bearer ${bearer}`;
    return { url, headers, body };
  }

  /** Signed node URLs (absolute) are their own authorization: no bearer goes there. */
  private sendsCredential(spec: RequestSpec): boolean {
    return spec.auth !== false && this.opts.credential !== undefined && !/^https?:\/\//.test(spec.path);
  }

  private async once<T>(spec: RequestSpec, seen: AttemptSeen): Promise<ApiResponse<T>> {
    const run = spec.afterInterrupt ? undefined : this.opts.signal;
    run?.throwIfAborted();
    // --request-timeout bounds the whole attempt, so a body that trickles a byte at a time ends
    // too; a streamed download or upload is bounded between chunks instead (undici's timeouts),
    // as a large file may rightly take longer than one attempt's limit.
    const limit = spec.sink || spec.streamBody ? undefined : new AbortController();
    const timer = limit && setTimeout(() => limit.abort(new AttemptTimeout('request timeout')), this.opts.attemptTimeoutMs);
    const signals = [run, limit?.signal, spec.signal].filter((s): s is AbortSignal => s !== undefined);
    try {
      return await this.attempt<T>(spec, seen, signals.length > 1 ? AbortSignal.any(signals) : signals[0]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async attempt<T>(spec: RequestSpec, seen: AttemptSeen, signal: AbortSignal | undefined): Promise<ApiResponse<T>> {
    const bearer = this.sendsCredential(spec) ? await this.opts.credential?.bearer() : undefined;
    const { url, headers, body } = this.wire(spec, bearer);
    checkHeaderValues(headers, this.opts.credential?.source);
    const proxy = proxyFor(url, this.opts.env);
    if (bearer !== undefined) checkProxiedPlainHttp(url, proxy, this.opts.env);
    seen.url = url;
    seen.proxy = proxy;
    this.trace(() => `> ${spec.method} ${url.href}`);
    if (proxy) this.trace(`> through the proxy ${proxyName(proxy)} (from ${proxy.from})`);
    this.traceHeaders('>', headers);
    if (body !== undefined) this.trace(() => `> ${truncateForTrace(spec.form ? '[form body]' : String(body))}`);
    if (spec.streamBody) this.trace(`> [${spec.streamBody.length} bytes, streamed]`);

    const started = Date.now();
    const res = await this.transport(spec, url, proxy).send({
      url,
      method: spec.method,
      headers,
      body: spec.streamBody ? spec.streamBody.open() : body,
      timeoutMs: spec.sink && spec.idleTimeoutMs !== undefined ? spec.idleTimeoutMs : this.opts.attemptTimeoutMs,
      ...(signal ? { signal } : {}),
      ...(proxy ? { proxy } : {}),
      ...(this.opts.trace ? { note: (line: string) => this.trace(line) } : {}),
      ...(spec.resend === 'never' ? { resendStale: false } : {}),
    });
    const resHeaders = headerRecord(res.headers);
    // 407 is the proxy's own answer (RFC 9110 15.5.8): the request was not forwarded. It ends as a
    // proxy failure naming the proxy (transport-errors.ts), not as the service's `HTTP 407`.
    if (proxy && res.statusCode === 407) {
      this.trace(`< 407 from the proxy (${Date.now() - started} ms)`);
      this.traceHeaders('<', resHeaders);
      res.body.on('error', () => {});
      res.body.destroy();
      throw new ProxyRefused(407, resHeaders['proxy-authenticate']);
    }
    seen.status = res.statusCode;
    // Only a 2xx with a body is streamed to a sink (a download): a redirect, never followed, or a
    // 204 is read like any other answer, and the sink's owner refuses it (core/transfer/download.ts).
    if (spec.sink && res.statusCode >= 200 && res.statusCode < 300 && res.statusCode !== 204 && res.statusCode !== 205) {
      this.trace(`< ${res.statusCode} (${Date.now() - started} ms)`);
      this.traceHeaders('<', resHeaders);
      try {
        await spec.sink(res.body, resHeaders);
      } finally {
        // A sink that stopped early (an error) must not leave the connection half read.
        if (!res.body.readableEnded) {
          res.body.on('error', () => {});
          res.body.destroy();
        }
      }
      this.trace(`< [streamed]`);
      this.noteRateLimit(resHeaders);
      return { status: res.statusCode, headers: resHeaders, body: undefined as T, requestId: resHeaders['x-request-id'], replayed: false, idempotencyKey: spec.idempotencyKey };
    }
    let bytes: Buffer;
    try {
      bytes = await readLimited(res.body, this.maxResponseBytes, resHeaders['content-length']);
    } catch (err) {
      res.body.on('error', () => {});
      res.body.destroy();
      throw err;
    }
    this.trace(`< ${res.statusCode} (${Date.now() - started} ms)`);
    this.traceHeaders('<', resHeaders);
    const asBytes = spec.binary === true && res.statusCode < 400;
    const text = asBytes ? '' : bytes.toString('utf8');
    if (asBytes) this.trace(`< [${bytes.length} bytes]`);
    else if (text) this.trace(() => `< ${truncateForTrace(text)}`);
    this.noteRateLimit(resHeaders);
    return {
      status: res.statusCode,
      headers: resHeaders,
      body: (asBytes ? bytes : parseBody(text, resHeaders['content-type'])) as T,
      requestId: resHeaders['x-request-id'],
      replayed: resHeaders['idempotency-replayed'] === 'true',
      idempotencyKey: spec.idempotencyKey,
    };
  }

  /** What carries this request: see core/wire/transport.ts for which and why. */
  private transport(spec: RequestSpec, url: URL, proxy: ProxyChoice | undefined): Transport {
    if (spec.sink && !spec.streamBody && !this.opts.dispatcher && !proxy) return (this.direct ??= directTransport(this.opts.attemptTimeoutMs));
    if (spec.sink || spec.streamBody || this.opts.dispatcher || !nodeCarries(url, proxy)) {
      return (this.undici ??= undiciTransport(this.opts.attemptTimeoutMs, this.opts.dispatcher));
    }
    return (this.light ??= nodeTransport());
  }

  private noteRateLimit(h: Record<string, string>): void {
    const limit = Number(h['x-ratelimit-limit']);
    const remaining = Number(h['x-ratelimit-remaining']);
    const reset = Number(h['x-ratelimit-reset']);
    if (h['x-ratelimit-limit'] !== undefined && [limit, remaining, reset].every(Number.isFinite)) {
      // Answers of one window may arrive out of order: the smallest remaining is the truth.
      const same = this.rateLimit?.reset === reset;
      this.rateLimit = { limit, remaining: same ? Math.min(remaining, this.rateLimit!.remaining) : remaining, reset };
      this.sharedBudget?.seen(limit, remaining, reset);
    }
  }

  /**
   * Every request of this client (all of a fleet's workers, all pages of --all) shares one
   * budget: when the window's remaining requests are taken by those already sent, wait for
   * X-RateLimit-Reset instead of collecting 429s. Counts the request as in flight in the same
   * turn as the check, so concurrent callers cannot both take the last one.
   */
  private async takeFromRateLimit(spec: RequestSpec): Promise<void> {
    for (;;) {
      const rl = this.rateLimit;
      if (!rl || rl.remaining - this.inFlight > 0) {
        const waitMs = this.shareWaitMs(rl) || (this.sharedBudget?.take(this.opts.now()) ?? 0);
        if (waitMs <= 0) {
          this.inFlight++;
          this.own.used++;
          return;
        }
        // Which budget stopped it: this run's share (own.used counts a window only under a share),
        // else the key's, shared with the other gsh processes. The wait is the window's either way.
        const why = this.rateShare < 1 && this.own.used >= this.shareCap(rl)
          ? `this run's share (${Math.round(this.rateShare * 1000) / 10}%) of this minute's ${rl?.limit} requests is used`
          : "this minute's requests are taken by the gsh processes on this key (this one included)";
        const line = `rate limit: ${why}; waiting ${Math.ceil(waitMs / 1000)} s for the window to reset`;
        this.trace(`! ${line}`);
        this.announce(line, waitMs);
        await this.pause(waitMs + 100, spec);
        continue;
      }
      const waitMs = rl.reset * 1000 - this.opts.now();
      if (waitMs > 0) {
        const line = `rate limit: ${rateLimitTaken(rl.remaining, rl.limit)}; waiting ${Math.ceil(waitMs / 1000)} s for the window to reset`;
        this.trace(`! ${line}`);
        this.announce(line, waitMs);
        await this.pause(waitMs + 100, spec);
      }
      // A new window: its budget is known again with the next answer.
      if (this.rateLimit === rl) this.rateLimit = { ...rl, remaining: rl.limit, reset: rl.reset + 60 };
    }
  }

  private shareCap(rl: RateLimitState | undefined): number {
    return rl ? Math.max(1, Math.floor(rl.limit * this.rateShare)) : Infinity;
  }

  /** 0 while this client's share of the window is not used up, else the time to the window's end. */
  private shareWaitMs(rl: RateLimitState | undefined): number {
    if (this.rateShare >= 1 || !rl) return 0;
    const now = this.opts.now();
    // Windows follow each other a minute apart; one that has passed gives way to the next.
    let reset = Math.max(rl.reset, this.own.reset);
    while (reset * 1000 <= now) reset += 60;
    // Requests sent before the first answer said which window it is belong to that window.
    if (reset !== this.own.reset) this.own = { reset, used: this.own.reset === 0 ? this.own.used : 0 };
    return this.own.used < this.shareCap(rl) ? 0 : reset * 1000 - now;
  }

  /**
   * Every --debug line passes here: a signed URL's signature never reaches it, in a request line or
   * a body. A line that costs to make (a body, a URL) comes as a function, called only under --debug.
   */
  private trace(line: string | (() => string)): void {
    if (this.opts.trace) this.opts.trace(redactSignedUrls(typeof line === 'function' ? line() : line));
  }

  private traceHeaders(dir: string, headers: Record<string, string>): void {
    if (!this.opts.trace) return;
    for (const [k, v] of Object.entries(redactHeaders(headers))) this.trace(`${dir} ${k}: ${v}`);
  }
}

/**
 * Why the budget is spent: used up, or the requests still left are each taken by one already under
 * way (their answers are not in yet).
 */
export function rateLimitTaken(remaining: number, limit: number): string {
  if (remaining <= 0) return `all ${limit} requests of this minute are used`;
  return `the last ${remaining === 1 ? 'request' : `${remaining} requests`} of this minute's ${limit} ${remaining === 1 ? 'is' : 'are'} already under way`;
}

function parseBody(text: string, contentType: string | undefined): unknown {
  if (!text) return undefined;
  if (contentType?.includes('json') || /^\s*[{[]/.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

/** Waits longer than this are said on stderr, so a pipe that goes quiet does not look like a hang. */
const ANNOUNCED_WAIT_MS = 2000;

/**
 * What a failed attempt proves: nothing when it never left (refused, no such host, a proxy that
 * would not connect), what its status says when the service answered before the body broke, else
 * that it may have acted.
 */
function proofOfFailure(words: { notSent: boolean } | undefined, seen: AttemptSeen): AttemptProof {
  if (seen.status !== undefined) return proofOfStatus(seen.status);
  return words?.notSent ? 'nothing' : 'maybe';
}

/** A mutation whose last attempt got no answer, and which any attempt may have applied: say so, with its key. */
function outcomeOf(failure: Error, record: MutationRecord | undefined): Error {
  if (!(failure instanceof NetworkError) || !record || record.outcome === 'not_applied') return failure;
  return new OutcomeUnknownError(failure, record.idempotencyKey);
}

/** A 5xx replayed for this Idempotency-Key: the service recorded it, so retrying with the key cannot help. */
function storedFailure(err: ApiError): ApiError {
  const stored = new ApiError(err.status, { ...err.body, message: `the service recorded a failure for this Idempotency-Key and replays it: ${err.message}` }, err.requestId, err.retryAfter);
  stored.responseBody = err.responseBody;
  stored.storedFailure = true;
  return stored;
}

/** The error envelope, or one made from the status when a proxy or gateway answered instead. */
export function toApiError(res: ApiResponse<unknown>): ApiError {
  const body = res.body as { error?: ApiErrorBody | string; request_id?: string } | string | undefined;
  const given = typeof body === 'object' && body?.error && typeof body.error === 'object' ? body.error : undefined;
  // A JSON-RPC error (MCP, src/mcp/) has a numeric code: the status names it instead.
  const envelope = given && typeof given.code !== 'string' ? { ...given, code: `http_${res.status}`, message: typeof given.message === 'string' ? given.message : `HTTP ${res.status}` } : given;
  const errorBody: ApiErrorBody = envelope ?? oauthError(body) ?? {
    code: `http_${res.status}`,
    // A gateway's HTML or text page becomes one line (its title, or its first line); --debug shows it whole.
    message: typeof body === 'string' && summarise(body) ? `HTTP ${res.status}: ${summarise(body, /html/i.test(res.headers['content-type'] ?? ''))}` : `HTTP ${res.status}`,
  };
  const requestId = (typeof body === 'object' && typeof body?.request_id === 'string' ? body.request_id : undefined) ?? res.requestId;
  const retryAfter = parseRetryAfter(res.headers['retry-after']);
  const err = new ApiError(res.status, errorBody, requestId, retryAfter === undefined ? undefined : retryAfter / 1000);
  err.wwwAuthenticate = res.headers['www-authenticate'];
  err.responseBody = res.body;
  return err;
}

/**
 * The OAuth endpoints may answer in RFC 6749 form, `{error: "slow_down", error_description, ...}`,
 * rather than the envelope; their code and other members (e.g. `claim`) are kept the same way.
 */
function oauthError(body: unknown): ApiErrorBody | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { error, error_description: description, ...rest } = body as Record<string, unknown>;
  if (typeof error !== 'string' || !error) return undefined;
  return { ...rest, code: error, message: typeof description === 'string' && description ? description : error };
}
