import { GshError } from '../errors.js';

// Transport oddities as clear errors (issue #28), never `internal error`: an answer that is not
// HTTP/1.1 (a header with control characters, a bad Content-Length, a non-HTTP peer) and a header
// gsh cannot send (a credential with a control character in it).

/** llhttp's failure (undici's or node:http's): the peer's bytes are not an HTTP/1.1 answer. */
export function isMalformedAnswer(err: unknown): boolean {
  const e = err as { name?: string; code?: string } | undefined;
  return e?.name === 'HTTPParserError' || (typeof e?.code === 'string' && e.code.startsWith('HPE_'));
}

/** What was wrong with the answer, from llhttp's reason ("Invalid header value char"). */
export function describeMalformedAnswer(err: unknown): string {
  const message = String((err as Error).message ?? err);
  // node:http gives the reason as a property; undici inside its message's parentheses.
  const given = (err as { reason?: unknown }).reason;
  const reason = typeof given === 'string' && given ? given : /\(([^)]*)\)\s*$/.exec(message)?.[1] ?? message;
  return `the answer is not valid HTTP/1.1 (${reason})`;
}

// What undici (and RFC 9110's field-value) accepts: tab, visible ASCII, and obs-text.
// eslint-disable-next-line no-control-regex
const BAD_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

/** A header gsh would send that no HTTP peer may receive: an error naming the header, never its value. */
export function checkHeaderValues(headers: Record<string, string>, credentialSource: string | undefined): void {
  for (const [name, value] of Object.entries(headers)) {
    if (!BAD_HEADER_VALUE.test(value)) continue;
    const whose = name === 'authorization' && credentialSource ? ` (the credential from ${credentialSource})` : '';
    throw new GshError(`cannot send the ${name} header: its value holds a control character or a character outside Latin-1${whose}`, 1,
      name === 'authorization' ? 'Check the key for a stray newline or carriage return, e.g. from a file with CRLF line ends.' : undefined);
  }
}

// Every transport failure in gsh's own words (issue 45): what failed (the name lookup, the
// connection, TLS, the proxy, a reset after sending, a stalled or cut answer), against which
// address, and whether the request may have been applied. Node's and undici's own text is shown
// under --debug only (http.ts traces it). "could not reach" is said only when nothing answered.

/** What stage an attempt failed at. */
export type FailureKind = 'lookup' | 'connect' | 'tls' | 'proxy-refused' | 'reset' | 'timeout' | 'malformed' | 'other';

export interface FailureWords {
  kind: FailureKind;
  /** The error line. */
  message: string;
  /** The next step. */
  hint: string;
  /** The request never reached the service (no connection, no tunnel): certainly not applied. */
  notSent: boolean;
  /** A retry may help (a proxy's 4xx to CONNECT will not change). */
  transient: boolean;
}

const LOOKUP = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA']);
const CONNECT = new Set(['ECONNREFUSED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT']);
const RESET = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ERR_STREAM_PREMATURE_CLOSE', 'ETRUNCATED']);
const TIMEOUT = new Set(['GSH_ATTEMPT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const TLS_REASONS: Record<string, string> = {
  CERT_HAS_EXPIRED: 'its certificate has expired',
  CERT_NOT_YET_VALID: 'its certificate is not valid yet',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'its certificate chain is self-signed',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its certificate is not signed by an authority this machine trusts',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'its certificate is not signed by an authority this machine trusts',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its certificate is for another name',
};

function codeOf(err: unknown): string {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : '';
}

function isTls(code: string): boolean {
  return code in TLS_REASONS || /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_)/.test(code) || code === 'EPROTO';
}

/** undici's refusal of a tunnel: `Proxy response (403) !== 200 when HTTP Tunneling`. */
function tunnelStatus(err: unknown): number | undefined {
  const m = /^Proxy response \((\d{3})\)/.exec(String((err as Error | undefined)?.message ?? ''));
  return m ? Number(m[1]) : undefined;
}

/**
 * A proxy's HTTP 407 to a request it was asked to forward (an absolute-URI request: an http://
 * target): the proxy's refusal, never the service's answer, so it is a transport failure in gsh's
 * words (the proxy and its variable), not `HTTP 407`. The request was not forwarded.
 */
export class ProxyRefused extends Error {
  readonly code = 'GSH_PROXY_REFUSED';
  constructor(readonly status: number, readonly proxyAuthenticate: string | undefined) {
    super(`the proxy answered HTTP ${status}`);
    this.name = 'ProxyRefused';
  }
}

