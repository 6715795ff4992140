import { fail } from '../envelope.js';
import type { SandboxContext } from '../context.js';
import type { ServerRecord } from '../state.js';
import type { HandlerRequest } from './types.js';

/** The JSON body as an object ({} when empty); anything else is 400 bad_request. */
export function bodyObject(req: HandlerRequest): Record<string, unknown> {
  if (req.body === undefined) return {};
  if (req.body === null || typeof req.body !== 'object' || Array.isArray(req.body)) {
    throw fail.badRequest('Request body must be a JSON object');
  }
  return req.body as Record<string, unknown>;
}

/** The server of a `/servers/{server_id}/...` route (the pipeline already answered 404 if absent). */
export function serverOf(req: HandlerRequest, ctx: SandboxContext): ServerRecord {
  const s = ctx.state.servers.get(req.params.server_id ?? '');
  if (!s) throw fail.notFound('Server not found');
  return s;
}

/** Accepts JSON booleans and the strings "true"/"false" (flag values may arrive as text). */
export function asBoolean(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (v === 'true') return true;
  if (v === 'false') return false;
  return undefined;
}
