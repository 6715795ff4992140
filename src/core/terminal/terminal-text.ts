import { eastAsianWidth } from 'get-east-asian-width';
import type { OutStream } from './streams.js';

// Text on a terminal (issue #28). Whoever controls text the service returns (a file name, a
// console line, a server name, an error message) must not control the terminal it is shown on: no
// clipboard writes (OSC 52), titles, links (OSC 8), DCS, cursor moves, screen clears, and no \r
// that overwrites the line before it. Two layers, both here:
//
// 1. terminalStream(): every write to a stdout or stderr that is a terminal passes through it
//    (core/terminal/io.ts wraps the streams once, so no caller can forget). It shows C0 controls (except tab
//    and newline), DEL, C1 and every escape sequence as visible text (`^[]52;…`, cat -v style). It
//    lets SGR (colour) sequences through only when colour is on for that stream: gsh's own colours
//    (core/terminal/io.ts `ansi`) are SGR, and so are a game's colours in `console attach`.
// 2. visible() / visibleDeep(): where service text is laid out among gsh's own colours (tables,
//    csv/tsv, --jq strings, error lines, notes, progress lines) it is made visible before it is
//    coloured, so even an SGR sequence from the service shows as text there.
//
// gsh's own drawing (spinners, progress lines, prompts) writes to the unfiltered streams
// (Streams.rawStdout/rawStderr) and passes any service text in it through visible() first; so does
// nothing else but `console attach --raw`, which asks for the bytes as they came.
//
// The terminal door (issue #44; ARCHITECTURE.md "Doors"). Types say which text is which:
// `ServiceText` is what the service chose (names, states, URLs, console lines, events, error
// messages: `fromService()` marks it where it is read), `SafeText` is what may be shown. The only
// ways from the one to the other are the sanitiser here: visible(), fitWidth() (width-aware
// truncation) and term`…` (gsh's own literal text, whose holes take only SafeText and numbers).
// The functions that draw on a terminal without the stream's filter (spinners, progress lines,
// resets: door(stream).write) accept SafeText only, and test/unit/terminal-door.test.ts fails when
// a module other than this one and core/terminal/io.ts writes to a raw terminal stream.

// C0 except tab and newline, DEL, C1; a \r directly before \n (csv's line ends) moves nothing.
// Then the invisible format characters that change how text reads without showing themselves:
// bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069, and the marks U+200E,
// U+200F, U+061C), which can make `evil\u202Etxt.exe` display as `evilexe.txt`, and zero-width
// characters (U+200B–U+200D, U+2060–U+2064, U+FEFF, U+180E), which make two names look alike.
const INVISIBLE = '\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff';
// eslint-disable-next-line no-control-regex
const CONTROL = new RegExp(`\\r\\n|[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f${INVISIBLE}]`, 'g');
// eslint-disable-next-line no-control-regex
const SGR_OR_CONTROL = new RegExp(`\\x1b\\[[0-9;:]{0,64}m|\\r\\n|[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f${INVISIBLE}]`, 'g');

/**
 * A control character as cat -v shows it: ESC is `^[`, DEL `^?`, C1 0x9b `M-^[`; an invisible
 * format character by its code point, `<U+202E>`.
 */
function caret(c: string): string {
  if (c === '\r\n') return c;
  const code = c.charCodeAt(0);
  if (code > 0x9f) return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
  if (code === 0x7f) return '^?';
  if (code >= 0x80) return `M-^${String.fromCharCode(code - 0x40)}`;
  return `^${String.fromCharCode(code + 0x40)}`;
}

declare const serviceBrand: unique symbol;
declare const safeBrand: unique symbol;
/** Text the service chose: never written to a terminal as it is (visible(), fitWidth() make it SafeText). */
export type ServiceText = string & { readonly [serviceBrand]: true };
/** Text fit for a terminal: gsh's own (term`…`), or service text after the sanitiser. */
export type SafeText = string & { readonly [safeBrand]: true };

/** Marks text as the service's, where it is read from an answer, an event or a console line. */
export function fromService(text: string): ServiceText {
  return text as ServiceText;
}

/** Service text made inert for a terminal: every control character and escape sequence shown, none obeyed. */
export function visible(text: string): SafeText {
  return text.replace(CONTROL, caret) as SafeText;
}

/**
 * gsh's own text with display-safe pieces: `term\`  Approve at: ${visible(url)}\n\``. The literal
 * parts are gsh's code; a hole takes only SafeText or a number, so service text cannot be spliced
 * in unsanitised.
 */
export function term(strings: TemplateStringsArray, ...values: readonly (SafeText | number)[]): SafeText {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += `${values[i]}${strings[i + 1] ?? ''}`;
  return out as SafeText;
}

/** SGR 0: every colour and attribute off. */
export const RESET = '\x1b[0m' as SafeText;