/** The authentication schemes a Proxy-Authenticate header offers (`Basic`, `Negotiate`, …), letters only. */
function offeredSchemes(header: string | undefined): string[] {
  if (!header) return [];
  // A challenge begins a header or follows a comma, and is a token not followed by `=` (a parameter).
  return [...header.matchAll(/(?:^|,)\s*([A-Za-z][A-Za-z0-9-]{0,30})(?=\s+[^=,]|\s*(?:,|$))/g)].map((m) => m[1]!);
}

/**
 * The code a failure carries (the --json error's `code`): the system's error name (ECONNREFUSED,
 * ENOTFOUND, …) or gsh's own, never undici's.
 */
export function failureCode(err: unknown, kind: FailureKind): string {
  const code = codeOf(err);
  if (kind === 'proxy-refused') return 'proxy_refused';
  if (!code) return kind === 'malformed' ? 'malformed_answer' : 'network_error';
  if (!code.startsWith('UND_ERR')) return code;
  return ({ UND_ERR_CONNECT_TIMEOUT: 'ETIMEDOUT', UND_ERR_SOCKET: 'ECONNRESET', UND_ERR_CLOSED: 'ECONNRESET', UND_ERR_HEADERS_TIMEOUT: 'GSH_ATTEMPT_TIMEOUT', UND_ERR_BODY_TIMEOUT: 'GSH_ATTEMPT_TIMEOUT' } as Record<string, string>)[code] ?? 'network_error';
}

/** Whether a failure is one gsh words (a network failure), as opposed to a bug or an interrupt. */
export function isTransportFailure(err: unknown): boolean {
  const code = codeOf(err);
  return err instanceof ProxyRefused || /^Proxy Authentication Required \(407\)$/.test(String((err as Error | undefined)?.message ?? '')) || LOOKUP.has(code) || CONNECT.has(code) || RESET.has(code) || TIMEOUT.has(code) || isTls(code) || code.startsWith('UND_ERR') || isMalformedAnswer(err);
}

/** What one attempt was: where it went, through which proxy, what it got before it failed. */
export interface FailureContext {
  /** The base URL (or a signed URL's origin and path) as errors name it. */
  where: string;
  target: URL;
  proxy?: { name: string; from: string; /** Its URL holds a user (sent as Proxy-Authorization, never printed). */ withCredentials?: boolean };
  /** The status, when the answer's head came before the failure. */
  status?: number;
  timeoutMs: number;
  /** A download (its body goes to a file). */
  download?: boolean;
}

/**
 * The words of a failed attempt. A failure while connecting through a proxy is the proxy's: both
 * request paths connect only to the proxy when one is used.
 */
