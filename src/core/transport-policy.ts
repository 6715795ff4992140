import { UsageError } from './errors.js';

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
 * left to normalizeBaseUrl (core/http.ts), which says so.
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
