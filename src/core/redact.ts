// Secrets never reach a log (ARCHITECTURE.md "Terminal and wire safety"): --debug traces use these.

const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-service-signature']);

/** Keeps the scheme and at most the first 4 characters of a credential, enough to tell keys apart. */
export function redactSecret(value: string): string {
  const m = /^(\w+\s+)?(.*)$/.exec(value);
  const scheme = m?.[1] ?? '';
  const secret = m?.[2] ?? '';
  return `${scheme}${secret.slice(0, 4)}…[redacted]`;
}

export function redactHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) out[k] = SECRET_HEADERS.has(k.toLowerCase()) ? redactSecret(v) : v;
  return out;
}

const SECRET_KEYS = ['token', 'access_token', 'assertion', 'identity_assertion', 'claim_token', 'secret', 'client_secret', 'api_key', 'password', 'key'];
const SECRET_KEY_SET: ReadonlySet<string> = new Set(SECRET_KEYS);

/** A body shown in a plan: the values of secret-looking fields masked, at any depth. */
export function redactBody(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactBody);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, SECRET_KEY_SET.has(k) ? '[redacted]' : redactBody(v)]));
}

const SECRET_FIELDS = /"(token|access_token|assertion|identity_assertion|claim_token|secret|api_key|password|key)"\s*:\s*"([^"]*)"/g;
const SECRET_FORM = /\b(token|assertion|claim_token|client_secret|password)=([^&\s]*)/g;

/** Bodies in traces: secret-looking JSON fields and form fields are masked, long bodies cut. */
export function truncateForTrace(text: string, max = 2000): string {
  const masked = text
    .replace(SECRET_FIELDS, (_m, k: string) => `"${k}":"[redacted]"`)
    .replace(SECRET_FORM, (_m, k: string) => `${k}=[redacted]`);
  return masked.length > max ? `${masked.slice(0, max)}… (${masked.length - max} more bytes)` : masked;
}

/** Query parameters that make a URL a credential (signed node URLs, presigned storage URLs). */
const SIGNED_QUERY = /([?&](?:signature|sig|token|access_token|x-amz-signature|x-amz-credential|x-amz-security-token|x-goog-signature)=)[^&"'\s]+/gi;

/** A signed URL's signature (and like parameters) masked, wherever it appears in a line. */
export function redactSignedUrls(line: string): string {
  return line.replace(SIGNED_QUERY, '$1[redacted]');
}
