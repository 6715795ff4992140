import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { addFamilyCommands } from '../../src/commands/registry-commands.js';
import { FEATURES } from '../../src/leaf/features/index.js';
import type { Family, Field, Operation } from '../../src/operations/types.js';

// ARCHITECTURE.md "Operation features": each optional operation feature is one module of
// src/leaf/features/, listed in features/index.ts; the builder, the planner and the executor loop
// over that list.

const field = (name: string): Field => ({ name, type: 'string', description: 'a field' });

/** Builds one made-up operation under a fresh `demo` word. */
function build(op: Partial<Operation>): Command {
  const top = new Command('demo');
  const family: Family = {
    name: 'demo', summary: 'made up',
    operations: [{ method: 'GET', path: '/demo', command: 'demo things', summary: 'things', example: 'gsh demo things', ...op }],
  };
  addFamilyCommands(top, [family]);
  return top;
}

describe('feature flags a declared field may not take', () => {
  it('paging reserves --limit, --offset and --all on paged operations only', () => {
    for (const name of ['limit', 'offset', 'all']) {
      expect(() => build({ paging: 'offset', query: [field(name)] }), name).toThrow(`field ${name} shadows the --${name} flag`);
    }
    expect(() => build({ paging: 'page', query: [field('page')] })).toThrow('shadows the --page flag');
    // An operation with a limit of its own (files history) declares it.
    expect(build({ query: [field('limit')] }).commands[0]!.options.map((o) => o.long)).toContain('--limit');
  });

  it('the signed-URL download reserves --to and --clobber where the answer is a signed URL', () => {
    expect(() => build({ method: 'POST', signedUrl: true, body: [field('to')] })).toThrow('shadows the --to flag');
    expect(build({ method: 'POST', body: [field('to')] }).commands[0]!.options.map((o) => o.long)).toContain('--to');
  });

  it('the other features reserve their flags on every operation', () => {
    for (const name of ['server', 'wait', 'quiet', 'raw-field', 'field', 'input', 'lint', 'if-absent', 'ready', 'announce', 'countdown', 'announce-cancel', 'all-servers', 'parallel', 'fail-fast']) {
      expect(() => build({ method: 'POST', body: [field(name)] }), name).toThrow(`shadows the --${name} flag`);
    }
  });
});

describe('the feature list', () => {
  it('names each feature once', () => {
    const names = FEATURES.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('the builder, the planner and the executor name no feature field: the feature modules read them', () => {
    // An independent copy of the optional fields of `Operation` that are features.
    const featureFields = ['params', 'query', 'body', 'paging', 'wait', 'destructive', 'columns', 'idField', 'ifAbsent', 'serverArgument', 'signedUrl', 'raw', 'form', 'verbs', 'console'];
    for (const file of ['src/commands/registry-commands.ts', 'src/leaf/plan.ts', 'src/leaf/run.ts']) {
      const source = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
      for (const name of featureFields) expect(source, `${file} reads op.${name}`).not.toMatch(new RegExp(`\\bop\\??\\.${name}\\b`));
    }
  });
});
