import type { Writer } from '../core/terminal/io.js';

// Batched output with backpressure: lines collected during one turn of the event loop are
// written with one write(), and when the stream's buffer is full the reader is paused until it
// drains. This is what lets a flood of 100,000 lines per second reach a pipe in bounded memory.

type Drainable = Writer & { once?(event: 'drain', fn: () => void): unknown };

export interface SinkHooks {
  /** Called around each write to a terminal, so a prompt line can step aside. */
  beforeWrite?: () => void;
  afterWrite?: () => void;
  /** The stream is full: stop reading. */
  full: () => void;
  /** The stream drained: read again. */
  drained: () => void;
}

export class LineSink {
  private pending: string[] = [];
  private scheduled = false;
  private waitingForDrain = false;
  private readonly idle: Array<() => void> = [];

  constructor(
    private readonly stream: Drainable,
    private readonly hooks: SinkHooks,
  ) {}

  /** `text` must end with a newline. */
  push(text: string): void {
    this.pending.push(text);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0) return this.settle();
    const text = this.pending.join('');
    this.pending = [];
    this.hooks.beforeWrite?.();
    const ok = this.stream.write(text);
    this.hooks.afterWrite?.();
    if (ok === false && this.stream.once && !this.waitingForDrain) {
      this.waitingForDrain = true;
      this.hooks.full();
      this.stream.once('drain', () => {
        this.waitingForDrain = false;
        this.hooks.drained();
        this.settle();
      });
      return;
    }
    this.settle();
  }

  /** Resolves once everything pushed so far has been handed to the stream and it has drained. */
  drain(): Promise<void> {
    this.flush();
    if (!this.waitingForDrain) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private settle(): void {
    if (this.waitingForDrain || this.pending.length > 0) return;
    for (const fn of this.idle.splice(0)) fn();
  }
}
