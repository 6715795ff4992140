import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runGsh } from '../helpers/context.js';

// Garbage in, clear errors out: the linter over generated and mutated manifests (byte flips,
// truncation, deep nesting, alias bombs, binary) always exits 0, 1 or 2, prints valid JSON with
// --format json, and never reports an internal error. Seeded, so a failure reproduces.

const BASE = `#service-init
version: 1
application:
  slug: paper
  version: "1.21"
env:
  MOTD: "Hello"
  MAX_PLAYERS: "20"
files:
  - path: /data/server.properties
    content: |
      motd=hello
      max-players=20
startup:
  command: java -jar server.jar
`;

/** mulberry32: a small seeded generator. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function cases(count: number): [string, Buffer][] {
  const rnd = prng(20261124);
  const base = Buffer.from(BASE);
  const out: [string, Buffer][] = [];
  for (let i = 0; i < count; i++) {
    const kind = i % 6;
    const b = Buffer.from(base);
    if (kind === 0) {
      for (let f = 0; f < 1 + Math.floor(rnd() * 8); f++) b[Math.floor(rnd() * b.length)] = Math.floor(rnd() * 256);
      out.push([`byte flips #${i}`, b]);
    } else if (kind === 1) {
      out.push([`truncated #${i}`, b.subarray(0, Math.floor(rnd() * b.length))]);
    } else if (kind === 2) {
      const depth = 1 + Math.floor(rnd() * 5000);
      const open = rnd() < 0.5 ? '[' : '{a: ';
      out.push([`nesting ${depth} #${i}`, Buffer.from(`${BASE}x: ${open.repeat(depth)}`)]);
    } else if (kind === 3) {
      const levels = 2 + Math.floor(rnd() * 12);
      let doc = `${BASE}a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n`;
      for (let l = 1; l < levels; l++) doc += `a${l}: &a${l} [${Array(9).fill(`*a${l - 1}`).join(', ')}]\n`;
      out.push([`alias bomb ${levels} #${i}`, Buffer.from(doc)]);
    } else if (kind === 4) {
      out.push([`binary #${i}`, Buffer.from(Array.from({ length: Math.floor(rnd() * 4096) }, () => Math.floor(rnd() * 256)))]);
    } else {
      const lines = BASE.split('\n');
      const a = Math.floor(rnd() * lines.length);
      const c = Math.floor(rnd() * lines.length);
      [lines[a], lines[c]] = [lines[c] as string, lines[a] as string];
      lines.splice(Math.floor(rnd() * lines.length), 0, ' '.repeat(Math.floor(rnd() * 9)) + (rnd() < 0.5 ? '- ' : 'k: ') + '&x *x');
      out.push([`shuffled #${i}`, Buffer.from(lines.join('\n'))]);
    }
  }
  return out;
}

const CASES = cases(300);

describe('init lint under fuzzed input', () => {
  it(`${CASES.length} mutated manifests: exit 0, 1 or 2, valid JSON, no internal error`, async () => {
    const bad: string[] = [];
    const codes: Record<number, number> = {};
    for (const [name, bytes] of CASES) {
      const r = await runGsh(['init', 'lint', '--format', 'json', '-'], { stdin: bytes });
      codes[r.exitCode] = (codes[r.exitCode] ?? 0) + 1;
      if (![0, 1, 2].includes(r.exitCode)) bad.push(`${name}: exit ${r.exitCode}`);
      if (/internal error|RangeError|Maximum call stack|at .*\.js:\d+/.test(r.stderr + r.stdout)) bad.push(`${name}: ${r.stderr.slice(0, 200)}`);
      if (r.exitCode !== 2) {
        try {
          const report = JSON.parse(r.stdout) as { problems: unknown[] }[];
          if (!Array.isArray(report) || !Array.isArray(report[0]?.problems)) bad.push(`${name}: not the report shape`);
        } catch {
          bad.push(`${name}: stdout is not JSON: ${r.stdout.slice(0, 100)}`);
        }
      }
    }
    expect(bad).toEqual([]);
    expect(codes[1]).toBeGreaterThan(200); // most are broken: the linter did look at them
  });
});

describe('init lint on files that are not regular files', () => {
  it('a FIFO argument is reported at once (exit 2), a FIFO in a directory is skipped and the rest linted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsh-fifo-'));
    try {
      execFileSync('mkfifo', [join(dir, 'pipe.yaml')]);
      writeFileSync(join(dir, 'good.yaml'), '#service-init\nversion: 1\n');
      const fifo = await runGsh(['init', 'lint', join(dir, 'pipe.yaml')]);
      expect(fifo.exitCode).toBe(2);
      expect(fifo.stderr).toContain(`cannot read ${join(dir, 'pipe.yaml')}: not a regular file`);
      const all = await runGsh(['init', 'lint', '--format', 'json', dir]);
      expect(all.exitCode, all.stderr).toBe(0);
      expect((JSON.parse(all.stdout) as { file: string }[]).map((f) => f.file)).toEqual([join(dir, 'good.yaml')]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
