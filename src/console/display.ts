import { stripAnsi } from '../core/terminal/io.js';
import { displayWidth, RESET as SGR_RESET, type SafeText, term, visible } from '../core/terminal/terminal-text.js';

/** SGR 0: every colour and attribute off. */
export const RESET = SGR_RESET;

/**
 * A console line as printed: ANSI kept when colour is on, stripped otherwise. A kept line ends
 * with a reset, so a game's colour, or its conceal (SGR 8), stops at its line and never hides the
 * lines after it or the shell prompt.
 */
export function displayLine(line: string, color: boolean): string {
  if (!line.includes('\x1b')) return line;
  return color ? `${line}${RESET}` : stripAnsi(line);
}

/**
 * What `console attach` writes to a terminal when it ends after passing escape sequences on (a
 * game's colours, `--raw` lines): a reset, so the shell prompt comes back as the user left it.
 */
export function resetOnExit(stdoutTTY: boolean, escapesShown: boolean): SafeText {
  return stdoutTTY && escapesShown ? RESET : term``;
}

/** Foreground colours told apart on dark and light terminals (red is left to the game's errors). */
const PALETTE = [36, 35, 33, 32, 34, 96, 95, 93, 92, 94];

/**
 * A console line of one of several servers (`console attach` on many): the server's name first,
 * in its own colour when colour is on, padded to `width` columns (display width: a wide character
 * takes two), then the line as displayLine prints it.
 */
export function labelledLine(name: string, index: number, line: string, color: boolean, width = 0, raw = false): string {
  // The name is service text beside gsh's own colour: shown inert, so it cannot colour or move anything.
  const shown = visible(name);
  const label = color ? `\x1b[${PALETTE[index % PALETTE.length]}m${shown}\x1b[39m` : shown;
  return `${label}${' '.repeat(Math.max(0, width - displayWidth(shown)))} | ${raw ? line : displayLine(line, color)}`;
}
