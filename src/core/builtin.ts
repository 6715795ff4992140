import { createRequire } from 'node:module';

// Node's built-in modules that only a rare path of synchronous code needs, loaded on that path:
// node:crypto alone costs about a sixth of `node -e 0` to load (issue 39), and a module that
// imports it at its top makes every command that loads the module pay, `gsh --help` included.

let nodeRequire: NodeJS.Require | undefined;
const builtin = <T>(id: string): T => (nodeRequire ??= createRequire(process.execPath))(id) as T;

export const crypto = (): typeof import('node:crypto') => builtin('node:crypto');
export const os = (): typeof import('node:os') => builtin('node:os');
