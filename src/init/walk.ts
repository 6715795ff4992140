// Walks a parsed YAML document against the manifest schema (manifest-schema.ts), reporting shape
// and value problems at the node they concern. Returns the plain value of everything that had the
// right type (wrong-typed values become undefined) and the span of every field, for aggregate.ts.

import {
  isAlias, isMap, isScalar, isSeq, type Document, type Node, type Pair, type Scalar, type YAMLMap, type YAMLSeq,
} from 'yaml';
import { capValue, formatCap, type CapName, type Tier } from './caps.js';
import { CHECKS, envNameProblem, type Finding } from './checks.js';
import { formatPath, type PathSegment } from './field-path.js';
import type { Span } from './problem.js';
import type { RuleId } from './rules.js';
import type {
  ArraySchema, IntegerSchema, MapSchema, ObjectSchema, Schema, ScalarSchema, StringSchema, TaggedSchema,
} from './schema-types.js';
import { didYouMean } from './suggest.js';

export type Emit = (rule: RuleId, path: readonly PathSegment[], span: Span, message: string) => void;

export type PlainObject = Record<string, unknown>;

type Kind = 'null' | 'string' | 'integer' | 'number' | 'boolean' | 'map' | 'list' | 'other';

const DESCRIBE: Record<Kind, string> = {
  null: 'nothing (an empty value)', string: 'a string', integer: 'an integer', number: 'a number',
  boolean: 'a boolean', map: 'a map', list: 'a list', other: 'a value of another YAML type (a tag such as !!binary)',
};

function kindOf(node: Node | null | undefined): Kind {
  if (node == null) return 'null';
  if (isMap(node)) return 'map';
  if (isSeq(node)) return 'list';
  if (!isScalar(node)) return 'other';
  const value = node.value;
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return Number.isInteger(value) && !writtenAsFloat(node) ? 'integer' : 'number';
  return 'other';
}

/** YAML 1.2 core integers only: `1.0`, `1e0` and `!!float 1` are floats even though JavaScript holds 1. */
function writtenAsFloat(node: Scalar): boolean {
  if (node.tag !== undefined) return node.tag === 'tag:yaml.org,2002:float';
  return typeof node.source === 'string' && !/^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$/.test(node.source);
}

function label(path: readonly PathSegment[]): string {
  return path.length === 0 ? 'the document' : `\`${formatPath(path)}\``;
}

export class Walker {
  /** Every path walked and its span, for the aggregate rules' few lookups (spanAt). */
  private readonly walked: Array<[readonly PathSegment[], Span]> = [];
  private spans: Map<string, Span> | undefined;
  /** The nodes being walked, outermost first: an alias that resolves to one of them is a cycle. */
  private readonly ancestors: Node[] = [];

  constructor(
    private readonly doc: Document,
    private readonly text: string,
    private readonly tier: Tier,
    private readonly emit: Emit,
  ) {}

  /** The span of a walked path (given as formatPath writes it); a path walked twice has its last. */
  spanAt(path: string): Span | undefined {
    // Built on first use: most files have no aggregate finding, and a path string per node is dear.
    if (!this.spans) {
      this.spans = new Map();
      for (const [walked, span] of this.walked) this.spans.set(formatPath(walked), span);
    }
    return this.spans.get(path);
  }

  spanOf(node: Node | null | undefined, fallback: Span): Span {
    const range = node?.range;
    if (!range || range[1] <= range[0]) return fallback;
    let end = range[1];
    while (end > range[0] && isSpace(this.text.charCodeAt(end - 1))) end--;
    return { start: range[0], end };
  }