export function describeFailure(err: unknown, ctx: FailureContext): FailureWords {
  const code = codeOf(err);
  const hostPort = `${ctx.target.hostname}:${ctx.target.port || (ctx.target.protocol === 'https:' ? 443 : 80)}`;
  const debug = '--debug shows each attempt.';
  const via = ctx.proxy ? ` through the proxy ${ctx.proxy.name} (from ${ctx.proxy.from})` : '';
  const maybe = (what: string): FailureWords => ({
    kind: 'reset', transient: true, notSent: false,
    message: ctx.download ? `could not download from ${ctx.where}: ${what}` : `could not read the answer of ${ctx.where}: ${what}`,
    hint: `The request was sent${via}; ${debug}`,
  });
  if (isMalformedAnswer(err)) {
    return { kind: 'malformed', transient: true, notSent: false, message: `bad answer from ${ctx.where}${via}: ${describeMalformedAnswer(err)}`, hint: `Something that does not speak HTTP/1.1 answered; check the base URL${ctx.proxy ? ' and the proxy' : ''}. ${debug}` };
  }
  const refusedTunnel = tunnelStatus(err);
  if (refusedTunnel !== undefined && ctx.proxy) {
    if (refusedTunnel === 407) return proxyAuthWords(ctx.proxy, `refused to open a tunnel to ${hostPort}`, '(HTTP 407 to CONNECT)', undefined);
    return {
      kind: 'proxy-refused', transient: refusedTunnel >= 500, notSent: true,
      message: `the proxy ${ctx.proxy.name} (from ${ctx.proxy.from}) refused to open a tunnel to ${hostPort} (HTTP ${refusedTunnel} to CONNECT)`,
      hint: `Ask the proxy's administrator to allow ${hostPort}, or list the host in NO_PROXY. ${debug}`,
    };
  }
  // undici's ProxyAgent turns a 407 to a forwarded request into an error of its own, without the
  // answer's headers; node:http's answer comes to http.ts, which throws ProxyRefused.
  const undiciRefusal = /^Proxy Authentication Required \(407\)$/.test(String((err as Error | undefined)?.message ?? ''));
  if ((err instanceof ProxyRefused || undiciRefusal) && ctx.proxy) {
    const refusal = err instanceof ProxyRefused ? err : undefined;
    return proxyAuthWords(ctx.proxy, `refused to forward the request to ${hostPort}`, `(HTTP ${refusal?.status ?? 407})`, refusal?.proxyAuthenticate);
  }
  if (LOOKUP.has(code) || CONNECT.has(code)) {
    const host = ctx.proxy ? ctx.proxy.name.replace(/^[a-z]+:\/\//, '') : hostPort;
    const why = LOOKUP.has(code)
      ? (code === 'EAI_AGAIN' ? `the name lookup of ${host.replace(/:\d+$/, '')} failed for now (DNS)` : `no address found for the name ${host.replace(/:\d+$/, '')} (DNS)`)
      : code === 'ECONNREFUSED' ? `${host} refused the connection (nothing listens there)`
      : code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT' ? `connecting to ${host} timed out`
      : `no route to ${host}`;
    if (ctx.proxy) {
      return { kind: 'connect', transient: true, notSent: true, message: `could not reach the proxy ${ctx.proxy.name} (from ${ctx.proxy.from}): ${why}`, hint: `Check the proxy, or unset ${ctx.proxy.from} (NO_PROXY lists hosts reached without it). ${debug}` };
    }
    return { kind: LOOKUP.has(code) ? 'lookup' : 'connect', transient: true, notSent: true, message: `could not reach ${ctx.where}: ${why}`, hint: `Check the base URL and your connection; ${debug}` };
  }
  if (isTls(code)) {
    const why = TLS_REASONS[code] ?? `the handshake failed (${code})`;
    return { kind: 'tls', transient: false, notSent: true, message: `could not connect securely to ${hostPort}${via}: ${why}`, hint: `Check the base URL's host and the system's trusted certificates (NODE_EXTRA_CA_CERTS adds one). ${debug}` };
  }
  if (TIMEOUT.has(code)) {
    const limit = `${ctx.timeoutMs / 1000} s (--request-timeout)`;
    if (ctx.status !== undefined) {
      return { ...maybe(`the service answered (HTTP ${ctx.status}) and then stalled: the body did not arrive within ${limit}`), kind: 'timeout', hint: 'The service answered and then stopped sending; try again, or raise --request-timeout for a large answer (--debug shows each attempt).' };
    }
    return { ...maybe(`no answer within ${limit}`), kind: 'timeout', message: `no answer from ${ctx.where}${via} within ${limit}`, hint: `The request was sent; raise --request-timeout for a slow operation. ${debug}` };
  }
  if (RESET.has(code) || code.startsWith('UND_ERR')) {
    if (code === 'ETRUNCATED') return maybe(String((err as Error).message));
    if (ctx.status !== undefined) {
      return { ...maybe(`the service answered (HTTP ${ctx.status}) and then the connection closed before the whole body arrived`), hint: `The answer was cut on the way; try again. ${debug}` };
    }
    return maybe(`the connection${via} closed after the request was sent, before any answer`);
  }
  return maybe(`the connection failed${code ? ` (${code})` : ''}`);
}

/**
 * A proxy that wants a user and password (HTTP 407), to CONNECT or to a request it forwards: the
 * same words on both paths. Not retried (the same credentials get the same answer); the request
 * never reached the service. The user and password are never printed, only whether there were any.
 */
function proxyAuthWords(proxy: NonNullable<FailureContext['proxy']>, what: string, status: string, proxyAuthenticate: string | undefined): FailureWords {
  const schemes = offeredSchemes(proxyAuthenticate);
  const notBasic = schemes.length > 0 && !schemes.some((s) => s.toLowerCase() === 'basic');
  const example = `${proxy.name.replace(/^([a-z]+:\/\/)/, '$1USER:PASSWORD@')}`;
  const why = proxy.withCredentials
    ? `it did not accept the user and password in ${proxy.from}`
    : 'it requires a user and password';
  const hint = notBasic
    ? `The proxy asks for ${schemes.join(' or ')} authentication; gsh sends Basic only (a user and password in ${proxy.from}, e.g. ${example}). Ask the proxy's administrator for Basic, or list the host in NO_PROXY.`
    : proxy.withCredentials
      ? `Check the user and password in ${proxy.from} (${example}); characters such as @ : / % in them must be percent-encoded (@ as %40). gsh sends them as Proxy-Authorization and never prints them.`
      : `Put them in ${proxy.from}: ${proxy.from}=${example} (gsh sends them as Proxy-Authorization and never prints them).`;
  return { kind: 'proxy-refused', transient: false, notSent: true, message: `the proxy ${proxy.name} (from ${proxy.from}) ${what}: ${why} ${status}`, hint };
}
