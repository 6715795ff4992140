import type { OutStream } from './context.js';

// Text on a terminal (issue #28). Whoever controls text the service returns (a file name, a
// console line, a server name, an error message) must not control the terminal it is shown on: no
// clipboard writes (OSC 52), titles, links (OSC 8), DCS, cursor moves, screen clears, and no \r
// that overwrites the line before it. Two layers, both here:
//
// 1. terminalStream(): every write to a stdout or stderr that is a terminal passes through it
//    (core/io.ts wraps the streams once, so no caller can forget). It shows C0 controls (except tab
//    and newline), DEL, C1 and every escape sequence as visible text (`^[]52;…`, cat -v style). It
//    lets SGR (colour) sequences through only when colour is on for that stream: gsh's own colours
//    (core/io.ts `ansi`) are SGR, and so are a game's colours in `console attach`.
// 2. visible() / visibleDeep(): where service text is laid out among gsh's own colours (tables,
//    csv/tsv, --jq strings, error lines, notes, progress lines) it is made visible before it is
//    coloured, so even an SGR sequence from the service shows as text there.
//
// gsh's own drawing (spinners, progress lines, prompts) writes to the unfiltered streams
// (Streams.rawStdout/rawStderr) and passes any service text in it through visible() first; so does
// nothing else but `console attach --raw`, which asks for the bytes as they came.

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

/** Service text made inert for a terminal: every control character and escape sequence shown, none obeyed. */
export function visible(text: string): string {
  return text.replace(CONTROL, caret);
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
  const decoder = new TextDecoder();
  const clean = (chunk: unknown): unknown => {
    if (typeof chunk === 'string') return neutralise(chunk, keepSgr);
    if (chunk instanceof Uint8Array) return neutralise(decoder.decode(chunk, { stream: true }), keepSgr);
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
