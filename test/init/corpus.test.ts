import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Tier } from '../../src/init/caps.js';
import { lintBytes } from '../../src/init/lint.js';
import { RULE_IDS, type RuleId } from '../../src/init/rules.js';

// The corpus: manifests under corpus/valid and corpus/invalid, each carrying its expected findings
// as comments (`#! severity line:column rule path`), its tier (`# tier: free`, default paid) and
// the rules it is a passing case for (`# passes: rule ...`). Inputs that cannot carry comments
// (empty, binary, non-UTF-8, oversized) are built below. Rules come from 01-general-contract.md,
// "Init manifest" and "Caps by plan", unless a case says otherwise.

interface Case {
  name: string;
  bytes: Uint8Array;
  tier: Tier;
  expected: string[];
  passes: string[];
  valid: boolean;
}

const CORPUS = fileURLToPath(new URL('./corpus/', import.meta.url));

function fromFile(dir: 'valid' | 'invalid', file: string): Case {
  const bytes = readFileSync(`${CORPUS}${dir}/${file}`);
  const text = bytes.toString('utf8');
  return {
    name: `${dir}/${file}`,
    bytes,
    tier: (/^# tier: (free|paid)\s*$/m.exec(text)?.[1] ?? 'paid') as Tier,
    expected: [...text.matchAll(/^#! (.+?)\s*$/gm)].map((m) => m[1] ?? ''),
    passes: [...text.matchAll(/^# passes: (.+?)\s*$/gm)].flatMap((m) => (m[1] ?? '').split(/\s+/)),
    valid: dir === 'valid',
  };
}

const utf8 = (text: string): Uint8Array => Buffer.from(text, 'utf8');

const HEAD = '#service-init\nversion: 1\nfiles:\n  - path: big.txt\n    content: "';
const TAIL = '"\n';

/** A manifest whose one file holds `size` bytes. */
function withFile(size: number): Uint8Array {
  return utf8(HEAD + 'x'.repeat(size) + TAIL);
}

/** A manifest of exactly `total` bytes. */
function sized(total: number): Uint8Array {
  return withFile(total - HEAD.length - TAIL.length);
}

/** Lines `a:` indented 1 to `deepest` spaces, each a map inside the one above. */
function nestedBlocks(deepest: number): string {
  return Array.from({ length: deepest }, (_, i) => `${' '.repeat(i + 1)}a:\n`).join('');
}

const GENERATED: Case[] = [
  { name: 'empty file', bytes: new Uint8Array(), tier: 'paid', expected: ['error 1:1 empty-file'], passes: [], valid: false },
  { name: 'whitespace only', bytes: utf8('\n  \n'), tier: 'paid', expected: ['error 1:1 empty-file'], passes: [], valid: false },
  {
    name: 'NUL bytes', bytes: utf8('#service-init\nversion: 1\n\u0000\u0001'), tier: 'paid',
    expected: ['error 1:1 binary-file'], passes: [], valid: false,
  },
  {
    name: 'Latin-1 byte', bytes: Buffer.concat([utf8('#service-init\nversion: 1\nstartup:\n  command: caf'), Buffer.from([0xe9, 0x0a])]),
    tier: 'paid', expected: ['error 4:15 encoding'], passes: [], valid: false,
  },
  {
    name: 'byte order mark before the header', bytes: utf8('\uFEFF#service-init\nversion: 1\n'), tier: 'paid',
    expected: ['error 1:1 header'], passes: [], valid: false,
  },
  // "at most 48 KB", read as 48,000 bytes (src/init/caps.ts DOCUMENT_LIMIT_BYTES).
  { name: '48,000 bytes', bytes: sized(48_000), tier: 'paid', expected: [], passes: ['document-size'], valid: true },
  { name: '48,001 bytes', bytes: sized(48_001), tier: 'paid', expected: ['error 1:1 document-size'], passes: [], valid: false },
  // "single file 64 KiB" on the free plan; only reachable in an oversized document.
  {
    name: 'a 64 KiB + 1 file at free', bytes: withFile(64 * 1024 + 1), tier: 'free',
    expected: ['error 1:1 document-size', 'error 5:14 plan-cap files[0].content'], passes: [], valid: false,
  },
  {
    name: 'the same file at paid', bytes: withFile(64 * 1024 + 1), tier: 'paid',
    expected: ['error 1:1 document-size'], passes: [], valid: false,
  },
  // Hostile input (issue: garbage in, clear errors out): nesting is bounded before the parser
  // recurses; far over the limit the size is the whole report.
  {
    name: '20,000 nested brackets', bytes: utf8(`#service-init\nversion: 1\nx: ${'['.repeat(20_000)}${']'.repeat(20_000)}\n`), tier: 'paid',
    expected: ['error 3:68 too-deep'], passes: [], valid: false,
  },
  {
    name: '64 nested flow levels', bytes: utf8(`#service-init\nversion: 1\nx: ${'['.repeat(64)}${']'.repeat(64)}\n`), tier: 'paid',
    expected: ['error 3:1 unknown-key x'], passes: ['too-deep'], valid: false,
  },
  // Block nesting: each line one space deeper than the last; the 65th level (indented 64) is too deep.
  {
    name: '65 nested block levels', bytes: utf8(`#service-init\nversion: 1\nx:\n${nestedBlocks(64)}`), tier: 'paid',
    expected: ['error 67:65 too-deep'], passes: [], valid: false,
  },
  {
    name: '64 nested block levels', bytes: utf8(`#service-init\nversion: 1\nx:\n${nestedBlocks(63)}`), tier: 'paid',
    expected: ['error 3:1 unknown-key x'], passes: ['too-deep'], valid: false,
  },
  {
    name: '66 flow levels of both kinds', bytes: utf8(`#service-init\nversion: 1\nx: ${'[{'.repeat(33)}${'}]'.repeat(33)}\n`), tier: 'paid',
    expected: ['error 3:68 too-deep'], passes: [], valid: false,
  },
  {
    name: 'a file over 1 MB is not parsed (its broken YAML is not reported)', bytes: Buffer.concat([sized(2_000_000), utf8('x: [\n')]), tier: 'paid',
    expected: ['error 1:1 document-size'], passes: [], valid: false,
  },
];

const CASES: Case[] = [
  ...readdirSync(`${CORPUS}valid`).filter((f) => f.endsWith('.yaml')).map((f) => fromFile('valid', f)),
  ...readdirSync(`${CORPUS}invalid`).filter((f) => f.endsWith('.yaml')).map((f) => fromFile('invalid', f)),
  ...GENERATED,
];

function findings(c: Case): string[] {
  return lintBytes(c.bytes, c.tier).problems.map((p) => `${p.severity} ${p.line}:${p.column} ${p.rule} ${p.path}`.trimEnd());
}

describe('init lint corpus', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    expect(findings(c)).toEqual(c.expected);
    const errors = c.expected.filter((line) => line.startsWith('error'));
    if (c.valid) expect(errors).toEqual([]);
    else expect(errors.length).toBeGreaterThan(0);
  });

  it('has a failing and a passing case for every rule', () => {
    const missing: string[] = [];
    for (const rule of RULE_IDS) {
      const fails = CASES.some((c) => c.expected.some((line) => line.split(' ')[2] === rule));
      const passes = CASES.some((c) => c.passes.includes(rule) && !findings(c).some((line) => line.split(' ')[2] === rule));
      if (!fails) missing.push(`${rule}: no failing case`);
      if (!passes) missing.push(`${rule}: no passing case`);
    }
    expect(missing).toEqual([]);
  });

  it('names only real rules in `# passes:`', () => {
    const unknown = CASES.flatMap((c) => c.passes.filter((rule) => !RULE_IDS.includes(rule as RuleId)));
    expect(unknown).toEqual([]);
  });
});
