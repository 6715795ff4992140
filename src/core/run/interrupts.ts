import { setMaxListeners } from 'node:events';
import type { Context, SignalName, Signals } from './context.js';
import { InterruptedError } from '../errors.js';
import { abortablePause } from '../sleep.js';
import { IDLE_EVENT } from '../v8-flags.js';

/** A pause at least this long (a wait's step, a backoff) lets the launcher write its code caches during it. */
const IDLE_PAUSE_MS = 250;

// Ctrl-C and SIGTERM during a run: requests and pauses under way fail at once with an
// InterruptedError (exit 130 / 143) that still says what a mutation did, so the run ends within
// moments with its output whole.

/**
 * The run's one listener per signal on the process (issue 43 item 6): everything in a run that
 * listens for Ctrl-C or SIGTERM (the interrupts below, a fleet, a countdown, each server's wait
 * or console) subscribes here, and the hub holds a single listener on the context's signals for
 * each signal name while anyone listens. A fleet of any size thus adds one SIGINT listener to the
 * process, never one per server or per pause, so Node's "11 SIGINT listeners" warning cannot come.
 */
export class SignalHub implements Signals {
  private readonly listeners = new Map<SignalName, Set<() => void>>();
  private readonly attached = new Map<SignalName, () => void>();

  constructor(private readonly inner: Signals) {}

  on(signal: SignalName, listener: () => void): this {
    let set = this.listeners.get(signal);
    if (!set) this.listeners.set(signal, (set = new Set()));
    set.add(listener);
    if (!this.attached.has(signal)) {
      // Each listener of the moment hears it once, in the order they came (as an EventEmitter's).
      const dispatch = () => {
        for (const l of [...(this.listeners.get(signal) ?? [])]) l();
      };
      this.attached.set(signal, dispatch);
      this.inner.on(signal, dispatch);
    }
    return this;
  }

  off(signal: SignalName, listener: () => void): this {
    const set = this.listeners.get(signal);
    set?.delete(listener);
    const dispatch = this.attached.get(signal);
    if (dispatch && !set?.size) {
      this.attached.delete(signal);
      this.inner.off(signal, dispatch);
    }
    return this;
  }

  /**
   * `signal` as if the process had received it: Ctrl-C pressed at a question (the person door,
   * core/person/ask.ts) reaches the terminal in raw mode as a key, not as a signal, and must do
   * what the signal does.
   */
  raise(signal: SignalName): void {
    for (const l of [...(this.listeners.get(signal) ?? [])]) l();
  }

  /** How many listen for `signal` (tests). */
  listenerCount(signal: SignalName): number {
    return this.listeners.get(signal)?.size ?? 0;
  }
}

export class Interrupts {
  private readonly controller = new AbortController();
  /** Requests and pauses under way; the signal listeners are on only while there are some. */
  private underWay = 0;
  private stopListening: (() => void) | undefined;
  /** The launcher was told of time to spare (once a run). */
  private idleSaid = false;

  constructor(private readonly ctx: Pick<Context, 'signals' | 'clock'>) {
    // One signal for the whole run: every request and pause under way listens to it, up to
    // --parallel workers (times a tree's files) at once, so Node's count of 10 listeners is no
    // sign of a leak here. Each listener is removed when its work ends (untilAborted,
    // abortablePause; test/unit/core/interrupts.test.ts checks that none is left after a run).
    setMaxListeners(0, this.controller.signal);
  }

  /** Aborted by Ctrl-C / SIGTERM while a request or a pause is under way (see interruptible). */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Cancels every request and pause under way and any started later (a fleet's Ctrl-C between requests). */
  cancelAll(signal: 'SIGINT' | 'SIGTERM'): void {
    this.controller.abort(new InterruptedError(signal, true));
  }

  /** A pause of the run's clock that Ctrl-C / SIGTERM ends at once (throwing InterruptedError); `wake` ends it early, quietly. */
  sleep(ms: number, wake?: AbortSignal): Promise<void> {
    const signal = this.signal;
    // Time to spare: the launcher writes its code caches now rather than at exit (core/v8-flags.ts).
    if (ms >= IDLE_PAUSE_MS && !this.idleSaid) {
      this.idleSaid = true;
      (process as NodeJS.EventEmitter).emit(IDLE_EVENT);
    }
    return this.interruptible(() => abortablePause((n, own) => this.ctx.clock.sleep(n, own), ms, signal, wake));
  }

  /**
   * Runs a request or a pause so that Ctrl-C and SIGTERM cancel it. The listeners are on only
   * while something is under way: a command with its own handling (console attach) sees only
   * its own between requests.
   */
  interruptible<T>(work: () => Promise<T>): Promise<T> {
    if (this.underWay++ === 0) {
      const handlers = (['SIGINT', 'SIGTERM'] as const).map((name) => {
        const on = () => this.cancelAll(name);
        this.ctx.signals.on(name, on);
        return [name, on] as const;
      });
      this.stopListening = () => {
        for (const [name, on] of handlers) this.ctx.signals.off(name, on);
      };
    }
    return work().finally(() => {
      if (--this.underWay === 0) this.stopListening?.();
    });
  }
}
