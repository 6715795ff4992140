import { GshError, NotTheApiError } from '../errors.js';
import type { ApiResponse } from '../request-spec.js';

// A 2xx is only a success when it is the API's answer (01-general-contract.md "Envelope rules":
// JSON with `data`). Anything else (a proxy's login page, a website at a wrong --base-url, broken
// JSON) is an error that says what came instead, so a script never takes it for "no servers".

/** The answer's `data`, or an error naming what arrived instead. A 204 (or an empty body) has none. */
export function envelopeData(res: ApiResponse<unknown>): unknown {
  const body = res.body;
  if (res.status >= 300) throw notTheApi(res); // a redirect (errors never get here)
  if (res.status === 204 || body === undefined) return undefined;
  if (body !== null && typeof body === 'object' && !Buffer.isBuffer(body) && !Array.isArray(body) && 'data' in body) {
    return (body as { data: unknown }).data;
  }
  throw notTheApi(res);
}

export function notTheApi(res: ApiResponse<unknown>): GshError {
  const baseUrlHint = 'This looks like a website or a login page, not the API: check --base-url (or GSH_BASE_URL, or the profile), which ends in /api/v2.';
  if (res.status >= 300 && res.status < 400) {
    return new NotTheApiError(`the answer is not the API's: HTTP ${res.status}, a redirect to ${res.headers.location ?? 'nowhere'}`, baseUrlHint, res.status);
  }
  const type = res.headers['content-type'] ?? 'no content type';
  const text = Buffer.isBuffer(res.body) ? res.body.toString('utf8') : typeof res.body === 'string' ? res.body : JSON.stringify(res.body);
  const html = /html/i.test(type) || /^\s*<(!doctype|html)/i.test(text);
  // The body parses as JSON only when the request core could read it: a string under a JSON type is broken JSON.
  const malformed = typeof res.body === 'string' && /json/i.test(type);
  const what = html ? 'an HTML page' : malformed ? 'malformed JSON (it does not parse)' : /json/i.test(type) ? 'JSON without the API envelope (no "data")' : 'not the API\'s JSON';
  const hint = html ? baseUrlHint : 'The service (or something in front of it) answered with something else; --debug shows the whole answer.';
  return new NotTheApiError(`the answer is not the API's: HTTP ${res.status}, ${type}, ${what}: ${firstBytes(text, html)}`, hint, res.status);
}

/** One line from an answer's text: an HTML page's title (or its text without markup), else the first line. */
export function summarise(text: string, html = /^\s*</.test(text)): string {
  const title = html ? /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1] : undefined;
  const plain = html ? (title ?? text.replace(/<script[\s\S]*?<\/script>|<style[\s\S]*?<\/style>/gi, ' ').replace(/<[^>]*>/g, ' ')) : text;
  const line = plain.split(/\r?\n/).map((l) => l.replace(/\s+/g, ' ').trim()).find((l) => l !== '') ?? '';
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}

function firstBytes(text: string, html: boolean): string {
  // eslint-disable-next-line no-control-regex
  const printable = summarise(text, html).replace(/[\x00-\x1f\x7f-\x9f]/g, '?');
  return printable ? JSON.stringify(printable) : '(empty)';
}
