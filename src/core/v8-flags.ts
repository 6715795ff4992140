/**
 * How a module asks for V8 flags. The launcher's loader (boot/bundle-loader.ts) listens while it
 * caches compiled code, since V8 rejects a cache made under other flags; without a listener
 * (in-process runs, tests) the asker sets them itself.
 */
export const V8_FLAGS_EVENT = 'gsh:v8-flags';
