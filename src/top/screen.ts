import type { InStream, OutStream } from '../core/terminal/streams.js';
import { readKeys } from '../core/person/keys.js';

// The terminal of `gsh top`, taken and given back in this one place (ARCHITECTURE.md "Layers",
// `src/top/`): the alternate screen, a hidden cursor and raw input while the view
// runs; give() puts all three back and is safe to call on every exit path, more than once. gsh's
// own escape sequences are few (these and SGR colours, frame.ts), so they are written here rather
// than loaded from a library (README "gsh top": what draws the screen).

const ENTER_ALT = '\x1b[?1049h';
const LEAVE_ALT = '\x1b[?1049l';
const HIDE_CURSOR = '\x1b[?25l';
const SHOW_CURSOR = '\x1b[?25h';
const HOME = '\x1b[H';
const CLEAR_LINE_END = '\x1b[K';
const CLEAR_BELOW = '\x1b[J';

export interface ScreenHandlers {
  keys(chunk: string): void;
  resize(): void;
}

export class Screen {
  private taken = false;
  /** Gives the keys back (the person door, core/person/keys.ts). */
  private releaseKeys = () => {};
  private readonly onResize = () => this.handlers.resize();

  constructor(
    /** The unfiltered stdout (Streams.rawStdout): frames carry gsh's own escapes, service text already inert. */
    private readonly out: OutStream,
    private readonly input: InStream,
    private readonly handlers: ScreenHandlers,
  ) {}

  get width(): number {
    return this.out.columns || 80;
  }

  get height(): number {
    return (this.out as { rows?: number }).rows || 24;
  }

  take(): void {
    if (this.taken) return;
    this.taken = true;
    this.releaseKeys = readKeys(this.input, (chunk) => this.handlers.keys(chunk));
    this.out.on('resize', this.onResize);
    this.out.write(ENTER_ALT + HIDE_CURSOR);
  }

  /** One whole frame: each line cleared to its end, then everything below the last one. */
  draw(text: string): void {
    if (!this.taken) return;
    this.out.write(HOME + text.split('\n').join(`${CLEAR_LINE_END}\r\n`) + CLEAR_LINE_END + CLEAR_BELOW);
  }

  /** The terminal as it was: main screen, cursor shown, input cooked and no longer read. */
  give(): void {
    if (!this.taken) return;
    this.taken = false;
    this.out.off('resize', this.onResize);
    this.releaseKeys();
    this.out.write(SHOW_CURSOR + LEAVE_ALT);
  }
}
