// What a request and its answer are (ARCHITECTURE.md "Requests"), apart from the client that
// sends them (http.ts), so that plans (plan.ts) and the envelope check (envelope.ts), which the
// client itself imports, can name them without importing the client.

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type QueryValue = string | number | boolean | readonly (string | number | boolean)[] | undefined;

export interface RequestSpec {
  method: Method;
  /** Relative to the base URL (`/servers/abc`), or absolute for signed node URLs. */
  path: string;
  query?: Record<string, QueryValue>;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent form-encoded (the OAuth endpoints). */
  form?: Record<string, string>;
  /** Sent as is: the caller sets content-type. */
  rawBody?: Buffer | string;
  /** Streamed with this exact Content-Length (uploads, core/transfer/multipart-upload.ts); opened anew on each attempt. */
  streamBody?: StreamBody;
  headers?: Record<string, string>;
  /** false: no Authorization header (health, discovery). */
  auth?: boolean;
  /** Mutations always carry one; a fresh UUID unless given. Reused on every retry. */
  idempotencyKey?: string;
  /** A successful body is returned as the exact bytes (a Buffer), not decoded or parsed. */
  binary?: boolean;
  /**
   * A successful body is handed to this as a stream instead of being read into memory
   * (downloads); the answer's body is then undefined. A failure while it reads (a cut connection,
   * a body shorter than announced) is retried like a dropped connection: it gets a fresh body.
   */
  sink?: (body: AsyncIterable<Uint8Array>, headers: Record<string, string>) => Promise<void>;
  /** Aborts the request (a directory upload's Ctrl-C); an aborted request is not retried. */
  signal?: AbortSignal;
  /**
   * Sent even after Ctrl-C / SIGTERM: the clean-up a run owes once interrupted (a countdown's
   * cancellation announced). Only this request's own --request-timeout bounds it.
   */
  afterInterrupt?: boolean;
  /**
   * --wait: an approval this request needs is waited for (its status URL polled) without a
   * terminal too; otherwise only on a terminal (core/run/person-must-act.ts).
   */
  waitsForApproval?: boolean;
  /**
   * A POST to an endpoint that takes no Idempotency-Key (MCP's JSON-RPC, src/mcp/): none is sent,
   * and `never` sends it at most once (no retry, no resend on a stale connection: a tool call may
   * act, and seeing it twice would act twice), while `safe` is a read that happens to be a POST
   * and is retried as a GET is.
   */
  resend?: 'never' | 'safe';
  /**
   * With `sink`: the most time between the request and its answer's head, and between chunks
   * of the answer, in place of --request-timeout (0: no limit). An MCP answer comes when its
   * tool is done, which --tool-timeout bounds; the service's own stream may be quiet for hours.
   */
  idleTimeoutMs?: number;
}

export interface StreamBody {
  length: number;
  open(): AsyncIterable<Uint8Array>;
}

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Unix seconds. */
  reset: number;
}

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON, or the text when the body is not JSON. */
  body: T;
  requestId: string | undefined;
  replayed: boolean;
  idempotencyKey: string | undefined;
}
