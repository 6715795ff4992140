// Response shapes of 01-general-contract.md: "Envelope rules" ({data}, pagination) and "Errors"
// ({error:{code,message,doc_url,errors?,action_url?}, request_id}).

export interface FieldError {
  field: string;
  message: string;
}

/** What a handler returns. `body` is JSON-encoded; `raw` is sent as is (llms.txt, openapi). */
export interface HandlerResult {
  status: number;
  body?: unknown;
  raw?: { contentType: string; text: string };
  headers?: Record<string, string>;
}

export interface ErrorExtra {
  errors?: FieldError[];
  action_url?: string;
  headers?: Record<string, string>;
  /** Further members of `error` (e.g. `payment`, `approval`, `claim`). */
  more?: Record<string, unknown>;
}

/** Thrown by handlers and pipeline stages; turned into the error envelope by the server. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: ErrorExtra = {},
  ) {
    super(message);
    this.name = 'ApiFailure';
  }
}

export const fail = {
  badRequest: (message: string) => new ApiFailure(400, 'bad_request', message),
  notFound: (message = 'Resource not found') => new ApiFailure(404, 'not_found', message),
  conflict: (message: string) => new ApiFailure(409, 'conflict', message),
  validation: (errors: FieldError[], message = 'Validation failed') =>
    new ApiFailure(422, 'validation_failed', message, { errors }),
};

export function errorBody(
  failure: ApiFailure,
  requestId: string,
  docBase: string,
): { error: Record<string, unknown>; request_id: string } {
  const error: Record<string, unknown> = {
    code: failure.code,
    message: failure.message,
    doc_url: `${docBase}#${failure.code}`,
  };
  if (failure.extra.errors?.length) error.errors = failure.extra.errors;
  if (failure.extra.action_url) error.action_url = failure.extra.action_url;
  if (failure.extra.more) Object.assign(error, failure.extra.more);
  return { error, request_id: requestId };
}

export const ok = (data: unknown, status = 200): HandlerResult => ({ status, body: { data } });

/** Drop undefined/null members: "Optional fields are omitted when empty" (Envelope rules 4). */
export function compact<T extends Record<string, unknown>>(obj: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (v !== undefined && v !== null) out[k] = v;
  return out as T;
}
