import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

// Public and shared types of the sandbox. Kept apart from the implementation so handler files
// (src/sandbox/handlers/<family>.ts) can import them without pulling in the http server.

export interface Faults {
  /** Probability (0..1) that a request is answered by the "gateway" with 502, 503 or 504 before processing. */
  gateway5xx: number;
  /** Probability (0..1) that a request is executed and then its connection destroyed without a response. */
  lostResponse: number;
  /** Probability (0..1) of a 429 rate_limit_exceeded (Retry-After: 1) before processing. */
  rateLimit429: number;
  /** Added processing latency in milliseconds for every API request (not scaled by timeScale). */
  latencyMs: number;
}

export interface SandboxOptions {
  /** 0 (default) picks a free port. The server always binds 127.0.0.1. */
  port?: number;
  /** Number of demo servers (default 3). */
  servers?: number;
  /** Seed for demo data and for probabilistic faults (default 1). */
  seed?: number;
  /** Multiplier for every simulated delay (default 1; tests use e.g. 0.05). */
  timeScale?: number;
  /** Per-minute rate limit of the demo keys and of keys made without one (default 1000). */
  rateLimit?: number;
  /** The wall clock of the rate-limit windows (default Date.now); tests share a virtual one with gsh. */
  now?: () => number;
  /**
   * Simulated delays (power transitions, jobs) wait for `extensions.context.clock.advance(ms)`
   * instead of real timers, so a test decides when they happen (timeScale is then not used).
   */
  manualTime?: boolean;
  faults?: Partial<Faults>;
  /** Lifetime of console session tokens in real ms (default 10 minutes). */
  consoleTokenTtlMs?: number;
  /** Serve only what the contract shows; fill its gaps differently from the default (strict.ts). */
  strict?: boolean;
  /**
   * The unit of `uptime` in the server status and the console's `stats` (default 's'). The
   * contract names none (01-general-contract.md "Server status", "Console socket"): a client must
   * work with either.
   */
  uptimeUnit?: 's' | 'ms';
  /**
   * Every string a person reads (names, messages, URLs to open, console lines) carries escape
   * sequences, bidi and zero-width characters, wide characters, CR, LF and TAB (hostile.ts).
   * States and statuses keep their bytes (gsh follows them: `--wait`) unless `{ states: true }`
   * also makes them hostile, for tests of what only shows them (`gsh top`).
   */
  hostile?: boolean | { states?: boolean };
}

/** 500: the API itself fails after taking the request, so an Idempotency-Key stores (and replays) the failure. */
/** 'cut': a signed download (GET /__node/download or /__node/archive) sends half its bytes, then the connection is destroyed. */
export type InjectedFaultKind = 502 | 503 | 504 | 'lost' | 'drop' | 429 | 500 | 'cut';

export interface Injection {
  kind: InjectedFaultKind;
  /** Only requests with this method (any when omitted). */
  method?: string;
  /** Concrete path relative to /api/v2 (e.g. `/servers/ab12cd34/power`) or route template (`/servers/{server_id}/power`), or a RegExp tested on the concrete path; for 'cut', the node path (`/__node/archive`). */
  path?: string | RegExp;
  /** How many matching requests it applies to (default 1). */
  count?: number;
  /** Retry-After seconds for kind 429 (default 1). */
  retryAfter?: number;
}

export type FaultTag = '502' | '503' | '504' | 'lost' | 'drop' | '429' | 'cut';

/**
 * One change the sandbox made: a mutation its handler executed and answered below 400 (a replay
 * of a stored answer is none). Tests count these to check that a request acted exactly once.
 */
export interface EffectEntry {
  /** The request log entry (seq) of the request that made it. */
  seq: number;
  method: string;
  path: string;
  route?: string;
  idempotencyKey?: string;
  status: number;
  /** Its answer was lost on the way back (a `lost` fault): the client never heard of it. */
  lost: boolean;
}

export interface RequestLogEntry {
  /** 1-based order of arrival. */
  seq: number;
  /** Arrival time, ISO 8601 with milliseconds. */
  at: string;
  method: string;
  /** Concrete path relative to /api/v2, without the query (absolute path when outside /api/v2). */
  path: string;
  /** The route template it matched, e.g. `/servers/{server_id}/power`. */
  route?: string;
  query: Record<string, string | string[]>;
  /** Parsed body (JSON value or form fields); undefined when there was none. */
  body?: unknown;
  idempotencyKey?: string;
  /** Id of the API key used (never the secret). */
  keyId?: string;
  /** Status sent, or the status computed but never delivered for `lost`; null when dropped before processing. */
  status: number | null;
  requestId: string;
  replayed: boolean;
  fault?: FaultTag;
  /** Error code of an error response. */
  errorCode?: string;
}

/** Later features (console node WebSocket) attach here; the first handler returning true owns the socket. */
export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => boolean;
