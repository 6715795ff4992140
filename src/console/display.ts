import { stripAnsi } from '../core/io.js';
import { visible } from '../core/terminal-text.js';

/** A console line as printed: ANSI kept when colour is on, stripped otherwise. */
export function displayLine(line: string, color: boolean): string {
  return color || !line.includes('\x1b') ? line : stripAnsi(line);
}

/** Foreground colours told apart on dark and light terminals (red is left to the game's errors). */
const PALETTE = [36, 35, 33, 32, 34, 96, 95, 93, 92, 94];

/**
 * A console line of one of several servers (`console attach` on many): the server's name first,
 * in its own colour when colour is on, then the line as displayLine prints it.
 */
export function labelledLine(name: string, index: number, line: string, color: boolean, width = 0, raw = false): string {
  // The name is service text beside gsh's own colour: shown inert, so it cannot colour or move anything.
  const shown = visible(name);
  const label = color ? `\x1b[${PALETTE[index % PALETTE.length]}m${shown}\x1b[39m` : shown;
  return `${label}${' '.repeat(Math.max(0, width - name.length))} | ${raw ? line : displayLine(line, color)}`;
}
