// Lints one manifest's bytes: file-level checks (encoding, header, size), YAML parsing, then the
// schema walk and the aggregate rules. Bad input of any kind becomes findings, never an exception.

import { isMap, isScalar, parseAllDocuments, type Node } from 'yaml';
import { checkAggregates } from './aggregate.js';
import { DOCUMENT_LIMIT_BYTES, type Tier } from './caps.js';
import { formatPath, type PathSegment } from './field-path.js';
import { LineIndex } from './line-index.js';
import { MANIFEST_SCHEMA } from './manifest-schema.js';
import { compareProblems, type Problem, type Span } from './problem.js';
import { RULES, type RuleId } from './rules.js';
import { HEADER } from './vocabulary.js';
import { Walker, type PlainObject } from './walk.js';

export interface LintResult {
  problems: Problem[];
  /** The decoded text, for formatters that show source lines. */
  lines: LineIndex;
}

class Collector {
  readonly problems: Problem[] = [];
  constructor(readonly lines: LineIndex) {}

  add(rule: RuleId, path: string, span: Span, message: string): void {
    const start = this.lines.position(span.start);
    const end = this.lines.position(Math.max(span.end, span.start));
    this.problems.push({
      severity: RULES[rule].severity, rule, path, message,
      line: start.line, column: start.column, endLine: end.line, endColumn: end.column,
    });
  }
}

/** Byte offset of the first invalid sequence: the lossy decode matches the bytes up to there. */
function firstInvalidUtf8(bytes: Uint8Array): number {
  const lossy = new TextDecoder('utf-8').decode(bytes);
  let offset = 0;
  for (const char of lossy) {
    const size = Buffer.byteLength(char, 'utf8');
    if (char === '\uFFFD' && !(bytes[offset] === 0xef && bytes[offset + 1] === 0xbf && bytes[offset + 2] === 0xbd)) return offset;
    offset += size;
  }
  return 0;
}

/** One decoder for every file: decode() without `stream` keeps no state between calls. */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function decode(bytes: Uint8Array): { text: string; badByte?: number } {
  try {
    return { text: STRICT_UTF8.decode(bytes) };
  } catch {
    return { text: new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes), badByte: firstInvalidUtf8(bytes) };
  }
}

function checkHeader(text: string, out: Collector): void {
  const newline = text.indexOf('\n');
  const first = (newline === -1 ? text : text.slice(0, newline)).replace(/\r$/, '');
  if (first === HEADER) return;
  const span = { start: 0, end: first.length };
  if (first.startsWith('\uFEFF')) {
    out.add('header', '', span, `the file starts with a byte order mark; the first line must be exactly \`${HEADER}\``);
  } else {
    const found = first.length > 60 ? `${first.slice(0, 60)}…` : first;
    out.add('header', '', span, `the first line must be exactly \`${HEADER}\`, found \`${found}\``);
  }
}

/** Deeper than any manifest needs; far below what would exhaust the parser's stack. */
export const MAX_DEPTH = 64;
/** Twenty times the 48 KB limit: larger files are reported by size alone, never parsed. */
export const PARSE_LIMIT_BYTES = 20 * DOCUMENT_LIMIT_BYTES;

const SPACE = 0x20;
const DASH = 0x2d;

/** Whether some line starts with at least MAX_DEPTH spaces and dashes (block indentation). */
function deeplyIndentedLine(text: string): boolean {
  for (let start = 0; ;) {
    // A line too short, or with anything else at its last indentation column, is passed over.
    const last = text.charCodeAt(start + MAX_DEPTH - 1);
    if (last === SPACE || last === DASH) {
      let i = start;
      while (i < start + MAX_DEPTH && (text.charCodeAt(i) === SPACE || text.charCodeAt(i) === DASH)) i++;
      if (i === start + MAX_DEPTH) return true;
    }
    const newline = text.indexOf('\n', start);
    if (newline === -1) return false;
    start = newline + 1;
  }
}

/**
 * Deeper than MAX_DEPTH takes a line indented by at least MAX_DEPTH (the levels only grow) or more
 * than MAX_DEPTH opening brackets. Nearly every file has neither, and these scans (one look per
 * line, native searches for brackets) spare it the character-by-character one.
 */
function mayNestTooDeep(text: string): boolean {
  if (deeplyIndentedLine(text)) return true;
  let brackets = 0;
  for (const open of ['[', '{']) {
    for (let i = text.indexOf(open); i !== -1; i = text.indexOf(open, i + 1)) if (++brackets > MAX_DEPTH) return true;
  }
  return false;
}

/**
 * Where the text first nests deeper than MAX_DEPTH: flow collections (`[`, `{`) outside quotes
 * and comments, or block indentation levels. Found by a linear scan, before the parser recurses.
 */
