import { stripAnsi } from '../core/io.js';

/** A console line as printed: ANSI kept when colour is on, stripped otherwise. */
export function displayLine(line: string, color: boolean): string {
  return color || !line.includes('\x1b') ? line : stripAnsi(line);
}
