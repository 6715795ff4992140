import { readFileSync } from 'node:fs';

// Read once from package.json beside dist/ (and beside src/ under vitest): one source of truth.
function readVersion(): string {
  for (const rel of ['../package.json', '../../package.json']) {
    try {
      return (JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { version: string }).version;
    } catch {
      // try the next layout
    }
  }
  return '0.0.0';
}

export const VERSION = readVersion();
