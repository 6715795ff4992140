import type { Readable } from 'node:stream';

// One attempt of the request core as its transports (core/wire/transport.ts) carry it: types only,
// shared by both transports' modules (so no chunk of its own is loaded).

/** One attempt as it goes on the wire. */
export interface WireRequest {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: string | Buffer | AsyncIterable<Uint8Array> | undefined;
  /** Between chunks of a streamed body or answer (undici's headers and body timeouts). */
  timeoutMs: number;
  /** Aborting rejects the attempt, or ends its body's reading, with the signal's reason. */
  signal?: AbortSignal;
  /** The proxy it goes through (core/wire/transport-policy.ts proxyFor), if any. */
  proxy?: ProxyChoice;
  /** Says under --debug what the transport did on its own (a stale connection's resend). */
  note?: (line: string) => void;
  /** false: never sent again on a new connection, even when the reused one was closed before any answer (it may have been read). */
  resendStale?: false;
}

/** The answer's head, and its body to read (or to hand to a sink). */
export interface WireAnswer {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: Readable;
}

/**
 * A body that can be drained straight from the connection's read buffer (core/wire/direct-body.ts):
 * `write` gets each stretch synchronously, valid only during the call, until the body ends.
 */
export interface DirectAnswerBody {
  drainTo(write: (chunk: Uint8Array) => void): Promise<void>;
}

/** The proxy one request goes through (core/wire/transport-policy.ts proxyFor). */
export interface ProxyChoice {
  url: URL;
  /** The variable that named it (`http_proxy`, `HTTPS_PROXY`, …). */
  from: string;
}
