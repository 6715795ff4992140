import { GshError } from './errors.js';

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
