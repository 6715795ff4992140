import { describe, expect, it } from 'vitest';
import { labelledLine } from '../../src/console/display.js';

// The multi-server console's line (issue 31, item 3): the server's name first, in a colour of its
// own on a terminal; piped, plain text with the game's ANSI stripped.

describe('labelledLine', () => {
  it('colours each server\'s name differently when colour is on, and keeps the line\'s own colours', () => {
    const a = labelledLine('lobby-1', 0, '\x1b[32mDone\x1b[0m', true);
    const b = labelledLine('lobby-2', 1, 'hello', true);
    // The line ends with a reset (issue 37 item 5), so a game's colour stops at its line.
    expect(a).toBe('\x1b[36mlobby-1\x1b[39m | \x1b[32mDone\x1b[0m\x1b[0m');
    expect(b.slice(0, 5)).not.toBe(a.slice(0, 5));
    expect(b).toContain('lobby-2\x1b[39m | hello');
  });

  it('is plain text without colour, the names padded to one width outside the colour', () => {
    expect(labelledLine('lobby-1', 3, '\x1b[32mDone\x1b[0m', false)).toBe('lobby-1 | Done');
    expect(labelledLine('hub', 0, 'x', false, 7)).toBe('hub     | x');
    expect(labelledLine('hub', 0, 'x', true, 7)).toBe('\x1b[36mhub\x1b[39m     | x');
  });
});

// Issue #44: the labels of several servers line up by display width (a wide character is two columns).
describe('labelledLine width', () => {
  it('pads a wide name by its display width', () => {
    expect(labelledLine('日本', 0, 'x', false, 6)).toBe('日本   | x');
    expect(labelledLine('ab', 1, 'y', false, 6)).toBe('ab     | y');
  });
});

