import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// ARCHITECTURE.md "Doors": the wire has one door. Every request to the API is sent by the
// request core in src/core/wire/ (ApiClient, its two transports and their one policy: proxies,
// kept-alive connections, stale resends, the words of every failure); the console socket is the
// one other connection, a WebSocket opened by src/console/session.ts. No other module under src/
// (the sandbox, which is the service, aside) may load a network module: a new surface that
// needs the network goes through ApiClient.

const ROOT = join(import.meta.dirname, '..', '..');
const SRC = join(ROOT, 'src');
const DOORS = ['src/core/wire/', 'src/console/session.ts'];
/** Modules that may reach the network otherwise, each with its reason. */
const ALSO: Record<string, string> = {
  'src/commands/sandbox-person.ts': 'plays the person at the sandbox\'s own admin API on loopback (`gsh sandbox person`): no service, no credential, no proxy',
};
const NETWORK = /^(node:)?(http|https|http2|net|tls|dns|dgram)$|^(undici|ws)(\/|$)/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(e.name) ? [path] : [];
  });
}

/** Every place in `text` that loads a network module at run time (type-only imports load nothing), or calls fetch(). */
export function networkUses(text: string): string[] {
  const found: string[] = [];
  // A module that binds a name `fetch` of its own (a variable, a parameter) calls that, not the global.
  const ownFetch = /(?:\b(?:const|let|var|function)\s+fetch\b|\bfetch\s*:)/.test(text);
  text.split('\n').forEach((line, i) => {
    const at = `${i + 1}: `;
    for (const m of line.matchAll(/(?:(?:^|[^\w.])(?:import\s+(?!type\b)[^'"]*from\s*|import\s*\(\s*|require\s*\(\s*)|\bgetBuiltinModule\s*\(\s*)['"]([^'"]+)['"]/g)) {
      if (NETWORK.test(m[1]!)) found.push(`${at}${m[1]}`);
    }
    if (!ownFetch && /(?:^|[^\w.])fetch\s*\(/.test(line)) found.push(`${at}fetch()`);
  });
  return found;
}

describe('the wire door', () => {
  it('finds what it looks for (a scan that finds nothing proves nothing)', () => {
    const sample = [
      "import http from 'node:http';",
      "import type { Dispatcher } from 'undici';",
      "const { request } = await import('undici');",
      "const net = process.getBuiltinModule('node:net');",
      "import { WebSocket } from 'ws';",
      'const r = await fetch(url);',
      "rt.fetch(x); import { http } from './http.js';",
    ].join('\n');
    expect(networkUses(sample)).toEqual(['1: node:http', '3: undici', '4: node:net', '5: ws', '6: fetch()']);
  });

  it('no module but the request core and the console socket loads a network module', () => {
    const wrong: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const rel = relative(ROOT, file);
      if (rel.startsWith('src/sandbox/') || DOORS.some((d) => rel.startsWith(d)) || ALSO[rel]) continue;
      for (const use of networkUses(readFileSync(file, 'utf8'))) wrong.push(`${rel}:${use}`);
    }
    expect(wrong).toEqual([]);
  });

  it('the doors do load them (else they leave the list)', () => {
    expect(networkUses(readFileSync(join(ROOT, 'src/core/wire/transport.ts'), 'utf8')).length).toBeGreaterThan(0);
    expect(networkUses(readFileSync(join(ROOT, 'src/console/session.ts'), 'utf8'))).toEqual(['1: ws']);
    for (const file of Object.keys(ALSO)) expect(networkUses(readFileSync(join(ROOT, file), 'utf8')), file).not.toEqual([]);
  });
});
