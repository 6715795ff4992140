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

describe('woken pauses and time to spare (issue 50)', () => {
  it('a wake signal ends a pause at once, quietly: its timer cleared, no listener left', async () => {
    const clock = heldClock();
    const interrupts = new Interrupts({ signals: new EventEmitter(), clock });
    const wake = new AbortController();
    const pause = interrupts.sleep(60_000, wake.signal);
    await tick();
    expect(clock.held).toBe(1);
    wake.abort();
    await pause;
    // The clock's pause ended too: nothing of it keeps a real process alive.
    expect(clock.held).toBe(0);
    expect(getEventListeners(interrupts.signal, 'abort')).toHaveLength(0);
    expect(getEventListeners(wake.signal, 'abort')).toHaveLength(0);
  });

  it('the first pause of 250 ms or more tells the launcher once (IDLE_EVENT), so it writes its code caches then and not at exit', async () => {
    const { IDLE_EVENT } = await import('../../../src/core/v8-flags.js');
    let told = 0;
    const on = () => void told++;
    process.on(IDLE_EVENT, on);
    try {
      const clock = heldClock();
      const interrupts = new Interrupts({ signals: new EventEmitter(), clock });
      const short = interrupts.sleep(100);
      await tick();
      expect(told).toBe(0);
      const pauses = [interrupts.sleep(250), interrupts.sleep(5000)];
      await tick();
      expect(told).toBe(1);
      clock.release();
      await Promise.all([short, ...pauses]);
    } finally {
      process.off(IDLE_EVENT, on);
    }
  });
});