  walk(schema: Schema, written: Node | null | undefined, path: readonly PathSegment[], anchor: Span): unknown {
    this.walked.push([path, anchor]);
    const node = isAlias(written) ? written.resolve(this.doc) : written;
    if (!node) return this.walkResolved(schema, node, path, anchor);
    // A composed document is a tree: only an alias can lead back to a node being walked.
    if (node !== written && this.ancestors.includes(node)) {
      this.emit('type', path, anchor, `${label(path)} is an alias of a value that contains it`);
      return undefined;
    }
    this.ancestors.push(node);
    try {
      return this.walkResolved(schema, node, path, anchor);
    } finally {
      this.ancestors.pop();
    }
  }

  private walkResolved(schema: Schema, node: Node | null | undefined, path: readonly PathSegment[], anchor: Span): unknown {
    const kind = kindOf(node);
    switch (schema.type) {
      case 'object':
        return kind === 'map' ? this.object(schema, node as unknown as MapNode, path, anchor) : this.wrongType(path, anchor, kind, 'a map');
      case 'tagged':
        return kind === 'map' ? this.tagged(schema, node as unknown as MapNode, path, anchor) : this.wrongType(path, anchor, kind, 'a map');
      case 'array':
        return kind === 'list' ? this.array(schema, node as unknown as SeqNode, path, anchor) : this.wrongType(path, anchor, kind, 'a list');
      case 'map':
        return kind === 'map' ? this.map(schema, node as unknown as MapNode, path, anchor) : this.wrongType(path, anchor, kind, 'a map');
      case 'list-or-object':
        if (kind === 'list') return this.array(schema.list, node as unknown as SeqNode, path, anchor);
        if (kind === 'map') return this.object(schema.object, node as unknown as MapNode, path, anchor);
        return this.wrongType(path, anchor, kind, 'a list of commands or a map with `commands`');
      case 'string':
        return this.string(schema, node, kind, path, anchor);
      case 'integer':
        return this.integer(schema, node, kind, path, anchor);
      case 'boolean':
        if (kind === 'boolean') return (node as ScalarNode).value;
        return this.wrongType(path, anchor, kind, 'true or false', booleanHint(node, kind));
      case 'scalar':
        return this.scalar(schema, node, kind, path, anchor);
    }
  }

  private wrongType(path: readonly PathSegment[], anchor: Span, kind: Kind, expected: string, hint = ''): undefined {
    this.emit('type', path, anchor, `${label(path)} must be ${expected}, found ${DESCRIBE[kind]}${hint}`);
    return undefined;
  }

  private keyName(pair: Pair): string | undefined {
    const key = pair.key as Node | null;
    if (isScalar(key)) return String(key.value);
    return undefined;
  }

  private keySpan(pair: Pair, fallback: Span): Span {
    return this.spanOf(pair.key as Node | null, fallback);
  }

  /** Where problems about a field's value point: the scalar itself, or the key of a collection. */
  private valueAnchor(pair: Pair, keySpan: Span): Span {
    const value = pair.value as Node | null;
    if (value && (isScalar(value) || isAlias(value))) return this.spanOf(value, keySpan);
    return keySpan;
  }

  /** Pairs with usable keys, reporting duplicates and non-scalar keys once. */
  private pairs(node: MapNode, path: readonly PathSegment[], anchor: Span): Array<[string, Pair, Span]> {
    const usable: Array<[string, Pair, Span]> = [];
    const seen = new Set<string>();
    for (const pair of node.items) {
      const keySpan = this.keySpan(pair, anchor);
      const name = this.keyName(pair);
      if (name === undefined) {
        this.emit('unknown-key', path, keySpan, `keys in ${label(path)} must be plain names, not a list or map`);
        continue;
      }
      if (seen.has(name)) {
        this.emit('duplicate-key', [...path, name], keySpan, `\`${name}\` appears twice in ${label(path)}; only one is allowed`);
        continue;
      }
      seen.add(name);
      usable.push([name, pair, keySpan]);
    }
    return usable;
  }

