import { isMap, isSeq, parseDocument, type Node } from 'yaml';
import { LineIndex } from '../../init/line-index.js';

// Where a field path the service reports (`files[0].mode`, `env["my key"]`, the contract's form)
// sits in the local file. A path that does not exist there in full (a missing required key, a
// section that came from a template) resolves to its deepest ancestor that does.

export type Segment = string | number;

const TOKEN = /^(?:\.?([A-Za-z_][A-Za-z0-9_-]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\])/;

/** `assets[0].size` → ['assets', 0, 'size']; undefined when the text is not such a path. */
export function parseFieldPath(path: string): Segment[] | undefined {
  const out: Segment[] = [];
  let rest = path;
  while (rest !== '') {
    const m = TOKEN.exec(rest);
    if (!m) return undefined;
    if (m[1] !== undefined) out.push(m[1]);
    else if (m[2] !== undefined) out.push(Number(m[2]));
    else out.push(JSON.parse(m[3] as string) as string);
    rest = rest.slice(m[0].length);
  }
  return out;
}

export interface Location {
  line: number;
  column: number;
  /** The whole path was found (not only an ancestor). */
  exact: boolean;
  /** How many leading segments were found. */
  depth: number;
}

function child(node: Node | null, segment: Segment): Node | null | undefined {
  if (isMap(node)) {
    const pair = node.items.find((p) => {
      const key = p.key as { value?: unknown } | null;
      return key !== null && typeof key === 'object' && String(key.value) === String(segment);
    });
    return pair ? ((pair.value ?? pair.key) as Node | null) : undefined;
  }
  if (isSeq(node) && typeof segment === 'number') return node.items[segment] as Node | undefined;
  return undefined;
}

export class ManifestLocator {
  private readonly lines: LineIndex;
  private readonly root: Node | null;

  constructor(text: string) {
    this.lines = new LineIndex(text);
    const doc = parseDocument(text, { uniqueKeys: false, prettyErrors: false });
    this.root = doc.errors.length ? null : (doc.contents as Node | null);
  }

  /** The location of a path, or undefined when the file does not parse or is empty. */
  locate(path: readonly Segment[]): Location | undefined {
    let node = this.root;
    if (!node?.range) return undefined;
    let depth = 0;
    for (const segment of path) {
      const next = child(node, segment);
      if (!next?.range) break;
      node = next;
      depth++;
    }
    const { line, column } = this.lines.position(node.range![0]);
    return { line, column, exact: depth === path.length, depth };
  }

  lineText(line: number): string {
    return this.lines.lineText(line);
  }
}
