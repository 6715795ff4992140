import { UsageError } from '../errors.js';
import type { ProxyChoice } from './wire.js';

export type { ProxyChoice } from './wire.js';

// TLS or loopback (issue #28): a key sent over plain http can be read by anyone on the path, so a
// base URL with http:// is accepted only for this machine (the sandbox, a local proxy). Anything
// else is a usage error before any request, unless GSH_INSECURE_HTTP=1, which is said on each run.

/** localhost, 127.0.0.0/8 and ::1 (the hosts that never leave this machine). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Checks a base URL's transport. Returns the warning to print when GSH_INSECURE_HTTP=1 lets a
 * plain-http remote host through; throws a usage error when it is not set. An unparsable URL is
 * left to normalizeBaseUrl (core/wire/http.ts), which says so.
 */
export function plainHttpWarning(baseUrl: string, env: NodeJS.ProcessEnv): string | undefined {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' || isLoopbackHost(url.hostname)) return undefined;
  if (env.GSH_INSECURE_HTTP === '1') {
    return `GSH_INSECURE_HTTP=1: sending the credential to ${url.origin} over plain http, readable by anyone on the way`;
  }
  throw new UsageError(
    `refusing plain http to ${url.host}: the credential would cross the network unencrypted`,
    `Use https://${url.host}${url.pathname.replace(/\/+$/, '')}; http:// is for loopback hosts only (localhost, 127.0.0.1, ::1). To allow it anyway set GSH_INSECURE_HTTP=1.`,
  );
}

// The transport policy (issue 45): what both request paths (core/wire/transport.ts: node:http and
// undici) do alike. Which proxy a request goes through, how long an idle connection is kept, and
// which failures are resent at once on a new connection are decided here and nowhere else; the
// words of every failure are in core/wire/transport-errors.ts.

/**
 * How long an idle kept-alive connection is kept: less than the shortest idle timeout of common
 * servers, so gsh drops a connection before the server does. Node's http server closes after
 * 5 s (keepAliveTimeout), Apache httpd after 5 s (KeepAliveTimeout), nginx after 75 s
 * (keepalive_timeout), squid after 2 min (client_idle_pconn_timeout). A server that names a
 * shorter one (`Keep-Alive: timeout=N`) is believed by both clients (a second less than N).
 */
export const IDLE_KEEPALIVE_MS = 4_000;

/** Resends at once, on a new connection, of one attempt whose kept-alive connection was found closed. */
export const STALE_RESENDS = 2;


/** A proxy's address as gsh names it: scheme, host and port, never a user or password in it. */
export function proxyName(p: ProxyChoice): string {
  return `${p.url.protocol}//${p.url.host}`;
}

/**
 * The first of `names` set to a non-empty value. Lowercase names come first, as curl reads them.
 */
function firstSet(env: NodeJS.ProcessEnv, names: readonly string[]): { name: string; value: string } | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return { name, value };
  }
  return undefined;
}

/**
 * The proxy for `target`, as curl chooses it (README "Authentication and configuration"):
 * `http_proxy`, then `HTTP_PROXY`, for an http:// URL (curl reads only the lowercase one; gsh
 * reads both, lowercase first); `https_proxy`, then `HTTPS_PROXY`, for an https:// URL; then
 * `all_proxy`/`ALL_PROXY` for either; none when `no_proxy` (or `NO_PROXY`) lists the host.
 * A proxy given without a scheme is http://, as in curl.
 */
export function proxyFor(target: URL, env: NodeJS.ProcessEnv): ProxyChoice | undefined {
  const own = target.protocol === 'https:' ? ['https_proxy', 'HTTPS_PROXY'] : ['http_proxy', 'HTTP_PROXY'];
  const set = firstSet(env, [...own, 'all_proxy', 'ALL_PROXY']);
  if (!set) return undefined;
  const noProxy = firstSet(env, ['no_proxy', 'NO_PROXY']);
  if (noProxy && bypassesProxy(target, noProxy.value)) return undefined;
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(set.value) ? set.value : `http://${set.value}`);
  } catch {
    throw new UsageError(`${set.name} is not a URL`, `Set it to the proxy's address, e.g. ${set.name}=http://127.0.0.1:3128, or unset it.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${set.name} names a ${url.protocol.slice(0, -1)} proxy; gsh speaks to http:// and https:// proxies only`);
  }
  return { url, from: set.name };
}

