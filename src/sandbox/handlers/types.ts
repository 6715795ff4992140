import type { Operation, ScopeRule } from '../../operations/types.js';
import type { Principal } from '../auth.js';
import type { HandlerResult } from '../envelope.js';
import type { Query, BodyKind } from '../request.js';
import type { SandboxContext } from '../context.js';

// The contract between the pipeline and handler files. A family file exports
// `handlers: HandlerMap` keyed by "METHOD /path/template" exactly as in the registry.

export interface HandlerRequest {
  method: string;
  /** Concrete path relative to /api/v2. */
  path: string;
  /** Route template, e.g. `/servers/{server_id}/power`. */
  template: string;
  params: Record<string, string>;
  query: Query;
  /** Parsed JSON or form body; undefined when empty. */
  body: unknown;
  bodyKind: BodyKind;
  rawBody: Buffer;
  /** Undefined only on `auth: 'none'` routes. */
  principal?: Principal;
  /** The registry entry, when the registry declares this route. */
  op?: Operation;
  requestId: string;
  headers: Record<string, string | string[] | undefined>;
}

export type Handler = (req: HandlerRequest, ctx: SandboxContext) => HandlerResult | Promise<HandlerResult>;

/** For routes the registry does not (yet) declare, a handler can state its own access rule. */
export interface HandlerSpec {
  handle: Handler;
  /** `none`: no credential; `bearer`: any valid credential, no particular scope. */
  auth?: 'none' | 'bearer';
  scope?: ScopeRule;
  /** Accept bodies that are neither JSON nor form (uploads). */
  rawBody?: boolean;
}

export type HandlerMap = Record<string, Handler | HandlerSpec>;

export function asSpec(h: Handler | HandlerSpec): HandlerSpec {
  return typeof h === 'function' ? { handle: h } : h;
}