  private object(schema: ObjectSchema, node: MapNode, path: readonly PathSegment[], anchor: Span, foreignKeys?: (key: string) => string | undefined): PlainObject {
    const result: PlainObject = Object.create(null) as PlainObject;
    const present = new Map<string, Span>();
    for (const [name, pair, keySpan] of this.pairs(node, path, anchor)) {
      const property = own(schema.properties, name);
      present.set(name, keySpan);
      if (property === undefined) {
        const where = path.length === 0 ? 'at the top level' : `in ${label(path)}`;
        const reason = foreignKeys?.(name) ?? didYouMean(name, Object.keys(schema.properties));
        this.emit('unknown-key', [...path, name], keySpan, `unknown key \`${name}\` ${where}${reason}`);
        continue;
      }
      result[name] = this.walk(property, pair.value as Node | null, [...path, name], this.valueAnchor(pair, keySpan));
    }
    for (const name of schema.required ?? []) {
      if (!present.has(name)) this.emit('required', [...path, name], anchor, `${label([...path, name])} is required`);
    }
    this.alternatives(schema, present, path, anchor);
    return result;
  }

  private alternatives(schema: ObjectSchema, present: Map<string, Span>, path: readonly PathSegment[], anchor: Span): void {
    const choice = schema.exactlyOne ?? schema.atLeastOne;
    if (choice === undefined) return;
    const names = (conjunction: string): string =>
      choice.map((name) => `\`${name}\``).join(', ').replace(/, ([^,]*)$/, ` ${conjunction} $1`);
    const given = choice.filter((name) => present.has(name));
    const [, second] = given;
    if (given.length === 0) {
      const how = schema.exactlyOne ? 'exactly one' : 'one';
      this.emit('one-of', path, anchor, `${label(path)} needs ${how} of ${names('or')}`);
    } else if (second !== undefined) {
      const span = present.get(second) ?? anchor;
      if (schema.exactlyOne) this.emit('one-of', [...path, second], span, `${label(path)} takes only one of ${names('or')}`);
      else this.emit('redundant-key', [...path, second], span, `${label(path)} gives both ${names('and')}; one is enough`);
    }
  }

  private tagged(schema: TaggedSchema, node: MapNode, path: readonly PathSegment[], anchor: Span): PlainObject {
    const variants = Object.keys(schema.variants);
    const tagPair = node.items.find((pair) => this.keyName(pair) === schema.tag);
    const tagNode = tagPair?.value as Node | null | undefined;
    const tagValue = isScalar(tagNode) ? tagNode.value : undefined;
    const chosen = typeof tagValue === 'string' ? own(schema.variants, tagValue) : undefined;
    if (chosen !== undefined) {
      const foreign = (key: string): string | undefined =>
        variants.some((v) => v !== tagValue && own(schema.variants[v]?.properties ?? {}, key) !== undefined)
          ? `; it is not used with \`${schema.tag}: ${String(tagValue)}\`` : undefined;
      return this.object(chosen, node, path, anchor, foreign);
    }
    const list = variants.map((v) => `\`${v}\``).join(' or ');
    if (tagPair === undefined) {
      this.emit('required', [...path, schema.tag], anchor, `${label([...path, schema.tag])} is required (${list})`);
    } else if (typeof tagValue === 'string') {
      const span = this.valueAnchor(tagPair, this.keySpan(tagPair, anchor));
      this.emit('enum', [...path, schema.tag], span, `${label([...path, schema.tag])} must be ${list}, found \`${tagValue}\`${didYouMean(tagValue, variants)}`);
    }
    // Without a usable tag, check the keys against the variant they suggest, or all variants.
    const keys = new Set(node.items.map((pair) => this.keyName(pair)));
    const guess = Object.values(schema.variants).find((variant) =>
      (variant.required ?? []).some((name) => name !== schema.tag && keys.has(name)));
    const base = guess ?? { ...schema.variants[variants[0] ?? ''], properties: Object.assign({}, ...Object.values(schema.variants).map((v) => v.properties)) as ObjectSchema['properties'] };
    const loose: ObjectSchema = {
      type: 'object',
      description: schema.description,
      properties: { ...base.properties, [schema.tag]: { type: 'string', description: 'tag' } },
      required: guess ? (guess.required ?? []).filter((name) => name !== schema.tag) : [],
    };
    return this.object(loose, node, path, anchor);
  }

