import { stripAnsi } from '../core/io.js';

/** A console line as printed: ANSI kept when colour is on, stripped otherwise. */
export function displayLine(line: string, color: boolean): string {
  return color || !line.includes('\x1b') ? line : stripAnsi(line);
}

export type ColorWhen = 'auto' | 'always' | 'never';

/** --color: `auto` follows the stream (TTY, NO_COLOR, FORCE_COLOR, --no-color). */
export function colorFor(when: ColorWhen, auto: boolean): boolean {
  return when === 'always' ? true : when === 'never' ? false : auto;
}
