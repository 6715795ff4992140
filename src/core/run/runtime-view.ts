import type { Context } from './context.js';
import type { Resolved } from '../auth/credentials.js';
import type { ApiClient } from '../wire/http.js';
import type { Streams } from '../terminal/io.js';
import type { Format, Output } from '../terminal/output.js';
import type { ServerReference } from '../plan.js';
import type { Asker } from '../person/ask.js';

// The runtime as the helpers it loads see it: prompts for a person who must act, waits, progress
// lines, the dry-run printout. They take this instead of `Runtime` (runtime.ts), which implements
// it, so that the runtime can load them without an import circle.

export interface RuntimeView extends Asker {
  readonly io: Streams;
  readonly env: Context['env'];
  readonly format: Format;
  /** --timeout: the limit on waiting. */
  readonly waitLimitMs: number;
  /** One target: spinners and per-run notes may use stderr (a fleet draws its own progress instead). */
  readonly singleTarget: boolean;
  /** Prompts are allowed: a terminal on both ends and no --no-input. */
  readonly interactive: boolean;
  /** Where the credential came from (after client()). */
  readonly auth: Resolved | undefined;
  readonly out: Output;
  /** What each server reference turned out to be while planning (the plan shows it). */
  readonly references: readonly ServerReference[];
  /** The command line as typed (a resume line repeats it with the Idempotency-Key). */
  readonly argv: readonly string[];
  now(): number;
  /** A pause that Ctrl-C / SIGTERM ends at once; `wake` ends it early, its timer cleared. */
  sleep(ms: number, wake?: AbortSignal): Promise<void>;
  note(message: string): void;
  warn(message: string): void;
  client(opts?: { anonymous?: boolean }): Promise<ApiClient>;
}
