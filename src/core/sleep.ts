/** The default pause between retries and polls; callers take a replacement for tests. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** `pause`, ended early by `signal` (Ctrl-C / SIGTERM): then the signal's reason is thrown. */
export function untilAborted<T>(pause: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return pause;
  if (signal.aborted) {
    // The pause is left to end by itself: its own ending (the same interrupt) is not an error of anyone's.
    pause.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(signal.reason);
    signal.addEventListener('abort', stop, { once: true });
    pause.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
  });
}

/**
 * A pause of `clock`'s sleep that `signal` ends at once (its reason is thrown). The shared signal
 * gets one listener, removed when the pause ends; the clock gets a signal of its own, so its
 * timer is cleared on an abort without a second listener on the shared one. `wake` ends the
 * pause early without an error, its timer cleared too: a wait woken by an event leaves no timer
 * that would hold the process open after it ended (issue 50: `--ready` exited up to 0.25 s late).
 */
export function abortablePause(sleep: (ms: number, signal?: AbortSignal) => Promise<void>, ms: number, signal: AbortSignal, wake?: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  if (wake?.aborted) return Promise.resolve();
  const own = new AbortController();
  return new Promise<void>((resolve, reject) => {
    const done = () => {
      signal.removeEventListener('abort', stop);
      wake?.removeEventListener('abort', woken);
    };
    const stop = () => {
      done();
      own.abort();
      reject(signal.reason);
    };
    const woken = () => {
      done();
      own.abort();
      resolve();
    };
    signal.addEventListener('abort', stop, { once: true });
    wake?.addEventListener('abort', woken, { once: true });
    sleep(ms, own.signal).then(resolve, reject).finally(done);
  });
}
