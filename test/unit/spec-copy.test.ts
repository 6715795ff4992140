import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Tests read the contract from test/fixtures/spec so that a fresh clone needs nothing outside the
// repository. Where the shared contract sits beside the checkout (CI, a developer's machine), the
// copy must be the contract exactly: a changed spec fails here until the copy is refreshed.
const copy = fileURLToPath(new URL('../fixtures/spec/', import.meta.url));
const shared = fileURLToPath(new URL('../../../shared/spec/', import.meta.url));
const present = existsSync(shared);

describe.skipIf(!present)(present ? 'the contract copy' : 'the contract copy (skipped: ../shared/spec is not beside this checkout)', () => {
  it('holds exactly the files of ../shared/spec, byte for byte (refresh: cp ../shared/spec/* test/fixtures/spec/)', () => {
    expect(readdirSync(copy).sort()).toEqual(readdirSync(shared).sort());
    for (const f of readdirSync(shared)) {
      expect(readFileSync(copy + f).equals(readFileSync(shared + f)), `${f} differs from ../shared/spec/${f}`).toBe(true);
    }
  });
});