/**
 * A credential for an http:// target through an http:// proxy elsewhere would cross the network
 * unencrypted, to the proxy: refused as plain http to a remote host is (issue 28), unless
 * GSH_INSECURE_HTTP=1. An https:// target goes through a tunnel, encrypted end to end.
 */
export function checkProxiedPlainHttp(target: URL, proxy: ProxyChoice | undefined, env: NodeJS.ProcessEnv): void {
  if (!proxy || target.protocol !== 'http:' || proxy.url.protocol !== 'http:' || isLoopbackHost(proxy.url.hostname) || env.GSH_INSECURE_HTTP === '1') return;
  throw new UsageError(
    `refusing to send the credential over plain http through the proxy ${proxyName(proxy)} (from ${proxy.from}): it would cross the network unencrypted`,
    `List ${target.hostname} in no_proxy (e.g. no_proxy=localhost,127.0.0.1), use an https:// base URL, or set GSH_INSECURE_HTTP=1 to allow it.`,
  );
}

/**
 * curl's no_proxy rules: a comma- or space-separated list; `*` alone matches every host; a name
 * matches itself and every name under it (`example.com` and `.example.com` both match
 * `api.example.com` and `example.com`), an address only itself; `name:port` matches that port only; an IPv4 address may be
 * given as a CIDR range (`10.0.0.0/8`). Case does not matter; brackets around IPv6 are optional.
 */
export function bypassesProxy(target: URL, noProxy: string): boolean {
  const host = target.hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  // A suffix names the names under it, never addresses: `.0.0.1` is no rule for 127.0.0.1.
  const isName = ipv4(host) === undefined && !host.includes(':');
  for (const raw of noProxy.split(/[,\s]+/)) {
    let entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return true;
    let entryPort: string | undefined;
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
    if (bracketed) {
      entry = bracketed[1]!;
      entryPort = bracketed[2];
    } else {
      const withPort = /^([^:]+):(\d+)$/.exec(entry);
      if (withPort) {
        entry = withPort[1]!;
        entryPort = withPort[2];
      }
    }
    if (entryPort !== undefined && entryPort !== port) continue;
    entry = entry.replace(/^\*?\./, '').replace(/\.$/, '');
    if (entry.includes('/') ? inCidr(host, entry) : host === entry || (isName && host.endsWith(`.${entry}`))) return true;
  }
  return false;
}

function ipv4(text: string): number | undefined {
  const parts = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (!parts) return undefined;
  const bytes = parts.slice(1).map(Number);
  return bytes.some((b) => b > 255) ? undefined : bytes.reduce((n, b) => n * 256 + b, 0);
}

function inCidr(host: string, cidr: string): boolean {
  const [base, bitsText] = cidr.split('/');
  const addr = ipv4(host);
  const net = ipv4(base ?? '');
  const bits = Number(bitsText);
  if (addr === undefined || net === undefined || !Number.isInteger(bits) || bits < 0 || bits > 32) return false;
  const size = 2 ** (32 - bits);
  return Math.floor(addr / size) === Math.floor(net / size);
}

/** Marks a failure of a reused connection before any byte of the answer: the attempt may be sent again at once. */
export const STALE = Symbol('stale connection');

/** Failures that say a connection was closed under a request before its answer began. */
const CLOSED_UNDER = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

export function closedBeforeAnswer(err: unknown): boolean {
  return CLOSED_UNDER.has(String((err as { code?: unknown } | undefined)?.code));
}

/** The Proxy-Authorization a proxy URL's user and password give (curl's behaviour), if any. */
export function proxyAuthorization(proxy: URL): string | undefined {
  if (!proxy.username) return undefined;
  return `Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString('base64')}`;
}
