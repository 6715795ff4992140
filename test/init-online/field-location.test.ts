import { describe, expect, it } from 'vitest';
import { ManifestLocator, parseFieldPath } from '../../src/commands/init-online/field-location.js';

// Field paths in the contract's form (01-general-contract.md "Init manifest": "each with a field
// path such as `assets[0].size`") back to lines of the local file.

const TEXT = [
  '#service-init',
  'version: 1',
  'env:',
  '  "my key": x',
  'assets:',
  '  - url: https://example.com/a.zip',
  '    size: 10',
  '  - url: https://example.com/b.zip',
].join('\n');

describe('parseFieldPath', () => {
  it('reads names, indexes and quoted keys', () => {
    expect(parseFieldPath('assets[0].size')).toEqual(['assets', 0, 'size']);
    expect(parseFieldPath('env["my key"]')).toEqual(['env', 'my key']);
    expect(parseFieldPath('')).toEqual([]);
  });

  it('refuses text that is not a field path', () => {
    expect(parseFieldPath('assets[x]')).toBeUndefined();
    expect(parseFieldPath('a b')).toBeUndefined();
  });
});

describe('ManifestLocator', () => {
  const locator = new ManifestLocator(TEXT);

  it('finds the value of a full path', () => {
    expect(locator.locate(['assets', 0, 'size'])).toEqual({ line: 7, column: 11, exact: true, depth: 3 });
    expect(locator.locate(['env', 'my key'])).toMatchObject({ line: 4, exact: true });
  });

  it('falls back to the deepest ancestor that exists (a missing key, an entry beyond the list)', () => {
    expect(locator.locate(['assets', 1, 'size'])).toEqual({ line: 8, column: 5, exact: false, depth: 2 });
    expect(locator.locate(['hooks', 0])).toMatchObject({ exact: false, depth: 0 });
  });

  it('gives up on a file that does not parse', () => {
    expect(new ManifestLocator('#service-init\nversion: [1\n').locate(['version'])).toBeUndefined();
  });
});
