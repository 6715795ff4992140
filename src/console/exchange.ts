import { Exit, GshError } from '../core/errors.js';
import type { Runtime } from '../core/run/runtime.js';
import type { Frame } from './protocol.js';
import { ConsoleSession } from './session.js';
import { sessionSource, type ConsoleTarget } from './target.js';

// One-shot socket exchanges (`console send --expect`, `history`, `stats`): a session without
// replay whose frames go to the caller, and a bounded wait for the answer.

/** An authenticated session; frames go to `onFrame`; closed by the caller. */
export async function openSession(rt: Runtime, t: ConsoleTarget, onFrame: (f: Frame) => void): Promise<ConsoleSession> {
  const session = new ConsoleSession({
    fetchSession: sessionSource(t),
    replay: false,
    onFrame,
    note: (m) => rt.note(m),
    warn: (m) => rt.warn(m),
  });
  await session.start();
  return session;
}

/** The error a session's unexpected end stands for. */
export function endedError(end: 'detached' | 'deleted'): GshError {
  return end === 'deleted' ? new GshError('the server was deleted', Exit.notFound) : new GshError('the console session ended', Exit.error);
}

/** Settles with what `body` hands to settle, or fails on timeout (exit 10) or the session's end. */
export function awaitAnswer<T>(session: ConsoleSession, ms: number, what: string, body: (settle: (v: T) => void) => void): Promise<T> {
  const p = new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new GshError(`${what} within ${ms / 1000}s`, Exit.timedOut)), ms);
    const settle = (v: T) => {
      clearTimeout(timer);
      resolve(v);
    };
    session.done.then(
      (end) => {
        clearTimeout(timer);
        reject(endedError(end));
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
    body(settle);
  });
  // The caller may fail before awaiting it (a refused POST); closing the session must not then
  // surface as an unhandled rejection.
  p.catch(() => {});
  return p;
}
