import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { coloured, displayWidth, door, fitWidth, inLine, logLines, logStream, neutralise, padWidth, term, terminalStream, visible, visibleDeep, type SafeText } from '../../../src/core/terminal/terminal-text.js';

// core/terminal/terminal-text.ts (issue #28): control characters and escape sequences shown as text
// (cat -v notation), never obeyed; SGR kept only where colour is on.

describe('visible', () => {
  it('shows C0 (but tab and newline), DEL and C1 in cat -v notation; a \\r before \\n stays', () => {
    expect(visible('a\x1b]52;c;AA\x07b')).toBe('a^[]52;c;AA^Gb');
    expect(visible('x\ry')).toBe('x^My');
    expect(visible('line\r\nnext\tcol')).toBe('line\r\nnext\tcol');
    expect(visible('\x00\x7f\u0080\u009b2J\u009f')).toBe('^@^?M-^@M-^[2JM-^_');
    expect(visible('\x1b[31mred\x1b[0m')).toBe('^[[31mred^[[0m');
    expect(visible('café ☕ 日本')).toBe('café ☕ 日本');
  });

  it('visibleDeep reaches every string and key', () => {
    expect(visibleDeep({ 'k\x1b': ['\x07', { n: 1, s: '\r' }], b: true, z: null })).toEqual({ 'k^[': ['^G', { n: 1, s: '^M' }], b: true, z: null });
  });
});

describe('the terminal write path', () => {
  it('keeps SGR only when colour is on; everything else is shown', () => {
    const text = '\x1b[1mID\x1b[22m \x1b[38;2;1;2;3mrgb\x1b[0m \x1b[2J \x1b]0;t\x07 \x1bP+q\x1b\\';
    expect(neutralise(text, true)).toBe('\x1b[1mID\x1b[22m \x1b[38;2;1;2;3mrgb\x1b[0m ^[[2J ^[]0;t^G ^[P+q^[\\');
    expect(neutralise(text, false)).toBe('^[[1mID^[[22m ^[[38;2;1;2;3mrgb^[[0m ^[[2J ^[]0;t^G ^[P+q^[\\');
  });

  it('wraps a stream: strings and bytes (split UTF-8 too) are cleaned, the rest is the stream\'s own', async () => {
    const chunks: string[] = [];
    const inner = Object.assign(new Writable({ write: (c: Buffer, _e, done) => { chunks.push(c.toString('utf8')); done(); } }), { isTTY: true, columns: 80 });
    const tty = terminalStream(inner, false);
    expect(tty.isTTY).toBe(true);
    expect(tty.columns).toBe(80);
    tty.write('a\x1b]52;c;AA\x07');
    const euro = Buffer.from('€\x1b[2J');
    tty.write(euro.subarray(0, 2));
    tty.write(euro.subarray(2));
    await new Promise<void>((resolve) => tty.end('end\r', resolve));
    expect(chunks.join('')).toBe('a^[]52;c;AA^G€^[[2Jend^M');
  });
});

describe('invisible format characters (issue 37 item 5)', () => {
  it('shows bidi controls and zero-width characters by code point, on both layers', () => {
    // `report\u202Efdp.exe` would display as `reportexe.pdf`.
    expect(visible('report\u202Efdp.exe')).toBe('report<U+202E>fdp.exe');
    for (const c of ['\u202A', '\u202B', '\u202C', '\u202D', '\u2066', '\u2067', '\u2068', '\u2069', '\u200E', '\u200F', '\u061C', '\u200B', '\u200C', '\u200D', '\u2060', '\uFEFF']) {
      expect(visible(`a${c}b`)).toBe(`a<U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}>b`);
    }
    expect(neutralise('\x1b[31mred\u200Bx\x1b[0m', true)).toBe('\x1b[31mred<U+200B>x\x1b[0m');
  });

  it('leaves letters of right-to-left scripts and ordinary non-ASCII text alone', () => {
    expect(visible('שלום مرحبا café 日本 €')).toBe('שלום مرحبا café 日本 €');
  });
});

