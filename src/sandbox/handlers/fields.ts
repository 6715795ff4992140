import { fail } from '../envelope.js';
import { queryValue, type Query } from '../request.js';

// Reading body and query values for the families with real semantics. Wrong shapes are 400
// bad_request ("invalid body, query or content type", 01 "Errors"), never exceptions.

export function optString(body: Record<string, unknown>, name: string): string | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw fail.badRequest(`${name} must be a string`);
  return v;
}

export function reqString(body: Record<string, unknown>, name: string): string {
  const v = optString(body, name);
  if (v === undefined || v === '') throw fail.badRequest(`${name} is required`);
  return v;
}

/** A list of strings; a single string counts as a list of one. */
export function stringList(body: Record<string, unknown>, name: string): string[] | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  const list = typeof v === 'string' ? [v] : v;
  if (!Array.isArray(list) || !list.every((x) => typeof x === 'string')) throw fail.badRequest(`${name} must be a list of strings`);
  return list as string[];
}

/** An integer query value clamped to [min, max] ("values clamped", 01 "Limits"). */
export function clampedInt(query: Query, name: string, min: number, max: number, fallback: number): number {
  const raw = queryValue(query, name);
  if (raw === undefined) return fallback;
  if (!/^-?\d{1,9}$/.test(raw)) throw fail.badRequest(`Query parameter ${name} must be an integer`);
  return Math.min(max, Math.max(min, Number(raw)));
}

export function boolQuery(query: Query, name: string, fallback: boolean): boolean {
  const raw = queryValue(query, name);
  if (raw === undefined) return fallback;
  if (raw !== 'true' && raw !== 'false') throw fail.badRequest(`Query parameter ${name} must be true or false`);
  return raw === 'true';
}
