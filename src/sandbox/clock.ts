// Simulated delays. Every timer the sandbox arms goes through here so close() can clear them all
// (tests must leave nothing running) and so one option, timeScale, speeds everything up.

export class Clock {
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;
  constructor(readonly timeScale: number) {}

  /** Runs fn after `ms` simulated milliseconds (scaled). Returns a cancel function. */
  after(ms: number, fn: () => void): () => void {
    if (this.closed) return () => {};
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (this.closed) return;
      try {
        fn();
      } catch (err) {
        // A simulated transition must never take the process down.
        console.error('[sandbox] timer failed:', err);
      }
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
    return this.timers.size;
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}

/** `YYYY-MM-DDTHH:MM:SSZ` (01-general-contract.md, "Envelope rules" 3). */
export function isoSeconds(ms: number = Date.now()): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
