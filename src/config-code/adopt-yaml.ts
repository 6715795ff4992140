import { isDeepStrictEqual } from 'node:util';
import { isAlias, isScalar, isSeq, type Node, parseDocument, Scalar, stringify } from 'yaml';
import { formatPath, type PathSegment } from '../init/field-path.js';

// gsh config adopt's edit of a declaration file (README "Configuration as code"): the yaml
// Document finds each value's node and its byte range, and only those bytes are replaced; every
// other byte (comments, key order, blank lines, quoting, flow spacing) is the file's own.
// Printing the whole Document again would not be: it pads flow lists (`[a, b]` becomes
// `[ a, b ]`) and respaces what it reprints. The result is then read back and must equal the
// Document with each value set at its path (setIn): an edit that would read otherwise is refused.

export interface YamlEdit {
  path: PathSegment[];
  /** What the file holds there now (the edit is refused if the file says otherwise). */
  old: unknown;
  value: unknown;
}

export type Edited = { text: string } | { problem: string };

export function editYaml(text: string, edits: readonly YamlEdit[]): Edited {
  const doc = parseDocument(text, { uniqueKeys: false });
  if (doc.errors.length) return { problem: `it no longer parses (${doc.errors[0]!.message.split('\n')[0]})` };
  const splices: Array<{ start: number; end: number; text: string }> = [];
  for (const e of edits) {
    const node = doc.getIn(e.path, true) as Node | undefined;
    const where = formatPath(e.path);
    if (node === undefined || isAlias(node) || !node.range) return { problem: `${where} is not written as a value of its own (an alias or a merge key)` };
    if (!isDeepStrictEqual(node.toJS(doc), e.old)) return { problem: `${where} changed since it was read` };
    const [start, end] = node.range;
    const was = text.slice(start, end);
    const inFlow = e.path.some((_, i) => (doc.getIn(e.path.slice(0, i), true) as { flow?: boolean } | undefined)?.flow === true);
    const column = start - (text.lastIndexOf('\n', start - 1) + 1);
    splices.push({ start, end, text: `${render(e.value, node, was, inFlow, column)}${/\s*$/.exec(was)![0]}` });
  }
  splices.sort((a, b) => b.start - a.start);
  let out = text;
  for (const s of splices) out = out.slice(0, s.start) + s.text + out.slice(s.end);
  const expected = doc.clone();
  for (const e of edits) expected.setIn(e.path, e.value);
  const back = parseDocument(out, { uniqueKeys: false });
  if (back.errors.length || !isDeepStrictEqual(back.toJS(), expected.toJS())) return { problem: 'the value written in place would not read back as the live one' };
  return { text: out };
}

/** A value as the node it replaces was written: a list block or flow as it was, a string quoted as it was. */
function render(value: unknown, node: Node, was: string, inFlow: boolean, column: number): string {
  if (Array.isArray(value)) {
    if (isSeq(node) && !node.flow && value.length) return value.map((v) => `- ${scalarText(v, undefined, false)}`).join(`\n${' '.repeat(column)}`);
    const items = value.map((v) => scalarText(v, undefined, true));
    const pad = /^\[ /.test(was) ? ' ' : '';
    return items.length ? `[${pad}${items.join(', ')}${pad}]` : '[]';
  }
  return scalarText(value, isScalar(node) ? node.type : undefined, inFlow);
}

function scalarText(value: unknown, type: Scalar['type'], inFlow: boolean): string {
  if (typeof value !== 'string') return String(value);
  const scalar = new Scalar(value);
  // A block scalar (|, >) needs lines of its own; in a flow collection , [ ] { } end a plain word.
  const quoted = type === 'QUOTE_SINGLE' || type === 'QUOTE_DOUBLE';
  scalar.type = quoted ? type : type === 'BLOCK_LITERAL' || type === 'BLOCK_FOLDED' || (inFlow && /[,[\]{}]/.test(value)) ? 'QUOTE_DOUBLE' : 'PLAIN';
  const text = stringify(scalar, { lineWidth: 0 }).replace(/\n$/, '');
  return text.includes('\n') ? JSON.stringify(value) : text;
}
