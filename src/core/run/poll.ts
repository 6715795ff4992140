import { Exit, GshError } from '../errors.js';
import type { RuntimeView } from './runtime-view.js';
import { visible } from '../terminal/terminal-text.js';

// The poll loop every wait shares (ARCHITECTURE.md "Requests": 202 work): read, show the progress
// on a terminal's spinner, stop when done, pause longer each time, give up at --timeout (exit 10)
// or, when the first record shows no field gsh reads, at once (exit 12). Waits on jobs, servers
// and backups (wait.ts) and on a person (person-must-act.ts) poll through it.

export interface Progress {
  update(text: string): void;
  stop(): void;
}

export async function progressFor(rt: RuntimeView, text: string): Promise<Progress> {
  // A terminal of unknown width (a bare pty) would make ora redraw without end.
  const stream = rt.io.rawStderr;
  // ora draws with the cursor methods of a real terminal stream (a test's stand-in has none).
  const drawable = typeof (stream as Partial<NodeJS.WriteStream>).cursorTo === 'function';
  if (!rt.singleTarget || !rt.io.stderrTTY || !drawable || rt.format !== 'table' || !((stream.columns ?? 0) > 0)) return { update() {}, stop() {} };
  const { default: ora } = await import('ora');
  // The spinner's colour follows the run's decision (core/terminal/io.ts), not chalk's own reading of the
  // environment; discardStdin would put stdin in flowing mode and keep the process alive after the wait.
  const spinner = ora({ text: visible(text), stream: stream as NodeJS.WriteStream, color: rt.io.colorErr ? 'cyan' : false, isEnabled: true, discardStdin: false }).start();
  return { update: (t) => (spinner.text = visible(t)), stop: () => spinner.stop() };
}

/**
 * Pauses between polls: 1 s, then half as long again each time, to POLL_CAP_MS (1, 1.5, 2.25,
 * 3.4, 5, 5 … s). The cap bounds how late a wait that only polls learns of the end: 5 s at most,
 * at 12 reads a minute, a fifth of the default key's 60 (issue 50: 10 s left a restart unseen for
 * up to that long). A single server's state wait also hears the console socket (core/fleet/wait.ts).
 */
export const POLL_FIRST_MS = 1000;
export const POLL_CAP_MS = 5000;
export function pollDelay(polls: number): number {
  return Math.min(POLL_CAP_MS, Math.round(POLL_FIRST_MS * 1.5 ** polls));
}

export interface PollOptions {
  intervalMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/** What a wait reads in the record it follows, to say so when the record has none of it. */
export interface Readable<T> {
  /** True when the value carries a field the wait reads. */
  test: (value: T) => boolean;
  /** The fields the wait reads, for the message (`status, state or completed_at`). */
  fields: string;
  /** The request that shows the record, for checking by hand (`gsh api PATH`). */
  path: string;
}

/** The record shows nothing gsh can follow (exit 12): what it holds, and how to look by hand. */
export function cannotTell(what: string, value: unknown, readable: Pick<Readable<unknown>, 'fields' | 'path'>): GshError {
  const held = value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : [];
  const holds = held.length ? `its record holds ${held.join(', ')}` : `its record is ${JSON.stringify(value ?? null)}`;
  return new GshError(
    `cannot tell when ${what} ends: ${holds}, and none of ${readable.fields}, which gsh reads`,
    Exit.cannotTell,
    `The work may still be under way; check by hand: gsh api ${readable.path}`,
  );
}

/** Polls `fetch` until `done` says so, or the runtime's --timeout passes (exit 10). */
export async function pollUntil<T>(
  rt: RuntimeView,
  what: string,
  fetch: () => Promise<T>,
  done: (value: T) => boolean,
  describe: (value: T) => string,
  opts: PollOptions & { readable?: Readable<T> } = {},
): Promise<T> {
  const sleep = opts.sleep ?? ((ms: number) => rt.sleep(ms));
  const deadline = rt.now() + rt.waitLimitMs;
  const progress = await progressFor(rt, what);
  let polls = 0;
  try {
    for (let first = true; ; first = false) {
      const value = await fetch();
      if (first && opts.readable && !opts.readable.test(value)) throw cannotTell(what, value, opts.readable);
      progress.update(`${what}: ${describe(value)}`);
      if (done(value)) return value;
      if (rt.now() >= deadline) {
        throw new GshError(`timed out waiting for ${what} (last: ${describe(value)})`, Exit.timedOut, 'Raise --timeout, or check again later.');
      }
      await sleep(Math.min(opts.intervalMs ?? pollDelay(polls++), Math.max(0, deadline - rt.now())));
    }
  } finally {
    progress.stop();
  }
}
