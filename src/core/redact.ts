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

const SECRET_KEYS = ['token', 'access_token', 'refresh_token', 'id_token', 'assertion', 'identity_assertion', 'claim_token', 'secret', 'client_secret', 'api_key', 'password', 'key', 'private_key'];
const SECRET_KEY_SET: ReadonlySet<string> = new Set(SECRET_KEYS);
/** A field whose value is a credential: the known names, and any `…_token`, `…_secret`, `…_password`. */
export const isSecretKey = (k: string): boolean => SECRET_KEY_SET.has(k.toLowerCase()) || /_(token|secret|password)$/i.test(k);

/** A body shown in a plan or a trace: the values of secret-looking fields masked, at any depth. */
export function redactBody(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactBody);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, isSecretKey(k) ? '[redacted]' : redactBody(v)]));
}

/** The first secret-looking key in a text that is not JSON: `"key":` or `key=`. */
const SECRET_KEY_IN_TEXT = /["']?\b[A-Za-z_]*(?:token|assertion|secret|password|key)\b["']?\s*[:=]/i;

/**
 * Bodies in traces, masked by their structure: a JSON body is parsed and its secret fields
 * replaced at any depth (a pattern over the text stops at an escaped quote and would print the
 * rest of the secret); a body that is not JSON (a form, a broken or cut answer) is printed only
 * up to its first secret-looking key. Long bodies are cut.
 */
export function truncateForTrace(text: string, max = 2000): string {
  let masked: string;
  try {
    masked = JSON.stringify(redactBody(JSON.parse(text)));
  } catch {
    masked = cutAtFirstSecret(text);
  }
  return masked.length > max ? `${masked.slice(0, max)}… (${masked.length - max} more bytes)` : masked;
}

function cutAtFirstSecret(text: string): string {
  const m = SECRET_KEY_IN_TEXT.exec(text);
  if (!m) return text;
  const end = m.index + m[0].length;
  return `${text.slice(0, end)}[redacted: not JSON, so the rest (${text.length - end} bytes) is not shown]`;
}

/** Query parameters that make a URL a credential (signed node URLs, presigned storage URLs). */
const SIGNED_QUERY = /([?&](?:signature|sig|token|access_token|x-amz-signature|x-amz-credential|x-amz-security-token|x-goog-signature)=)[^&"'\s]+/gi;

/** A signed URL's signature (and like parameters) masked, wherever it appears in a line. */
export function redactSignedUrls(line: string): string {
  return line.replace(SIGNED_QUERY, '$1[redacted]');
}
