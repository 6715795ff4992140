// Simulated delays. Every timer the sandbox arms goes through here so close() can clear them all
// (tests must leave nothing running) and so one option, timeScale, speeds everything up. With
// manual time (SandboxOptions.manualTime) simulated time moves only when a test calls advance(),
// so transitions happen at the same point of a run every time it is run.

interface ManualTimer {
  due: number;
  fn: () => void;
}

export class Clock {
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;
  /** Manual time: the simulated now and the timers waiting for it (undefined: real timers). */
  private readonly manual: { now: number; timers: Set<ManualTimer> } | undefined;
  constructor(readonly timeScale: number, manual = false) {
    this.manual = manual ? { now: 0, timers: new Set() } : undefined;
  }

  /** Manual time: moves simulated time on by `ms`, running every timer that falls due, in order. */
  advance(ms: number): void {
    const m = this.manual;
    if (!m) throw new Error('advance() needs a sandbox started with manualTime');
    const end = m.now + Math.max(0, ms);
    for (;;) {
      const next = [...m.timers].filter((t) => t.due <= end).sort((a, b) => a.due - b.due)[0];
      if (!next || this.closed) break;
      m.timers.delete(next);
      m.now = next.due;
      this.run(next.fn);
    }
    m.now = end;
  }

  private run(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      // A simulated transition must never take the process down.
      console.error('[sandbox] timer failed:', err);
    }
  }

  /** Runs fn after `ms` simulated milliseconds (scaled). Returns a cancel function. */
  after(ms: number, fn: () => void): () => void {
    if (this.closed) return () => {};
    const m = this.manual;
    if (m) {
      const timer = { due: m.now + Math.max(0, ms), fn };
      m.timers.add(timer);
      return () => void m.timers.delete(timer);
    }
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (this.closed) return;
      this.run(fn);
    }, Math.max(0, Math.round(ms * this.timeScale)));
    this.timers.add(t);
    return () => {
      clearTimeout(t);
      this.timers.delete(t);
    };
  }

  /** Real (unscaled) wait, still cleared on close; used for injected latency. */
  sleepReal(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.closed || ms <= 0) return resolve();
      const t = setTimeout(() => {
        this.timers.delete(t);
        resolve();
      }, ms);
      this.timers.add(t);
    });
  }

  get pending(): number {
    return this.timers.size + (this.manual?.timers.size ?? 0);
  }

  close(): void {
    this.closed = true;
    this.manual?.timers.clear();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}

/** `YYYY-MM-DDTHH:MM:SSZ` (01-general-contract.md, "Envelope rules" 3). */
export function isoSeconds(ms: number = Date.now()): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