/** Safe text in one SGR colour (`'33'`, `'1'`), followed by a full reset when colour is on. */
export function coloured(text: SafeText, sgr: string, on: boolean): SafeText {
  return (on ? `\x1b[${sgr}m${text}${RESET}` : text) as SafeText;
}

// Width: what a terminal gives a grapheme (a user-perceived character: a base with its combining
// marks, an emoji ZWJ sequence, a flag), not a code point. Graphemes come from Intl.Segmenter;
// each is as wide as its first code point by Unicode's East Asian Width (get-east-asian-width:
// wide and fullwidth are 2, ambiguous 1 as terminals outside CJK locales draw it), an emoji shown
// as emoji is 2, and marks, format characters and controls are 0. Not string-width, which does
// the same: this module is loaded by every command, and string-width's import and first call
// (its RGI_Emoji pattern) took 84 ms and 75 ms here, against 20 ms for get-east-asian-width.
let segmenter: Intl.Segmenter | undefined;
const graphemes = (text: string): Iterable<string> => {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return [...segmenter.segment(text)].map((s) => s.segment);
};
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}\p{Cc}]/u;
const EMOJI = /^\p{Extended_Pictographic}/u;
const ASCII_PRINTABLE = /^[\x20-\x7e]*$/;

function graphemeWidth(g: string): number {
  const cp = g.codePointAt(0) ?? 0;
  if (cp < 0x7f && g.length === 1) return cp >= 0x20 ? 1 : 0;
  if (EMOJI.test(g) && (g.includes('\ufe0f') || /\p{Emoji_Presentation}/u.test(g))) return 2;
  // Regional-indicator pairs (flags) are one grapheme drawn two cells wide.
  if (cp >= 0x1f1e6 && cp <= 0x1f1ff) return 2;
  // Otherwise as a terminal counts (wcwidth): each code point by its East Asian Width, marks that
  // do not space (Mn, Me), format and control characters none; so a spacing mark (Devanagari's
  // vowel signs) or a halfwidth voiced sound mark takes its own cell, and a line never overflows.
  let n = 0;
  for (const c of g) n += ZERO_WIDTH.test(c) ? 0 : eastAsianWidth(c.codePointAt(0) ?? 0);
  return n;
}

/** Columns text takes on a terminal (SGR sequences take none); counts graphemes, wide ones as 2. */
export function displayWidth(text: string): number {
  // eslint-disable-next-line no-control-regex
  const plain = text.includes('\x1b') ? text.replace(/\x1b\[[0-9;:]*m/g, '') : text;
  if (ASCII_PRINTABLE.test(plain)) return plain.length;
  let n = 0;
  for (const g of graphemes(plain)) n += graphemeWidth(g);
  return n;
}

/**
 * Service text made safe for one line of a layout (a table cell, a key/value row, a label):
 * visible(), and the newline and tab it keeps are shown too (`^J`, `^I`), so a name cannot end a
 * row early, forge the next one or push the columns after it out of place.
 */
export function oneLine(text: string): SafeText {
  const shown = visible(text);
  return (/[\n\t]/.test(shown) ? shown.replace(/\r\n|[\n\t]/g, (c) => (c === '\t' ? '^I' : c === '\n' ? '^J' : '^M^J')) : shown) as SafeText;
}

/**
 * Service text inside one line of a log (a note, a warning, on a terminal or not): its line
 * breaks shown as `^J` and `^M`, so it cannot start a line of its own (logStream()).
 */
export function inLine(text: string): string {
  return /[\r\n]/.test(text) ? text.replace(/\r\n|\r|\n/g, (c) => (c === '\n' ? '^J' : c === '\r' ? '^M' : '^M^J')) : text;
}

/**
 * Service text made safe for one line (oneLine()) and cut to at most `cols` columns: never inside a grapheme, a wide
 * character counted as 2, `…` where it was cut. Safe text passes through visible() unchanged, so
 * gsh's own text may be fitted too (without colours: fit first, colour after).
 */
export function fitWidth(text: string, cols: number, ellipsis = '…'): SafeText {
  const shown = oneLine(text);
  if (displayWidth(shown) <= cols) return shown;
  if (cols <= 0) return '' as SafeText;
  const room = cols - displayWidth(ellipsis);
  if (room < 0) return fitWidth(ellipsis, cols, '');
  let out = '';
  let used = 0;
  for (const g of graphemes(shown)) {
    const w = graphemeWidth(g);
    if (used + w > room) break;
    out += g;
    used += w;
  }
  return `${out}${ellipsis}` as SafeText;
}

/** Safe text padded with spaces to `cols` columns (at the end, or at the start when `right`). */
export function padWidth(text: SafeText, cols: number, right = false): SafeText {
  const pad = ' '.repeat(Math.max(0, cols - displayWidth(text)));
  return (right ? `${pad}${text}` : `${text}${pad}`) as SafeText;
}

/** What gsh's own drawing writes through: a raw terminal stream that takes SafeText only. */
export interface TerminalDoor {
  write(text: SafeText): void;
}

/**
 * The door to a stream without the terminal filter (Streams.rawStdout/rawStderr): spinners,
 * progress lines, cursor moves and resets are gsh's own sequences, so they must not be shown as
 * text; the type lets only SafeText through, so any service text in them was sanitised first.
 */
export function door(stream: OutStream): TerminalDoor {
  return { write: (text: SafeText) => void stream.write(text) };
}

/** visible() on every string (and object key) in a JSON-like value. */
export function visibleDeep(value: unknown): unknown {
  if (typeof value === 'string') return visible(value);
  if (Array.isArray(value)) return value.map(visibleDeep);
  if (value !== null && typeof value === 'object' && !Buffer.isBuffer(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [visible(k), visibleDeep(v)]));
  }
  return value;
}

