import type { Readable } from 'node:stream';

// One attempt of the request core as its transports (core/transport.ts) carry it: types only,
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
}

/** The answer's head, and its body to read (or to hand to a sink). */
export interface WireAnswer {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: Readable;
}

/** The proxies the environment names (core/transport.ts proxyOf). */
export interface Proxy {
  httpProxy?: string;
  httpsProxy?: string;
}
