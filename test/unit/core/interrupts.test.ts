import { EventEmitter, getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/core/run/context.js';
import { InterruptedError } from '../../../src/core/errors.js';
import { Interrupts } from '../../../src/core/run/interrupts.js';

// Issue 37 item 3: stderr is gsh's own. A fleet or a tree upload that waits out the rate-limit
// window had every worker pause on the run's one abort signal, and Node printed
// "MaxListenersExceededWarning: Possible EventTarget memory leak" past 10 listeners. The run's
// signal takes any number of listeners at once; what would be a leak, a listener left behind,
// is checked here instead.

/** A clock whose pauses end only when released (or when their signal aborts), like the real one. */
function heldClock(): Clock & { release(): void; held: number } {
  const waiting = new Set<() => void>();
  return {
    now: () => 0,
    get held() {
      return waiting.size;
    },
    release() {
      for (const done of [...waiting]) done();
    },
    sleep: (_ms, signal) =>
      new Promise<void>((resolve) => {
        const done = () => {
          waiting.delete(done);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        waiting.add(done);
        signal?.addEventListener('abort', done, { once: true });
      }),
  };
}

const warnings: Error[] = [];
const onWarning = (w: Error) => warnings.push(w);
beforeEach(() => {
  warnings.length = 0;
  process.on('warning', onWarning);
});
afterEach(() => {
  process.off('warning', onWarning);
});
const tick = () => new Promise((r) => setImmediate(r));

describe('the run signal', () => {
  it('40 pauses at once (32 workers and more) print no Node warning, and leave no listener when they end', async () => {
    const clock = heldClock();
    const interrupts = new Interrupts({ signals: new EventEmitter(), clock });
    const pauses = Array.from({ length: 40 }, () => interrupts.sleep(60_000));
    await tick();
    expect(clock.held).toBe(40);
    // One listener on the shared signal per pause (the clock listens to a signal of its own).
    expect(getEventListeners(interrupts.signal, 'abort')).toHaveLength(40);
    clock.release();
    await Promise.all(pauses);
    await tick();
    expect(getEventListeners(interrupts.signal, 'abort')).toHaveLength(0);
    expect(warnings.map(String)).toEqual([]);
  });

  it('Ctrl-C ends every pause with InterruptedError, clears the clock\'s timers and leaves no listener', async () => {
    const clock = heldClock();
    const signals = new EventEmitter();
    const interrupts = new Interrupts({ signals, clock });
    const pauses = Array.from({ length: 12 }, () => interrupts.sleep(60_000).then(() => 'ended', (e: unknown) => e));
    await tick();
    signals.emit('SIGINT');
    const ended = await Promise.all(pauses);
    expect(ended.every((e) => e instanceof InterruptedError)).toBe(true);
    expect(clock.held).toBe(0);
    expect(getEventListeners(interrupts.signal, 'abort')).toHaveLength(0);
    expect(signals.listenerCount('SIGINT')).toBe(0);
    await tick();
    expect(warnings.map(String)).toEqual([]);
  });
});
