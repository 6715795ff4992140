// Node's built-in modules that only a rare path of synchronous code needs, loaded on that path:
// node:crypto alone costs about a sixth of `node -e 0` to load (issue 39), and a module that
// imports it at its top makes every command that loads the module pay, `gsh --help` included.
// process.getBuiltinModule, not a require from node:module's createRequire: importing node:module
// at the top of this file made every start load it.

export const crypto = (): typeof import('node:crypto') => process.getBuiltinModule('node:crypto');
export const os = (): typeof import('node:os') => process.getBuiltinModule('node:os');
