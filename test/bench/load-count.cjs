'use strict';
// What one gsh run loads, for finding start-up costs (not part of any output gsh ships):
//   node --require ./test/bench/load-count.cjs bin/gsh.js servers list --limit 5
// prints to stderr at exit, as one JSON line: the bundle chunks the loader compiled (name, bytes,
// whether the code cache was used; the chunks of the packs bin/dist/start*.cjs one by one, `scripts`
// counting the files compiled), the built-in modules required, Node's own internal modules loaded
// (`internals`: internal/promise_hooks, for one, says something entered an AsyncLocalStorage,
// which makes every later promise run hooks), and the milliseconds from the
// process's start to the first socket connect (the first request) and to exit. It wraps
// vm.Script (the bundle loader compiles every chunk through it), Module._load and
// process.getBuiltinModule (built-ins), and net.Socket#connect.
const vm = require('node:vm');
const Module = require('node:module');
const net = require('node:net');
const { basename } = require('node:path');
const { performance } = require('node:perf_hooks');

const chunks = [];
let scripts = 0;
const builtins = new Set();
let firstConnectMs;

const Script = vm.Script;
vm.Script = class extends Script {
  constructor(source, options = {}) {
    super(source, options);
    if (String(options.filename ?? '').endsWith('.cjs')) {
      scripts += 1;
      const cache = options.cachedData ? (this.cachedDataRejected ? 'rejected' : 'hit') : 'none';
      // A pack (bin/dist/start.cjs, start-tree.cjs, start-leaf.cjs) counts as the chunks it holds, each under its own name.
      const packed = /^start(-[a-z]+)?\.cjs$/.test(basename(options.filename))
        ? [...source.matchAll(/^"(?:[^"]*\/)?([^"/]+)": function \(exports, require, module, __filename, __dirname\) \{\n([^]*?)\n\}(?=,\n"|\n\};\n)/gm)]
        : [];
      if (packed.length) for (const [, name, body] of packed) chunks.push({ name, bytes: Buffer.byteLength(body), cache, pack: basename(options.filename) });
      else chunks.push({ name: basename(options.filename), bytes: Buffer.byteLength(source), cache });
    }
  }
};

const load = Module._load;
Module._load = function (request, ...rest) {
  if (Module.isBuiltin(request)) builtins.add(request.replace(/^node:/, ''));
  return load.call(this, request, ...rest);
};
// The loader and core/builtin.ts take built-in modules from process.getBuiltinModule.
const getBuiltinModule = process.getBuiltinModule;
process.getBuiltinModule = function (id) {
  const module = getBuiltinModule.call(this, id);
  if (module !== undefined) builtins.add(id.replace(/^node:/, ''));
  return module;
};

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  firstConnectMs ??= performance.now();
  return connect.apply(this, args);
};

process.on('exit', () => {
  const bytes = chunks.reduce((n, c) => n + c.bytes, 0);
  process.stderr.write(`${JSON.stringify({
    chunks: chunks.length, scripts, bytes, cacheMisses: chunks.filter((c) => c.cache !== 'hit').map((c) => c.name),
    firstConnectMs: firstConnectMs === undefined ? null : Math.round(firstConnectMs), exitMs: Math.round(performance.now()),
    builtins: [...builtins].sort(),
    internals: process.moduleLoadList.filter((m) => m.startsWith('NativeModule internal/')).map((m) => m.slice('NativeModule '.length)),
    loaded: chunks.map((c) => `${c.name}:${c.bytes}`),
    // The chunks compiled from their own file, not from a pack.
    alone: chunks.filter((c) => c.pack === undefined).map((c) => c.name),
  })}\n`);
});
