import type { IncomingMessage } from 'node:http';
import { ApiFailure, fail } from './envelope.js';

// Reading and parsing what a client sent. Nothing here may throw anything but ApiFailure: the
// sandbox must answer bad input with 400/413, never crash.

export type Query = Record<string, string | string[]>;

/** Bodies above this are refused with 413 payload_too_large. */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

export function parseQuery(search: URLSearchParams): Query {
  const out: Query = {};
  for (const [k, v] of search) {
    const prev = out[k];
    if (prev === undefined) out[k] = v;
    else out[k] = Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

/** Single value of a query parameter (the last one when repeated). */
export function queryValue(query: Query, name: string): string | undefined {
  const v = query[name];
  return Array.isArray(v) ? v[v.length - 1] : v;
}

export function readBody(req: IncomingMessage): Promise<Buffer | ApiFailure> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(c);
    });
    req.on('end', () =>
      resolve(tooLarge ? new ApiFailure(413, 'payload_too_large', `Body exceeds ${MAX_BODY_BYTES} bytes`) : Buffer.concat(chunks)),
    );
    req.on('error', () => resolve(fail.badRequest('Could not read the request body')));
    // An aborted upload never ends; settle anyway (the first resolve wins).
    req.on('close', () => {
      if (!req.complete) resolve(fail.badRequest('The request body was cut off'));
    });
  });
}

export type BodyKind = 'none' | 'json' | 'form' | 'raw';

export interface ParsedBody {
  kind: BodyKind;
  value: unknown;
  raw: Buffer;
}

/** JSON and form bodies are parsed; other content types are kept raw (handlers decide). */
export function parseBody(raw: Buffer, contentType: string | undefined): ParsedBody {
  if (raw.length === 0) return { kind: 'none', value: undefined, raw };
  const type = (contentType ?? 'application/json').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json' || type.endsWith('+json') || type === '') {
    const text = raw.toString('utf8');
    if (text.trim() === '') return { kind: 'none', value: undefined, raw };
    try {
      return { kind: 'json', value: JSON.parse(text) as unknown, raw };
    } catch {
      throw fail.badRequest('Request body is not valid JSON');
    }
  }
  if (type === 'application/x-www-form-urlencoded') {
    return { kind: 'form', value: Object.fromEntries(new URLSearchParams(raw.toString('utf8'))), raw };
  }
  return { kind: 'raw', value: undefined, raw };
}

/** Canonical JSON (sorted keys) for idempotency fingerprints. */
export function canonical(value: unknown): string {
  if (value === undefined) return '';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
}

/** An admin call's JSON object body: {} when empty, undefined when it is not a JSON object. */
export async function readJsonObject(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const raw = await readBody(req);
  if (!(raw instanceof Buffer)) return undefined;
  if (raw.length === 0) return {};
  try {
    const v = JSON.parse(raw.toString('utf8')) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