// The terminal door (issue #44): width by graphemes and East Asian Width, never by code point.
describe('width', () => {
  it('counts graphemes, wide East-Asian characters and emoji as 2, marks and format characters as 0', () => {
    expect(displayWidth('abc')).toBe(3);
    expect(displayWidth('日本語')).toBe(6);
    expect(displayWidth('ｱｲ')).toBe(2); // halfwidth katakana
    expect(displayWidth('ＡＢ')).toBe(4); // fullwidth Latin
    expect(displayWidth('e\u0301')).toBe(1); // e + combining acute: one grapheme
    expect(displayWidth('👍')).toBe(2);
    expect(displayWidth('👨‍👩‍👧')).toBe(2); // one ZWJ family
    expect(displayWidth('🇫🇷')).toBe(2);
    expect(displayWidth('\x1b[1mID\x1b[22m')).toBe(2); // gsh's colours take no columns
  });

  it('agrees with string-width, an independent measure, on names of many scripts', async () => {
    const { default: stringWidth } = await import('string-width');
    const names = ['lobby-1', '黄金の島サーバー', 'ｻｰﾊﾞｰ', 'Ｓｅｒｖｅｒ', 'café', 'e\u0301te\u0301', 'Ελληνικά', 'русский', 'עברית', 'العربية', '한국어 서버', '👍 ok', '👨‍👩‍👧 family', '🇫🇷 fr', '✔ done', '⚙️ gear', 'naïve ☕', 'x\u0301\u0302y'];
    for (const name of names) expect(displayWidth(name), name).toBe(stringWidth(name));
    // Devanagari's spacing vowel signs take a cell each on a terminal (wcwidth), where string-width
    // counts a conjunct as one: the door counts more, never less, so a row cannot overflow.
    expect(displayWidth('हिन्दी')).toBeGreaterThanOrEqual(stringWidth('हिन्दी'));
  });

  it('fitWidth never splits a grapheme, cuts wide characters by their width and sanitises first', () => {
    expect(fitWidth('日本語日本語', 5)).toBe('日本…');
    expect(displayWidth(fitWidth('日本語日本語', 6))).toBeLessThanOrEqual(6);
    expect(fitWidth('日本語', 6)).toBe('日本語');
    expect(fitWidth('e\u0301e\u0301e\u0301e\u0301', 3)).toBe('e\u0301e\u0301…');
    expect(fitWidth('🇫🇷🇫🇷', 3)).toBe('🇫🇷…'); // a flag is one grapheme of two code points
    expect(fitWidth('👨‍👩‍👧', 40)).toBe('👨<U+200D>👩<U+200D>👧'); // zero-width joiners are shown (issue #28)
    expect(fitWidth('\x1b]52;c;QUFB\x07name', 6)).toBe('^[]52…');
    expect(fitWidth('a\u202Eb', 20)).toBe('a<U+202E>b');
    expect(fitWidth('abc', 0)).toBe('');
    expect(fitWidth('abcdef', 1)).toBe('…');
    expect(padWidth(fitWidth('日本', 4), 6)).toBe('日本  ');
    expect(padWidth(visible('x'), 3, true)).toBe('  x');
  });
});

describe('the door', () => {
  it('term`…` takes only safe text in its holes; coloured() resets after its colour', () => {
    const url = visible('https://real.example\x1b[8m@evil.example/\x1b[28m');
    expect(term`  Approve at: ${url} (${3} s)`).toBe('  Approve at: https://real.example^[[8m@evil.example/^[[28m (3 s)');
    // @ts-expect-error: service text must pass the sanitiser before it is spliced in
    term`${'raw' as string}`;
    expect(coloured(visible('ok'), '32', true)).toBe('\x1b[32mok\x1b[0m');
    expect(coloured(visible('ok'), '32', false)).toBe('ok');
  });

  it('door(stream).write takes SafeText only', () => {
    const chunks: string[] = [];
    const d = door({ write: (c: string) => chunks.push(c) } as never);
    d.write(term`\r\x1b[2K${visible('\x1b]0;t\x07')}`);
    // @ts-expect-error: a plain string is not SafeText
    d.write('plain');
    expect(chunks[0]).toBe('\r\x1b[2K^[]0;t^G');
    const safe: SafeText = visible('x');
    expect(safe).toBe('x');
  });
});

// Issue 51 item 7: a log's lines (stderr, a terminal or a CI log): no line starts with `::` or
// `##[` (a runner's workflow command), no bare CR (a runner starts a line there).
describe('logLines / inLine', () => {
  it('escapes a line that would start a workflow command, blanks before it included; a bare CR is shown', () => {
    const lines = logLines();
    expect(lines('note: https://x\n::error file=a::pwned\n  ##[warning]old\n')).toBe('note: https://x\n\\::error file=a::pwned\n  \\##[warning]old\n');
    expect(lines('a\r::x\r\nb :: c\n# heading\n')).toBe('a^M::x\r\nb :: c\n# heading\n');
  });
  it('holds across writes: a line start, or a prefix, cut by the end of a write', () => {
    const lines = logLines();
    expect([lines('first'), lines(' ::not at a start\n'), lines(':'), lines(':error\n'), lines('  #'), lines('#[x\n')]).toEqual(['first', ' ::not at a start\n', '\\:', ':error\n', '  \\#', '#[x\n']);
  });
  it('logStream applies it to every write of a stream, strings and bytes', () => {
    const chunks: string[] = [];
    const inner = new Writable({ write: (c: Buffer, _e, done) => { chunks.push(c.toString()); done(); } });
    const log = logStream(inner as unknown as import('../../../src/core/terminal/streams.js').OutStream);
    log.write('x\n::error::a\n');
    log.write(Buffer.from('::warning::b\n'));
    expect(chunks.join('')).toBe('x\n\\::error::a\n\\::warning::b\n');
  });
  it('inLine shows line breaks in quoted text', () => {
    expect(inLine('a\nb\rc\r\nd')).toBe('a^Jb^Mc^M^Jd');
    expect(inLine('plain')).toBe('plain');
  });
});
