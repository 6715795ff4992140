import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Prng } from '../../src/sandbox/prng.js';

// The many-file lint benchmark's input: 1,000 manifests, about 11 MB in all, their sizes spread
// from about 1 KB up to the 48 KB document limit (01-general-contract.md, "Init manifest"), most
// small and a tail near the limit, as a repository of real manifests would be. Deterministic: the
// same seed writes the same bytes. Mostly valid: every 50th manifest (20 of 1,000) has one error
// (`run.timeout` over its 900 s maximum) and one warning (an asset without a checksum), so the
// report path is timed too and the run exits 1.

export const MANIFEST_COUNT = 1000;
const LIMIT = 48_000;
const SMALLEST = 1_000;

/** Target size of manifest i: u^3.7 skews towards small files; the mean is about 11 KB. */
export function targetSizes(count = MANIFEST_COUNT, seed = 16): number[] {
  const rng = new Prng(seed);
  return Array.from({ length: count }, () => Math.round(SMALLEST + (LIMIT - 200 - SMALLEST) * rng.next() ** 3.7));
}

function head(i: number, broken: boolean): string {
  return `#service-init
version: 1
application:
  slug: minecraft
  version: "1.21.1"
  loader: paper
env:
${Array.from({ length: 10 }, (_, k) => `  VAR_${k}: value-${i}-${k}\n`).join('')}assets:
  - url: https://cdn.example.com/world-${i}.zip
    size: 1048576
${broken ? '' : `    sha256: ${'a'.repeat(64)}\n`}run:
  commands: [say hello, whitelist on]
  timeout: ${broken ? 1200 : 300}
schedules:
  - name: nightly restart
    cron: "0 4 * * *"
    tasks:
      - {action: power, payload: restart}
hooks:
  - url: https://hooks.example.com/gsh
    events: [server.started, server.crashed]
    secret: 0123456789abcdef0123
access:
  - email: ops@example.com
    permissions: [control.console, file.read]
files:
`;
}

/** One `files` entry whose content block is `lines` lines of config. */
function fileEntry(i: number, k: number, lines: number): string {
  const body = Array.from({ length: lines }, (_, n) => `      setting-${n}: "value ${i}.${k}.${n} of a generated config file"\n`).join('');
  return `  - path: config/generated-${k}.yml\n    mode: "0644"\n    content: |\n${body}`;
}

/** Manifest i of about `size` bytes: the head, then `files` entries of up to 40 lines each. */
export function manifest(i: number, size: number): string {
  let text = head(i, i % 50 === 49);
  for (let k = 0; text.length < size - 100 && k < 50; k++) {
    const lineBytes = 60;
    const lines = Math.max(1, Math.min(40, Math.floor((size - text.length - 80) / lineBytes)));
    text += fileEntry(i, k, lines);
  }
  return text;
}

/** Writes the manifests into `dir` (created if needed); returns the bytes written. */
export function writeManifests(dir: string, count = MANIFEST_COUNT): number {
  mkdirSync(dir, { recursive: true });
  let bytes = 0;
  targetSizes(count).forEach((size, i) => {
    const text = manifest(i, size);
    bytes += Buffer.byteLength(text);
    writeFileSync(join(dir, `m${String(i).padStart(4, '0')}.yaml`), text);
  });
  return bytes;
}
