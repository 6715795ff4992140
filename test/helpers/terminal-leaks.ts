// What a terminal may get from gsh (issue #44; src/ARCHITECTURE.md "Doors", "Sandbox": hostile
// mode): its own SGR colours, and the cursor and erase sequences of its spinners and progress
// lines. leaks() names everything else, for tests that run gsh against a hostile sandbox.

/** SGR parameters gsh itself writes: reset, bold, dim, underline (init lint's file names), reverse (top's cursor row), normal intensity, no reverse, its foreground colours, default colour. */
const GSH_SGR = new Set(['', '0', '1', '2', '4', '7', '22', '24', '27', '31', '32', '33', '34', '35', '36', '39', '90', '91', '92', '93', '94', '95', '96', '97']);
// eslint-disable-next-line no-control-regex
const SEQUENCE = /\x1b\[([0-9;:?]*)([ -/]*)([@-~])|\x1b[\s\S]?|[\x80-\x9f]|[\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]|\r(?!\n|\x1b\[)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g;

/**
 * What in `text` is not gsh's own: an escape sequence other than gsh's SGR colours and its
 * cursor and erase sequences (`\x1b[K`, `\x1b[2K`, `\x1b[<n>G`, `\x1b[?25l/h`), a C1 or other
 * control character, a bare CR not starting a redraw, a bidi or zero-width character. With
 * `gameColours` (`console attach`, which shows a game's colours by design) an SGR of the
 * service's passes when a full reset follows it.
 */
export function leaks(text: string, gameColours = false): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(SEQUENCE)) {
    const [all, params, inter, final] = m;
    if (final !== undefined) {
      const ok =
        (final === 'm' && inter === '' && (params ?? '').split(';').every((p) => GSH_SGR.has(p))) ||
        (final === 'm' && gameColours && text.indexOf('\x1b[0m', (m.index ?? 0) + all.length) >= 0) ||
        (final === 'K' && /^[02]?$/.test(params ?? '')) ||
        (final === 'G' && /^\d*$/.test(params ?? '')) ||
        ((final === 'l' || final === 'h') && params === '?25');
      if (ok) continue;
    }
    found.push(JSON.stringify(text.slice(Math.max(0, (m.index ?? 0) - 20), (m.index ?? 0) + all.length + 10)));
  }
  return found;
}