export function tooDeepAt(text: string): number | undefined {
  if (!mayNestTooDeep(text)) return undefined;
  let flow = 0;
  let quote: string | undefined;
  const indents: number[] = [];
  let lineStart = true;
  let indent = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '\n') {
      lineStart = true;
      indent = 0;
      continue;
    }
    if (lineStart) {
      if (c === ' ' || c === '-') {
        indent++;
        continue;
      }
      lineStart = false;
      if (c !== '#' && flow === 0 && quote === undefined) {
        while (indents.length && (indents[indents.length - 1] as number) >= indent) indents.pop();
        indents.push(indent);
        if (indents.length > MAX_DEPTH) return i;
      }
    }
    if (quote !== undefined) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(text[i - 1] as string))) {
      const end = text.indexOf('\n', i);
      i = end === -1 ? text.length : end - 1;
    } else if (c === '[' || c === '{') {
      if (++flow > MAX_DEPTH) return i;
    } else if ((c === ']' || c === '}') && flow > 0) flow--;
  }
  return undefined;
}

function validate(text: string, tier: Tier, out: Collector): void {
  const deep = tooDeepAt(text);
  if (deep !== undefined) {
    out.add('too-deep', '', { start: deep, end: deep + 1 }, `the YAML nests more than ${MAX_DEPTH} levels deep here; a manifest never needs that`);
    return;
  }
  const docs = parseAllDocuments(text, { uniqueKeys: false, prettyErrors: false });
  for (const doc of docs) {
    for (const error of doc.errors) out.add('yaml-syntax', '', { start: error.pos[0], end: error.pos[1] }, firstLine(error.message));
    for (const warning of doc.warnings) out.add('yaml-warning', '', { start: warning.pos[0], end: warning.pos[1] }, firstLine(warning.message));
  }
  const [doc, second] = docs;
  if (second !== undefined) {
    out.add('multiple-documents', '', { start: second.range[0], end: second.range[0] + 3 },
      `a manifest is one YAML document; found ${docs.length} (remove the \`---\` separators)`);
  }
  if (docs.some((d) => d.errors.length > 0)) return; // shape checks on a broken parse only add noise
  const root = (doc?.contents ?? null) as Node | null;
  const emit = (rule: RuleId, path: readonly PathSegment[], span: Span, message: string): void =>
    out.add(rule, formatPath(path), span, message);
  const blank = isScalar(root) && root.value === null && (root.range?.[1] ?? 0) <= (root.range?.[0] ?? 0);
  if (doc === undefined || root === null || blank) {
    out.add('required', 'version', { start: 0, end: 0 }, '`version` is required (the smallest manifest is the header and `version: 1`)');
    return;
  }
  const walker = new Walker(doc, text, tier, emit);
  const rootSpan = walker.spanOf(root, { start: 0, end: 0 });
  if (!isMap(root)) {
    out.add('not-a-map', '', rootSpan, 'the document must be a map of sections (`version: 1`, `files:`, ...)');
    return;
  }
  const manifest = walker.walk(MANIFEST_SCHEMA, root, [], rootSpan) as PlainObject;
  checkAggregates(manifest, tier, (rule, path, message) =>
    emit(rule, path, walker.spanAt(formatPath(path)) ?? rootSpan, message));
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}

export function lintBytes(bytes: Uint8Array, tier: Tier): LintResult {
  const { text, badByte } = decode(bytes);
  const out = new Collector(new LineIndex(text));
  const whole = { start: 0, end: 0 };
  if (!/\S/.test(text)) {
    out.add('empty-file', '', whole, `the file is empty; a manifest needs at least \`${HEADER}\` and \`version: 1\``);
    return { problems: out.problems, lines: out.lines };
  }
  if (bytes.includes(0)) {
    out.add('binary-file', '', whole, 'the file contains NUL bytes; it is binary, not a YAML manifest');
    return { problems: out.problems, lines: out.lines };
  }
  if (badByte !== undefined) {
    const offset = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes.subarray(0, badByte)).length;
    out.add('encoding', '', { start: offset, end: offset + 1 }, `byte ${badByte} is not valid UTF-8; save the file as UTF-8`);
  }
  if (bytes.length > DOCUMENT_LIMIT_BYTES) {
    out.add('document-size', '', whole,
      `the document is ${bytes.length.toLocaleString('en-US')} bytes; the limit is 48 KB (read as ${DOCUMENT_LIMIT_BYTES.toLocaleString('en-US')} bytes)`);
  }
  checkHeader(text, out);
  // Far over the limit it is not a manifest anyone can save: its size is the whole report.
  if (bytes.length <= PARSE_LIMIT_BYTES) validate(text, tier, out);
  out.problems.sort(compareProblems);
  return { problems: out.problems, lines: out.lines };
}
