import { describe, expect, expectTypeOf, it } from 'vitest';
import { findWord, wordsAfter } from '../../src/core/flags/argv.js';
import { flagsOf, GLOBAL_FLAG_NAMES, GLOBAL_FLAG_TABLE, type GlobalFlag, type Globals } from '../../src/core/flags/global-flags.js';
import { createProgram } from '../../src/program.js';

// One table of global flags: the program's options, the word finder's value flags, the names a
// registry field must not shadow and the Globals type all come from src/core/flags/global-flags.ts. An
// option added to the program beside the table, or a table row the word finder does not skip,
// fails here (a value flag the word finder misses takes its value for the command word: this
// once happened with --jq).

const rootOptions = createProgram().options;
const table = GLOBAL_FLAG_TABLE as readonly GlobalFlag[];

describe('global flags', () => {
  it('every option of the program is a row of the table, in the table order', () => {
    expect(rootOptions.map((o) => o.flags)).toEqual(table.map(flagsOf));
  });

  it('the word finder skips the value of every program option that takes one', () => {
    const valued = rootOptions.filter((o) => o.required || o.optional);
    expect(valued.length).toBeGreaterThan(5);
    for (const o of valued) {
      for (const name of [o.short, o.long].filter((n): n is string => n !== undefined)) {
        expect(findWord([name, 'value', 'servers', 'list']), `${name} <value> servers list`).toBe('servers');
        expect(wordsAfter([name, 'value', 'servers', 'list']), `${name} <value> servers list`).toEqual(['list']);
      }
    }
  });

  it('the word finder takes the word after every switch', () => {
    for (const o of rootOptions.filter((o) => !o.required && !o.optional)) {
      for (const name of [o.short, o.long].filter((n): n is string => n !== undefined)) {
        expect(findWord([name, 'servers', 'list']), `${name} servers list`).toBe('servers');
      }
    }
  });

  it('a registry field may shadow no program option (either half of a negation, nor help)', () => {
    for (const o of rootOptions) {
      const long = o.long!.slice(2);
      expect(GLOBAL_FLAG_NAMES, long).toContain(long);
      if (o.negate) expect(GLOBAL_FLAG_NAMES, long).toContain(long.slice(3));
    }
    expect(GLOBAL_FLAG_NAMES).toContain('help');
  });

  it('Globals is what commander stores', () => {
    const program = createProgram();
    program.parse(['--base-url', 'http://h/api/v2', '--color', 'never', '--no-input', '--dry-run'], { from: 'user' });
    const opts = program.opts<Globals>();
    expect(opts).toMatchObject({ baseUrl: 'http://h/api/v2', color: 'never', input: false, header: true, dryRun: true });
    // The derivation's rules, checked by the compiler: camelCase keys, values as strings,
    // `--no-x` alone a boolean, beside `--x <value>` a false; --version is no option value.
    expectTypeOf<Globals['baseUrl']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Globals['color']>().toEqualTypeOf<string | false | undefined>();
    expectTypeOf<Globals['header']>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<Globals['dryRun']>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<Globals>().not.toHaveProperty('version');
  });
});