  private array(schema: ArraySchema, node: SeqNode, path: readonly PathSegment[], anchor: Span): unknown[] {
    const items = node.items.map((item, i) =>
      this.walk(schema.items, item as Node | null, [...path, i], this.spanOf(item as Node | null, anchor)));
    if (schema.maxItems !== undefined && items.length > schema.maxItems) {
      this.emit('range', path, anchor, `${label(path)} has ${items.length} entries; at most ${schema.maxItems} are allowed`);
    }
    if (schema.maxItemsCap !== undefined) this.cap(schema.maxItemsCap, items.length, path, anchor);
    return items;
  }

  private map(schema: MapSchema, node: MapNode, path: readonly PathSegment[], anchor: Span): PlainObject {
    const result: PlainObject = Object.create(null) as PlainObject;
    let count = 0;
    for (const [name, pair, keySpan] of this.pairs(node, path, anchor)) {
      count++;
      for (const finding of envNameProblem(name)) this.emit(finding.rule, [...path, name], keySpan, finding.message);
      result[name] = this.walk(schema.values, pair.value as Node | null, [...path, name], this.valueAnchor(pair, keySpan));
    }
    if (schema.maxKeysCap !== undefined) this.cap(schema.maxKeysCap, count, path, anchor);
    return result;
  }

  private cap(name: CapName, actual: number, path: readonly PathSegment[], anchor: Span): void {
    if (actual <= capValue(name, this.tier)) return;
    this.emit('plan-cap', path, anchor, `${label(path)} has ${actual} entries; the ${this.tier} plan allows ${formatCap(name, this.tier)}`);
  }

  private string(schema: StringSchema, node: Node | null | undefined, kind: Kind, path: readonly PathSegment[], anchor: Span): string | undefined {
    if (kind !== 'string') {
      if (schema.numberWarns && (kind === 'integer' || kind === 'number')) {
        const written = this.text.slice(anchor.start, anchor.end);
        this.emit('unquoted-version', path, anchor, `${label(path)} is written as a number, which YAML reads as ${String((node as ScalarNode).value)}; quote it: '${written}'`);
        return String((node as ScalarNode).value);
      }
      return this.wrongType(path, anchor, kind, 'a string', stringHint(schema, kind));
    }
    const value = (node as ScalarNode).value as string;
    this.length(schema, value, path, anchor);
    if (schema.enum !== undefined && !schema.enum.includes(value)) {
      const list = schema.enum.map((v) => `\`${v}\``).join(', ');
      this.emit('enum', path, anchor, `${label(path)} must be one of ${list}, found \`${value}\`${didYouMean(value, schema.enum)}`);
    }
    if (schema.check !== undefined) this.findings(CHECKS[schema.check](value), path, anchor);
    return value;
  }

  private length(schema: StringSchema | ScalarSchema, value: string, path: readonly PathSegment[], anchor: Span): void {
    const maxLength = schema.type === 'string' ? schema.maxLength : undefined;
    // A string has between half its UTF-16 length and its length in code points: most need no count.
    if ((schema.minLength === undefined || Math.ceil(value.length / 2) >= schema.minLength)
      && (maxLength === undefined || value.length <= maxLength)) return;
    const length = codePoints(value);
    if (schema.minLength !== undefined && length < schema.minLength) {
      this.emit('length', path, anchor, length === 0
        ? `${label(path)} must not be empty`
        : `${label(path)} has ${length} characters; at least ${schema.minLength} are required`);
    } else if (maxLength !== undefined && length > maxLength) {
      this.emit('length', path, anchor, `${label(path)} has ${length} characters; at most ${maxLength} are allowed`);
    }
  }

