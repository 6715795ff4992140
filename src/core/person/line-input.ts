import { clearScreenDown, createInterface, cursorTo, moveCursor, type Interface } from 'node:readline';

// What the user types during `gsh console attach`, part of the person door (ask.ts). On a
// terminal: a readline prompt with history that steps aside while output is printed and comes
// back with the half-typed line intact (hide/show); its Ctrl-C is the console's own (detach).
// From a pipe: each line as it comes.

export interface InputHandlers {
  line(text: string): void;
  /** Ctrl-D on a terminal; the end of piped input. */
  end(): void;
  /** Ctrl-C on a terminal. */
  interrupt(): void;
}

export interface PromptLine {
  hide(): void;
  show(): void;
}

export class TerminalInput implements PromptLine {
  private readonly rl: Interface;
  private hidden = false;
  private closed = false;

  constructor(
    input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
    handlers: InputHandlers,
    prompt: string,
  ) {
    this.rl = createInterface({ input, output, terminal: true, prompt, historySize: 1000, removeHistoryDuplicates: true });
    this.rl.on('line', (text) => {
      handlers.line(text);
      this.rl.prompt();
    });
    this.rl.on('SIGINT', () => handlers.interrupt());
    this.rl.on('close', () => handlers.end());
    this.rl.prompt();
  }

  hide(): void {
    if (this.hidden || this.closed) return;
    this.hidden = true;
    const { rows } = this.rl.getCursorPos();
    if (rows > 0) moveCursor(this.output, 0, -rows);
    cursorTo(this.output, 0);
    clearScreenDown(this.output);
  }

  /**
   * After close() output still drains (the line --until matched is among it); drawing the prompt
   * then would resume the terminal's input and keep the process alive after the attach ended.
   */
  show(): void {
    if (!this.hidden || this.closed) return;
    this.hidden = false;
    this.rl.prompt(true);
  }

  close(): void {
    this.hide();
    this.closed = true;
    this.rl.removeAllListeners('close');
    this.rl.close();
  }
}

export class PipedInput {
  private readonly rl: Interface;

  constructor(input: NodeJS.ReadableStream, handlers: InputHandlers) {
    this.rl = createInterface({ input, terminal: false, crlfDelay: Infinity });
    this.rl.on('line', (text) => handlers.line(text));
    this.rl.on('close', () => handlers.end());
  }

  close(): void {
    this.rl.removeAllListeners('close');
    this.rl.close();
  }
}