/** visible() when the text goes to a terminal; data on a pipe stays as it came. */
export function forTerminal(text: string, isTTY: boolean): string {
  return isTTY ? visible(text) : text;
}

/** What the terminal write path lets through: SGR kept when colour is on, everything else shown. */
export function neutralise(text: string, keepSgr: boolean): string {
  return text.replace(SGR_OR_CONTROL, (m) => (m.length > 1 && m !== '\r\n' ? (keepSgr ? m : visible(m)) : caret(m)));
}

/**
 * The stream as a terminal should get it: every write neutralised (bytes decoded as UTF-8, a
 * sequence split over two writes staying split). Everything else (isTTY, columns, drain, end) is
 * the stream's own.
 */
export function terminalStream<T extends OutStream>(stream: T, keepSgr: boolean): T {
  return filtered(stream, (text) => neutralise(text, keepSgr));
}

/**
 * A log's lines (issue 51): stderr is read by people and by CI runners, and a runner takes a line
 * that starts with `::` (GitHub's workflow commands, `##[` in their older form; blanks before
 * them do not count) as an instruction, and starts a line at a bare CR as at LF. gsh writes no
 * such line of its own to stderr (its annotations go to stdout: `init lint --format github`), so
 * every write to stderr, a terminal or not, passes here: a line that would start so gets a
 * backslash first (`\::error`), and a bare CR is shown as `^M`. Service or file text holding
 * `\n::error file=…` then starts no command in a CI log, whatever message carries it.
 */
export function logStream<T extends OutStream>(stream: T, inner: (text: string) => string = (text) => text): T {
  const lines = logLines();
  return filtered(stream, (text) => lines(inner(text)));
}

/** The rule of logStream() over successive writes: whether the next one starts a line is kept between them. */
export function logLines(): (text: string) => string {
  let atStart = true;
  return (text) => {
    // Most writes hold no CR and no line that starts with `:` or `#`: passed as they are.
    if (!text.includes('\r') && !(atStart ? /^[ \t]*[:#]|\n[ \t]*[:#]/ : /\n[ \t]*[:#]/).test(text)) {
      atStart = /\n[ \t]*$/.test(text) || (atStart && /^[ \t]*$/.test(text));
      return text;
    }
    let out = '';
    for (let i = 0; i < text.length; i++) {
      const c = text[i] as string;
      if (c === '\n') {
        atStart = true;
      } else if (c === '\r') {
        if (text[i + 1] !== '\n') {
          out += '^M';
          atStart = false;
          continue;
        }
      } else if (atStart && c !== ' ' && c !== '\t') {
        atStart = false;
        // A prefix cut by the end of this write counts: the next write may complete it.
        const head = text.slice(i, i + 3);
        if ((c === ':' && (head.length === 1 || head[1] === ':')) || (c === '#' && '##['.startsWith(head))) out += '\\';
      }
      out += c;
    }
    return out;
  };
}

/** A stream whose every write (and end) passes `clean` first, bytes decoded as UTF-8 across writes. */
function filtered<T extends OutStream>(stream: T, cleanText: (text: string) => string): T {
  const decoder = new TextDecoder();
  const clean = (chunk: unknown): unknown => {
    if (typeof chunk === 'string') return cleanText(chunk);
    if (chunk instanceof Uint8Array) return cleanText(decoder.decode(chunk, { stream: true }));
    return chunk;
  };
  const write = (chunk: unknown, ...rest: unknown[]) => (stream.write as (...a: unknown[]) => boolean)(clean(chunk), ...rest);
  const end = (chunk?: unknown, ...rest: unknown[]) =>
    typeof chunk === 'function' || chunk === undefined ? (stream.end as (...a: unknown[]) => T)(chunk, ...rest) : (stream.end as (...a: unknown[]) => T)(clean(chunk), ...rest);
  return new Proxy(stream, {
    get(target, prop) {
      if (prop === 'write') return write;
      if (prop === 'end') return end;
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