  private findings(findings: Finding[], path: readonly PathSegment[], anchor: Span): void {
    for (const finding of findings) this.emit(finding.rule, path, anchor, finding.message);
  }

  private integer(schema: IntegerSchema, node: Node | null | undefined, kind: Kind, path: readonly PathSegment[], anchor: Span): number | undefined {
    if (kind !== 'integer') {
      const hint = kind === 'number' ? ` (\`${this.text.slice(anchor.start, anchor.end)}\`; write it without a decimal point or exponent)` : '';
      if (schema.const !== undefined) {
        this.emit('version', path, anchor, `${label(path)} must be the integer ${schema.const}, found ${DESCRIBE[kind]}${hint}`);
        return undefined;
      }
      return this.wrongType(path, anchor, kind, 'an integer', hint);
    }
    const value = (node as ScalarNode).value as number;
    if (schema.const !== undefined && value !== schema.const) {
      this.emit('version', path, anchor, `${label(path)} must be ${schema.const}, found ${value}`);
    } else if (schema.minimum !== undefined && value < schema.minimum) {
      this.emit('range', path, anchor, `${label(path)} must be at least ${schema.minimum}, found ${value}`);
    } else if (schema.maximum !== undefined && value > schema.maximum) {
      this.emit('range', path, anchor, `${label(path)} must be at most ${schema.maximum}, found ${value}`);
    } else if (schema.maximumCap !== undefined && value > capValue(schema.maximumCap, this.tier)) {
      this.emit('plan-cap', path, anchor, `${label(path)} is ${value.toLocaleString('en-US')} bytes; the ${this.tier} plan allows ${formatCap(schema.maximumCap, this.tier)} per download`);
    }
    return value;
  }

  private scalar(schema: ScalarSchema, node: Node | null | undefined, kind: Kind, path: readonly PathSegment[], anchor: Span): unknown {
    const accepted = schema.of.includes(kind as never) || (kind === 'integer' && schema.of.includes('number'));
    if (accepted) {
      const value = (node as ScalarNode).value;
      if (kind === 'string') this.length(schema, value as string, path, anchor);
      return value;
    }
    const expected = schema.of.map((t) => (t === 'integer' ? 'an integer' : `a ${t}`)).join(' or ').replace(/ or (?=.* or )/g, ', ');
    return this.wrongType(path, anchor, kind, expected);
  }
}

/**
 * A key's entry in a schema table, never an inherited one: a manifest key such as `toString` or
 * `__proto__` names no property (through the prototype it would be taken for a known one).
 */
function own<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

/** What /\s/ matches, without a regular expression for the ASCII characters nearly every text has. */
function isSpace(code: number): boolean {
  if (code < 128) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  return /\s/.test(String.fromCharCode(code));
}

/** Characters as people (and JSON Schema's minLength) count them: code points, not UTF-16 units. */
function codePoints(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}

function booleanHint(node: Node | null | undefined, kind: Kind): string {
  if (kind !== 'string') return '';
  const value = String((node as ScalarNode).value).toLowerCase();
  return ['yes', 'no', 'on', 'off', 'y', 'n'].includes(value)
    ? ` (YAML 1.2 reads \`${String((node as ScalarNode).value)}\` as a string; write true or false)`
    : '';
}

function stringHint(schema: StringSchema, kind: Kind): string {
  if (schema.check === 'file-mode' && kind === 'integer') {
    return " (YAML reads an unquoted 0644 as the decimal number 644; quote it: '0644')";
  }
  return kind === 'integer' || kind === 'number' || kind === 'boolean' ? ' (quote it to make it a string)' : '';
}

type ScalarNode = Scalar<unknown>;
type MapNode = YAMLMap<unknown, unknown>;
type SeqNode = YAMLSeq<unknown>;
